// The software implementations the kernel would pick on this CPU for a hash, cipher or AEAD (the
// CPU path, and the qce driver's fallback), as CPU work charged to the calling context. Two sets
// (cpu.crypto):
//  - ce: arm64's Crypto Extensions drivers (aes-ce-blk's ECB/CBC/CTR/XTS, aes-ce-ccm, authenc
//    over cbc-aes-ce and hmac(sha256-ce)/hmac(sha1-ce), the SHA-256 library's CE loop), timed from
//    the CE core model (ce_core.h);
//  - neon: a 32-bit ARMv7 core without crypto instructions (arch/arm/crypto): aes-neonbs's
//    bit-sliced ECB, CBC decryption, CTR and XTS, eight blocks per pass (a request of fewer pays
//    a whole pass); CBC encryption and CCM's CBC-MAC, serial, through the scalar aes-arm cipher,
//    and every mode for a synchronous tfm (the 2020 qce driver's fallback); sha256-neon and
//    sha1-neon; each timed by published cycles per byte in the profile (neon.*).
// DES and 3DES have no NEON or CE code and run the generic C code (cpu.des_cycles_per_byte).
// The arithmetic is model/block_cipher and model/aead_cipher's; this charges time.
#pragma once

#include <cstdint>
#include <string>

#include "cpu/core.h"
#include "cpu/costs.h"
#include "model/block_cipher.h"
#include "model/profile.h"
#include "model/sha_core.h"

namespace qcesim::cpu {

enum class CpuCrypto { ce, neon };
CpuCrypto parse_cpu_crypto(const std::string& name);  // std::invalid_argument listing the choices

// The NEON set's speeds, in the core's own cycles per byte (a CPU-bound loop: it follows the clock).
struct NeonCycles {
  double bs[2][2] = {{36.3, 43.0}, {49.3, 58.9}};  // aes-neonbs [AES-128, AES-256][encrypt, decrypt]
  double aes_arm[2] = {28, 38};                    // scalar aes-arm, one block at a time [AES-128, AES-256]
  double sha256 = 17, sha1 = 11;                   // sha256-neon, sha1-neon
};

struct SoftCryptoConfig {
  CpuCrypto crypto = CpuCrypto::ce;  // cpu.crypto
  std::string core = "cortex-x4";    // the task CPU's core type (its CE table: the ce set only)
  // The ce set: the crypto instructions' latencies on that core (ce.sha256_latency for SHA256H/H2,
  // ce.aes_latency for AESE/AESMC; 0 keeps the table's), fractional values interpolated between
  // the schedules of the whole cycles either side; and the rate the core streams a message from
  // its caches or DRAM (ce.stream_bandwidth in MB/s, kept in GB/s; 0: unbounded): a CE loop takes the longer of
  // its instructions' schedule and the message's bytes at that rate.
  double sha256_latency = 0, aes_latency = 0, stream_gbps = 0;
  NeonCycles neon;                  // neon.* (the neon set only)
  double hz = 3.3e9;                // the task CPU's maximum clock
  double des_cycles_per_byte = 25;  // cpu.des_cycles_per_byte
  double tdes_cycles_per_byte = 70;
};

// cpu.crypto, the task CPU's core type and clock (cpu.task_cpu, cpu.cpus), cpu.des_cycles_per_byte,
// cpu.3des_cycles_per_byte, and neon.* (neon).
SoftCryptoConfig soft_crypto_config(const model::Profile& p);

class SoftCrypto {
 public:
  explicit SoftCrypto(const SoftCryptoConfig& cfg = {});

  // An skcipher request of `bytes` (key_bytes: one AES key's, XTS's half). `sync_only`: the
  // caller allocated its tfm synchronous (the qce driver's fallback before v5.9), which on 32-bit
  // ARM rules out aes-neonbs (registered only behind asynchronous SIMD wrappers until v6.16): the
  // ecb, cbc, ctr and xts templates over the scalar aes-arm cipher run instead (4.19; v5.4 to
  // v5.8 would take ctr-aes-neonbs-sync for CTR).
  void skcipher(Runner& r, const Costs& costs, CipherAlg alg, CipherMode mode, std::size_t key_bytes, bool encrypt,
                std::uint64_t bytes, bool sync_only = false) const;
  // An AEAD request: ccm(aes), or authenc(hmac(hash),cbc(alg)) as the authenc template runs it.
  void aead(Runner& r, const Costs& costs, bool ccm, CipherAlg alg, HashAlg hash, std::size_t key_bytes, bool encrypt,
            std::uint64_t assoc, std::uint64_t text) const;

  // `blocks` 64-byte blocks of each of `n` messages through the SHA library (the CPU path of a
  // hash; with the ce set and n = 2, interleaved as sha256_ce_finup2x).
  void hash(Runner& r, const Costs& costs, HashAlg alg, std::uint64_t blocks, unsigned n) const;

 private:
  // The neon set's skcipher: which implementation runs and what it costs.
  void neon_skcipher(Runner& r, const Costs& costs, CipherMode mode, std::size_t key_bytes, bool encrypt,
                     std::uint64_t bytes, bool sync_only) const;
  double neon_bs(std::size_t key_bytes, bool encrypt) const;
  // The skcipher API and its walk over `bytes`.
  void walk(Runner& r, const Costs& costs, std::uint64_t bytes) const;
  double neon_aes_arm(std::size_t key_bytes) const;

  // CPU-bound: stretches with the governor's clock.
  Charge cycles(const char* fn, double n) const { return cycles_charge(fn, n, m_cfg.hz); }

  SoftCryptoConfig m_cfg;
  double m_aes[3][5] = {};     // [AES-128, -192, -256][AesLoop], the ce set's loops
  double m_sha_block[2] = {};  // SHA-1, SHA-256 cycles per 64-byte block (ce: SHA-256's loop stands in for SHA-1)
  double m_sha_block2 = 0;     // SHA-256 CE per block and message, two messages interleaved
};

}  // namespace qcesim::cpu
