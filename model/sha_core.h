// SHA-1 / SHA-256 compression with explicit state, shared by the QCE hash core and the
// CPU (ARMv8 CE) functional path. The state is visible so an engine can import it from
// AUTH_IVn/AUTH_BYTECNTn and export it in its result dump, which whole-message APIs such
// as OpenSSL's EVP cannot do. Compression runs on OpenSSL's block functions, which use the
// host's SHA instructions where the CPU has them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace qcesim {

enum class HashAlg { sha1, sha256 };

constexpr std::size_t kShaBlockBytes = 64;

std::size_t digest_bytes(HashAlg alg);   // 20 or 32
std::size_t state_words(HashAlg alg);    // 5 or 8
const char* hash_alg_name(HashAlg alg);  // "sha1" / "sha256"

// Chaining state as 32-bit words (H0..H7; SHA-1 uses H0..H4) and the bytes hashed so far.
struct ShaState {
  HashAlg alg = HashAlg::sha256;
  std::array<std::uint32_t, 8> h{};
  std::uint64_t byte_count = 0;
  bool operator==(const ShaState& o) const { return alg == o.alg && h == o.h && byte_count == o.byte_count; }
  bool operator!=(const ShaState& o) const { return !(*this == o); }
};

ShaState sha_initial_state(HashAlg alg);

// Runs the compression function over nblocks whole 64-byte blocks and adds them to byte_count.
void sha_compress(ShaState& st, const std::uint8_t* data, std::size_t nblocks);

// Pads the tail (fewer than 64 bytes, not yet in byte_count) and returns the final state,
// whose words are the digest's.
ShaState sha_pad(ShaState st, const std::uint8_t* tail, std::size_t tail_len);
// sha_pad's final state as digest bytes.
std::vector<std::uint8_t> sha_finish(ShaState st, const std::uint8_t* tail, std::size_t tail_len);

// Digest bytes of a state (big-endian words), without padding.
std::vector<std::uint8_t> sha_state_bytes(const ShaState& st);

// A streaming hasher built on the above: keeps a partial block between updates.
class ShaStream {
 public:
  explicit ShaStream(HashAlg alg) : m_state(sha_initial_state(alg)) {}
  explicit ShaStream(const ShaState& st) : m_state(st) {}
  void update(const std::uint8_t* data, std::size_t len);
  void update(const std::vector<std::uint8_t>& v) { update(v.data(), v.size()); }
  std::vector<std::uint8_t> finish() const;
  // Bytes accepted so far, including the partial block.
  std::uint64_t total_bytes() const { return m_state.byte_count + m_buf_len; }
  const ShaState& state() const { return m_state; }
  std::size_t partial_len() const { return m_buf_len; }
  // The engine's live state is its AUTH_IV registers: a write while it runs replaces a word.
  void set_state_word(std::size_t i, std::uint32_t v) { m_state.h[i] = v; }
  // Whole blocks compressed elsewhere (model/hash_ahead.h) land here; only with no partial block.
  void set_state(const ShaState& st) { m_state = st; }

 private:
  ShaState m_state;
  std::array<std::uint8_t, kShaBlockBytes> m_buf{};
  std::size_t m_buf_len = 0;
};

// One-shot helpers on the CPU.
std::vector<std::uint8_t> sha_digest(HashAlg alg, const std::uint8_t* data, std::size_t len);
std::vector<std::uint8_t> hmac_digest(HashAlg alg, const std::vector<std::uint8_t>& key, const std::uint8_t* data,
                                      std::size_t len);

// HMAC's K0: the key hashed if longer than a block, then zero-padded to 64 bytes.
std::array<std::uint8_t, kShaBlockBytes> hmac_block_key(HashAlg alg, const std::vector<std::uint8_t>& key);

}  // namespace qcesim
