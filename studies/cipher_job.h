// Encrypting or decrypting as `qcesim cipher` does. An skcipher (cbc(aes), xts(aes), ...) streams
// through the emulated engine (the skcipher driver, BAM descriptors, the engine's cipher part) in
// requests of up to 1 MiB with the IV chained through the result dump, or on the CPU
// (model/block_cipher, one stream). An AEAD (ccm(aes), authenc(hmac(sha256),cbc(aes)), ...) in
// one request: ciphertext then tag out when encrypting, the tag checked when decrypting. With a
// platform profile, its kernel era's registered set and fallback rules apply (requests the
// rules send to software run on the emulated CPU), as they would on that board.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/soft_crypto.h"
#include "drivers/crypto/qce/aead.h"
#include "drivers/crypto/qce/fallback.h"
#include "drivers/crypto/qce/reg_io.h"
#include "model/block_cipher.h"

namespace qcesim::studies {

struct CipherSetup {
  std::string name;  // the kernel's algorithm name
  bool aead = false;
  CipherAlg alg = CipherAlg::aes;  // skcipher
  CipherMode mode = CipherMode::cbc;
  qce::AeadAlg aead_alg;  // AEAD
  bool encrypt = true;
  std::vector<std::uint8_t> key;       // XTS: both keys; authenc: the cipher's key
  std::vector<std::uint8_t> auth_key;  // authenc: the HMAC key
  std::vector<std::uint8_t> iv;        // ivsize bytes (none for ECB); ccm(aes): 16 bytes or a 7..13-byte nonce
  std::vector<std::uint8_t> assoc;     // AEAD: associated data
  unsigned tag_bytes = 0;              // AEAD: 0 = the algorithm's largest
  qce::RegIo reg_io = qce::RegIo::mmio;
  std::uint32_t request_bytes = 1u << 20;  // skcipher bytes per engine request (a multiple of the block)
  qce::QceRules rules;                     // from a platform profile (era 0: none)
  bool forbid_weak_keys = false;           // CRYPTO_TFM_REQ_FORBID_WEAK_KEYS on the tfm
  cpu::SoftCryptoConfig soft;
};

// The name's algorithm into s (name, aead, alg/mode or aead_alg); false when the driver has none.
bool parse_cipher_name(const std::string& name, CipherSetup& s);
// The names, for messages.
std::string cipher_names();

// Everything the job would refuse, checked without simulating: "" or "<what>: expected ...,
// found ..." (the option it concerns first: --alg, --key, --auth-key, --iv, --tag-bytes,
// --assoc, or the input's length). `on_engine`: the rules of the engine path apply too.
std::string check_cipher_job(const CipherSetup& s, std::size_t input_bytes, bool on_engine);

// An AEAD decryption whose tag does not match: nothing is to be written.
class BadTag : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An AEAD request over `in` (decrypting: ending with the tag): the ciphertext and tag, or the
// plaintext; BadTag when the tag does not match.
std::vector<std::uint8_t> aead_on_engine(const CipherSetup& s, const std::vector<std::uint8_t>& in);
std::vector<std::uint8_t> aead_on_cpu(const CipherSetup& s, const std::vector<std::uint8_t>& in);

// An skcipher over `total` bytes that `read` supplies (up to n bytes into a buffer; fewer only at
// the end) and `write` takes, 1 MiB at a time through one reused DMA buffer (or one CPU stream):
// files of any size in constant memory. check_cipher_job(s, total, ...) must have passed.
using ChunkReader = std::function<std::size_t(std::uint8_t*, std::size_t)>;
using ChunkWriter = std::function<void(const std::uint8_t*, std::size_t)>;
// Returns the IV the requests leave in req->iv (ivsize bytes; none for ECB), as a caller chaining
// the next request reads it: CBC the last ciphertext block, CTR the next counter (the kernel's
// software CTR counts a partial last block; the engine's is its CNTR_IV after the operation), XTS
// on the CPU the IV unchanged (the kernel's xts leaves req->iv), on the engine what the driver
// copies back from the result dump.
std::vector<std::uint8_t> skcipher_stream(const CipherSetup& s, bool on_cpu, std::uint64_t total,
                                          const ChunkReader& read, const ChunkWriter& write);

}  // namespace qcesim::studies
