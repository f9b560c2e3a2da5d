// Helpers for tests that run driver code on the emulated platform.
#pragma once

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "soc/soc.h"
#include "drivers/crypto/qce/sha.h"

namespace qcesim::test {

// Elaborates the platform (once per process) with the given register I/O mode and runs job.
void with_emulator(qce::RegIo io, const std::function<void(soc::Emulator&)>& job);
// The same with a kernel era's fallback rules in the driver.
void with_emulator(qce::RegIo io, const qce::QceRules& rules, const std::function<void(soc::Emulator&)>& job);

// Copies bytes into a fresh DMA buffer.
cpu::DmaBuf load(cpu::Host& host, const std::vector<std::uint8_t>& data);

// One-shot digest (qce_ahash_digest: one request with FIRST|LAST) through the engine.
std::vector<std::uint8_t> qce_digest(soc::Emulator& e, HashAlg alg, const std::vector<std::uint8_t>& msg,
                                     const std::optional<std::vector<std::uint8_t>>& key = std::nullopt);

// init/update.../final through the engine, the message cut at the given update sizes
// (the rest, if any, in one last update).
std::vector<std::uint8_t> qce_hash_chunked(soc::Emulator& e, HashAlg alg, const std::vector<std::uint8_t>& msg,
                                           const std::vector<std::size_t>& cuts,
                                           const std::optional<std::vector<std::uint8_t>>& key = std::nullopt,
                                           std::uint64_t* requests = nullptr);

// OpenSSL's answers (EVP and HMAC), independent of the project's hash code.
std::vector<std::uint8_t> openssl_digest(HashAlg alg, const std::vector<std::uint8_t>& msg);
std::vector<std::uint8_t> openssl_hmac(HashAlg alg, const std::vector<std::uint8_t>& key,
                                       const std::vector<std::uint8_t>& msg);

// OpenSSL's EVP cipher (what `openssl enc -nopad` runs) over `in`, no padding; an empty iv for ECB.
std::vector<std::uint8_t> openssl_cipher(const EVP_CIPHER* c, bool encrypt, const std::vector<std::uint8_t>& key,
                                         const std::vector<std::uint8_t>& iv, const std::vector<std::uint8_t>& in);

// OpenSSL's AES-CCM encryption (SP 800-38C): ciphertext then a tag of tag_bytes.
std::vector<std::uint8_t> openssl_ccm_encrypt(const std::vector<std::uint8_t>& key,
                                              const std::vector<std::uint8_t>& nonce,
                                              const std::vector<std::uint8_t>& aad, const std::vector<std::uint8_t>& pt,
                                              unsigned tag_bytes);

std::string hex(const std::vector<std::uint8_t>& v);

// n pseudo-random bytes (mt19937 from seed): test messages that are the same on every run.
std::vector<std::uint8_t> random_bytes(std::size_t n, unsigned seed);

// a, then b.
inline std::vector<std::uint8_t> cat(std::vector<std::uint8_t> a, const std::vector<std::uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// A 16-byte IV or counter block from up to 16 bytes, zero-filled after them.
inline std::array<std::uint8_t, 16> iv16(const std::vector<std::uint8_t>& v) {
  std::array<std::uint8_t, 16> a{};
  std::copy_n(v.begin(), std::min<std::size_t>(v.size(), a.size()), a.begin());
  return a;
}

}  // namespace qcesim::test
