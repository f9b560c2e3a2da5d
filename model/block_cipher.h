// The block ciphers of the engine's cipher part, functionally: AES (128/192/256-bit keys), DES
// and 3DES in ECB, CBC, CTR and XTS, each stream keeping its own chaining state (what the engine
// holds in its CNTR_IV registers) between calls, so a request can arrive in pieces and the next
// IV/counter can be exported. OpenSSL supplies only the raw block function (EVP in ECB mode,
// no padding); chaining, counters and tweaks are done here. Bytes are in the algorithm's own
// order (FIPS 197, SP 800-38A, IEEE 1619): the engine's register byte orders are the engine's
// business (qce/). CCM's CBC-MAC is here too; CCM's counter mode is CTR.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace qcesim {

enum class CipherAlg { aes, des, tdes };
enum class CipherMode { ecb, cbc, ctr, xts };

const char* cipher_alg_name(CipherAlg a);
const char* cipher_mode_name(CipherMode m);
std::size_t cipher_block_bytes(CipherAlg a);  // 16 for AES, 8 for DES and 3DES

// One key's raw block function in one direction.
class BlockFunction {
 public:
  // AES: 16, 24 or 32 key bytes; DES: 8; 3DES: 24 (K1 K2 K3, encrypt-decrypt-encrypt).
  // Throws std::invalid_argument on another length.
  BlockFunction(CipherAlg alg, const std::vector<std::uint8_t>& key, bool encrypt);
  ~BlockFunction();
  BlockFunction(BlockFunction&&) noexcept;
  BlockFunction& operator=(BlockFunction&&) noexcept;
  BlockFunction(const BlockFunction&) = delete;
  BlockFunction& operator=(const BlockFunction&) = delete;

  // n whole blocks, in may equal out.
  void blocks(const std::uint8_t* in, std::uint8_t* out, std::size_t n) const;
  std::size_t block_bytes() const { return m_block; }

 private:
  struct Ctx;
  std::unique_ptr<Ctx> m_ctx;
  std::size_t m_block;
};

// OpenSSL running one of its own modes (CBC or CTR, 128-bit big-endian counter) over many
// blocks in one call: CipherStream's bulk path. The chaining state stays the caller's: each run
// starts from the IV given.
class BulkMode {
 public:
  BulkMode(CipherAlg alg, const std::vector<std::uint8_t>& key, bool encrypt, CipherMode mode);
  ~BulkMode();
  BulkMode(const BulkMode&) = delete;
  BulkMode& operator=(const BulkMode&) = delete;
  // len: whole blocks; in may equal out.
  void run(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out, std::size_t len) const;

 private:
  struct Ctx;
  std::unique_ptr<Ctx> m_ctx;
  bool m_encrypt;
};

struct CipherSpec {
  CipherAlg alg = CipherAlg::aes;
  CipherMode mode = CipherMode::cbc;
  bool encrypt = true;
  std::vector<std::uint8_t> key;      // XTS: the data key K1
  std::vector<std::uint8_t> xts_key;  // XTS: the tweak key K2 (same length as key)
  // CBC: the IV; CTR: the initial counter block; XTS: the first data unit's tweak value i
  // (IEEE 1619: a 128-bit little-endian number). Only the first block_bytes are used.
  std::array<std::uint8_t, 16> iv{};
  std::uint32_t data_unit_bytes = 0;  // XTS: bytes per data unit, at least 16 (0: one unit)
};

// A spec from a key as the kernel's setkey takes it (xts(aes): the data key, then the tweak key)
// and the IV's bytes (fewer than 16: the rest zero).
CipherSpec kernel_cipher_spec(CipherAlg alg, CipherMode mode, bool encrypt, const std::vector<std::uint8_t>& key,
                              const std::uint8_t* iv, std::size_t iv_bytes);

// Keys the engine cannot take though the algorithm can: XTS with equal data and tweak halves,
// 3DES with two of its three keys equal.
bool xts_halves_equal(const std::vector<std::uint8_t>& key);
bool tdes_has_equal_keys(const std::vector<std::uint8_t>& key);
// The 4 weak and 12 semi-weak DES keys, parity bits ignored (the 16 keys whose two key-schedule
// halves are constant or alternating): the ones the kernel's des_expand_key reports -ENOKEY for,
// which verify_skcipher_des_key refuses (-EINVAL) when the tfm forbids weak keys.
bool des_key_is_weak(const std::uint8_t* key8);

// "" when the spec can run, else what is wrong with it (key lengths, mode, data unit).
std::string check_cipher_spec(const CipherSpec& s);

class CipherStream {
 public:
  explicit CipherStream(const CipherSpec& s);  // throws std::invalid_argument when check fails

  // Encrypts or decrypts len bytes (in may equal out). ECB, CBC and XTS take whole blocks; XTS
  // moves to the next data unit (i + 1, the tweak recomputed) after data_unit_bytes, and ends a
  // data unit (or, with data_unit_bytes 0, the call) on a partial block by ciphertext stealing
  // (the kernel's software XTS does; the engine's cipher part refuses such lengths). CTR takes
  // any length: a partial last block uses the current counter's keystream and leaves the
  // counter where it is (one reading of the engine's CTR partial block, linux-qce-cipher.md
  // section 5 [I]). Throws std::invalid_argument on a length the mode cannot take.
  void update(const std::uint8_t* in, std::uint8_t* out, std::size_t len);

  // Starts over from another IV with the same keys (no new key schedules): what an engine or a
  // driver does for the next request under the same key.
  void restart(const std::array<std::uint8_t, 16>& iv);
  // Whether this stream runs `s` (same algorithm, mode, direction, keys and data unit).
  bool same_keys(const CipherSpec& s) const;

  // The chaining state a next piece would start from: CBC the last ciphertext block, CTR the
  // next counter block, XTS the current data unit's i (advanced past finished units), ECB zeros.
  const std::array<std::uint8_t, 16>& iv() const { return m_iv; }
  std::size_t block_bytes() const { return m_block; }

 private:
  void xts_start_unit();

  CipherSpec m_spec;
  std::size_t m_block;
  void xts_blocks(const std::uint8_t* in, std::uint8_t* out, std::size_t n);
  void xts_steal(const std::uint8_t* in, std::uint8_t* out, std::size_t len);

  BlockFunction m_fn;                      // the data key in the spec's direction (CTR: always encrypt)
  std::unique_ptr<BulkMode> m_bulk;        // CBC and CTR: OpenSSL's mode over whole runs of blocks
  std::unique_ptr<BlockFunction> m_tweak;  // XTS: K2, encrypt
  std::vector<std::uint8_t> m_scratch;     // XTS: the run's tweaks
  std::array<std::uint8_t, 16> m_iv{};
  std::array<std::uint8_t, 16> m_t{};  // XTS: the current block's tweak
  bool m_t_due = false;                // XTS: m_t is the unit's first, not computed yet
  std::uint64_t m_unit_done = 0;       // XTS: bytes of the current data unit processed
};

// The IV the kernel's software skcipher leaves in req->iv after a request of `total` bytes run
// through `stream` from its start: CBC the last ciphertext block; CTR the next counter, a
// partial last block counted (crypto/ctr.c's crypto_inc after its keystream, where
// CipherStream::update leaves the counter as the engine does); XTS and ECB the IV as it was
// (`iv_in`).
std::array<std::uint8_t, 16> software_iv_out(const CipherStream& stream, CipherMode mode, std::uint64_t total,
                                             const std::array<std::uint8_t, 16>& iv_in);

// CCM's CBC-MAC (SP 800-38C section 6.1): AES-CBC with a zero IV over B0, the formatted
// associated data and the payload, the chain value after the last block being the MAC. Bytes
// may come in pieces of any length; pad() zero-fills a pending partial block, as CCM's
// formatting does at the end of the associated data and of the payload.
class CbcMac {
 public:
  explicit CbcMac(const std::vector<std::uint8_t>& aes_key);  // 16, 24 or 32 bytes
  void update(const std::uint8_t* data, std::size_t len);
  void pad();
  // The chain value: the MAC once everything is in and padded.
  const std::array<std::uint8_t, 16>& value() const { return m_x; }

 private:
  BlockFunction m_fn;
  std::array<std::uint8_t, 16> m_x{};
  std::array<std::uint8_t, 16> m_buf{};
  std::size_t m_len = 0;
};

}  // namespace qcesim
