#include "cpu/ce_sha.h"

namespace qcesim::cpu {

CeSha::CeSha(HashAlg alg, std::optional<std::vector<std::uint8_t>> hmac_key) : m_alg(alg), m_inner(alg) {
  if (hmac_key) {
    m_k0 = hmac_block_key(alg, *hmac_key);
    std::array<std::uint8_t, kShaBlockBytes> ipad;
    for (std::size_t i = 0; i < kShaBlockBytes; ++i) ipad[i] = static_cast<std::uint8_t>((*m_k0)[i] ^ 0x36);
    m_inner.update(ipad.data(), ipad.size());
  }
}

void CeSha::update(const std::uint8_t* data, std::size_t len) { m_inner.update(data, len); }

std::vector<std::uint8_t> CeSha::final() {
  std::vector<std::uint8_t> d = m_inner.finish();
  if (!m_k0) return d;
  std::array<std::uint8_t, kShaBlockBytes> opad;
  for (std::size_t i = 0; i < kShaBlockBytes; ++i) opad[i] = static_cast<std::uint8_t>((*m_k0)[i] ^ 0x5c);
  ShaStream outer(m_alg);
  outer.update(opad.data(), opad.size());
  outer.update(d);
  return outer.finish();
}

}  // namespace qcesim::cpu
