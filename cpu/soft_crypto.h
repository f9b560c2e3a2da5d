// The software implementations the kernel would pick on this CPU for a cipher or AEAD (the CPU
// path, and the qce driver's fallback), as CPU work charged to the calling context: arm64's
// Crypto Extensions drivers (aes-ce-blk's ECB/CBC/CTR/XTS, aes-ce-ccm, and authenc over
// cbc-aes-ce and hmac(sha256-ce)/hmac(sha1-ce)), timed from the CE core model (ce_core.h); DES
// and 3DES have no CE instructions and run the generic C code, timed by cycles per byte from
// the profile. The arithmetic is model/block_cipher and model/aead_cipher's; this charges time.
#pragma once

#include <cstdint>
#include <string>

#include "cpu/core.h"
#include "cpu/costs.h"
#include "model/block_cipher.h"
#include "model/profile.h"
#include "model/sha_core.h"

namespace qcesim::cpu {

struct SoftCryptoConfig {
  std::string core = "cortex-x4";  // ce.core
  double hz = 3.3e9;               // cpu.freq
  double des_cycles_per_byte = 25; // cpu.des_cycles_per_byte
  double tdes_cycles_per_byte = 70;
};

// ce.core, cpu.freq, cpu.des_cycles_per_byte, cpu.3des_cycles_per_byte.
SoftCryptoConfig soft_crypto_config(const model::Profile& p);

class SoftCrypto {
 public:
  explicit SoftCrypto(const SoftCryptoConfig& cfg = {});

  // An skcipher request of `bytes` (key_bytes: one AES key's, XTS's half).
  void skcipher(Runner& r, const Costs& costs, CipherAlg alg, CipherMode mode, std::size_t key_bytes, bool encrypt,
                std::uint64_t bytes) const;
  // An AEAD request: ccm(aes), or authenc(hmac(hash),cbc(alg)) as the authenc template runs it.
  void aead(Runner& r, const Costs& costs, bool ccm, CipherAlg alg, HashAlg hash, std::size_t key_bytes, bool encrypt,
            std::uint64_t assoc, std::uint64_t text) const;

  // Cycles per 16-byte block of an AES loop, for reports and tests.
  double aes_cycles_per_block(std::size_t key_bytes, int loop) const;

 private:
  // CPU-bound: stretches with the governor's clock.
  Charge cycles(const char* fn, double n) const { return cycles_charge(fn, n, m_cfg.hz); }

  SoftCryptoConfig m_cfg;
  double m_aes[3][5] = {};  // [AES-128, -192, -256][AesLoop]
  double m_sha_block[2] = {};  // SHA-1 (taken as SHA-256's), SHA-256 cycles per 64-byte block
};

}  // namespace qcesim::cpu
