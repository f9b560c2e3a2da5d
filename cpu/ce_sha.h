// The CPU path: the kernel's SHA-256/SHA-1 library on the ARMv8 Crypto Extensions, as a
// functional hasher (sha256_update / sha256_final, hmac_sha256). It runs on the host's SHA
// instructions; the cycle model of the CE core comes with the timed model.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "model/sha_core.h"

namespace qcesim::cpu {

class CeSha {
 public:
  CeSha(HashAlg alg, std::optional<std::vector<std::uint8_t>> hmac_key = std::nullopt);
  void update(const std::uint8_t* data, std::size_t len);
  std::vector<std::uint8_t> final();
  std::uint64_t blocks() const { return m_inner.state().byte_count / kShaBlockBytes; }

 private:
  HashAlg m_alg;
  std::optional<std::array<std::uint8_t, kShaBlockBytes>> m_k0;
  ShaStream m_inner;
};

}  // namespace qcesim::cpu
