#include "model/sha_core.h"

// The low-level SHA*_Update entry points are deprecated in OpenSSL 3 but still shipped;
// they are the only public way to run the (SHA-NI / ARMv8-CE accelerated) block function
// on a caller-owned chaining state. The warning is silenced where they are called, not with
// OPENSSL_SUPPRESS_DEPRECATED: that works only before the first OpenSSL header, which in a
// unity build (or clang-tidy's units) another file may already have included.
#include <openssl/sha.h>

#include <cstring>
#include <stdexcept>

namespace qcesim {

std::size_t digest_bytes(HashAlg alg) { return alg == HashAlg::sha1 ? 20 : 32; }
std::size_t state_words(HashAlg alg) { return alg == HashAlg::sha1 ? 5 : 8; }
const char* hash_alg_name(HashAlg alg) { return alg == HashAlg::sha1 ? "sha1" : "sha256"; }

ShaState sha_initial_state(HashAlg alg) {
  ShaState st;
  st.alg = alg;
  if (alg == HashAlg::sha1) {
    st.h = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u, 0xc3d2e1f0u, 0, 0, 0};
  } else {
    st.h = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au, 0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
  }
  return st;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
void sha_compress(ShaState& st, const std::uint8_t* data, std::size_t nblocks) {
  if (nblocks == 0) return;
  const std::size_t len = nblocks * kShaBlockBytes;
  // With an empty partial buffer and a whole number of blocks, SHA*_Update hands all
  // blocks to the block function at once and leaves nothing buffered.
  if (st.alg == HashAlg::sha256) {
    SHA256_CTX c;
    std::memset(&c, 0, sizeof c);
    for (int i = 0; i < 8; ++i) c.h[i] = st.h[static_cast<std::size_t>(i)];
    c.md_len = SHA256_DIGEST_LENGTH;
    SHA256_Update(&c, data, len);
    for (int i = 0; i < 8; ++i) st.h[static_cast<std::size_t>(i)] = c.h[i];
  } else {
    SHA_CTX c;
    std::memset(&c, 0, sizeof c);
    c.h0 = st.h[0];
    c.h1 = st.h[1];
    c.h2 = st.h[2];
    c.h3 = st.h[3];
    c.h4 = st.h[4];
    SHA1_Update(&c, data, len);
    st.h[0] = c.h0;
    st.h[1] = c.h1;
    st.h[2] = c.h2;
    st.h[3] = c.h3;
    st.h[4] = c.h4;
  }
  st.byte_count += len;
}
#pragma GCC diagnostic pop

std::vector<std::uint8_t> sha_state_bytes(const ShaState& st) {
  std::vector<std::uint8_t> out(digest_bytes(st.alg));
  for (std::size_t i = 0; i < state_words(st.alg); ++i) {
    out[4 * i + 0] = static_cast<std::uint8_t>(st.h[i] >> 24);
    out[4 * i + 1] = static_cast<std::uint8_t>(st.h[i] >> 16);
    out[4 * i + 2] = static_cast<std::uint8_t>(st.h[i] >> 8);
    out[4 * i + 3] = static_cast<std::uint8_t>(st.h[i]);
  }
  return out;
}

std::vector<std::uint8_t> sha_finish(ShaState st, const std::uint8_t* tail, std::size_t tail_len) {
  return sha_state_bytes(sha_pad(st, tail, tail_len));
}

ShaState sha_pad(ShaState st, const std::uint8_t* tail, std::size_t tail_len) {
  if (tail_len >= kShaBlockBytes) throw std::invalid_argument("sha_pad: tail must be shorter than a block");
  const std::uint64_t total_bits = (st.byte_count + tail_len) * 8u;
  std::array<std::uint8_t, 2 * kShaBlockBytes> pad{};
  if (tail_len) std::memcpy(pad.data(), tail, tail_len);
  pad[tail_len] = 0x80;
  const std::size_t blocks = tail_len + 1 + 8 <= kShaBlockBytes ? 1 : 2;
  const std::size_t end = blocks * kShaBlockBytes;
  for (std::size_t i = 0; i < 8; ++i) pad[end - 1 - i] = static_cast<std::uint8_t>(total_bits >> (8 * i));
  sha_compress(st, pad.data(), blocks);
  return st;
}

void ShaStream::update(const std::uint8_t* data, std::size_t len) {
  if (m_buf_len) {
    const std::size_t take = std::min(len, kShaBlockBytes - m_buf_len);
    std::memcpy(m_buf.data() + m_buf_len, data, take);
    m_buf_len += take;
    data += take;
    len -= take;
    if (m_buf_len < kShaBlockBytes) return;
    sha_compress(m_state, m_buf.data(), 1);
    m_buf_len = 0;
  }
  const std::size_t blocks = len / kShaBlockBytes;
  sha_compress(m_state, data, blocks);
  data += blocks * kShaBlockBytes;
  len -= blocks * kShaBlockBytes;
  if (len) {
    std::memcpy(m_buf.data(), data, len);
    m_buf_len = len;
  }
}

std::vector<std::uint8_t> ShaStream::finish() const { return sha_finish(m_state, m_buf.data(), m_buf_len); }

std::vector<std::uint8_t> sha_digest(HashAlg alg, const std::uint8_t* data, std::size_t len) {
  ShaStream s(alg);
  s.update(data, len);
  return s.finish();
}

std::array<std::uint8_t, kShaBlockBytes> hmac_block_key(HashAlg alg, const std::vector<std::uint8_t>& key) {
  std::array<std::uint8_t, kShaBlockBytes> k0{};
  if (key.size() > kShaBlockBytes) {
    const auto d = sha_digest(alg, key.data(), key.size());
    std::memcpy(k0.data(), d.data(), d.size());
  } else if (!key.empty()) {
    std::memcpy(k0.data(), key.data(), key.size());
  }
  return k0;
}

std::vector<std::uint8_t> hmac_digest(HashAlg alg, const std::vector<std::uint8_t>& key, const std::uint8_t* data,
                                      std::size_t len) {
  const auto k0 = hmac_block_key(alg, key);
  std::array<std::uint8_t, kShaBlockBytes> ipad{}, opad{};
  for (std::size_t i = 0; i < kShaBlockBytes; ++i) {
    ipad[i] = static_cast<std::uint8_t>(k0[i] ^ 0x36);
    opad[i] = static_cast<std::uint8_t>(k0[i] ^ 0x5c);
  }
  ShaStream inner(alg);
  inner.update(ipad.data(), ipad.size());
  inner.update(data, len);
  const auto ih = inner.finish();
  ShaStream outer(alg);
  outer.update(opad.data(), opad.size());
  outer.update(ih);
  return outer.finish();
}

}  // namespace qcesim
