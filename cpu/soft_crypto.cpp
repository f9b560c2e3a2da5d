#include "cpu/soft_crypto.h"

#include <cmath>
#include <stdexcept>

#include "cpu/ce_core.h"
#include "cpu/core_type.h"

namespace qcesim::cpu {

namespace {
int key_index(std::size_t key_bytes) { return key_bytes == 32 ? 2 : key_bytes == 24 ? 1 : 0; }
// aes-neonbs runs eight blocks per pass: a request pays for whole passes.
constexpr std::uint64_t kBsBlocks = 8;
double bs_pass_bytes(std::uint64_t bytes) {
  const std::uint64_t blocks = (bytes + 15) / 16;
  return static_cast<double>((blocks + kBsBlocks - 1) / kBsBlocks * kBsBlocks * 16);
}
}  // namespace

CpuCrypto parse_cpu_crypto(const std::string& name) {
  if (name == "ce") return CpuCrypto::ce;
  if (name == "neon") return CpuCrypto::neon;
  throw std::invalid_argument("one of ce, neon");
}

SoftCryptoConfig soft_crypto_config(const model::Profile& p) {
  SoftCryptoConfig c;
  c.crypto = model::parse_named(p.param("cpu.crypto"), "the kernel's arch crypto set", parse_cpu_crypto);
  if (c.crypto == CpuCrypto::ce) {
    c.core = task_core_type(p).name;
    c.sha256_latency = p.num("ce.sha256_latency");
    c.aes_latency = p.num("ce.aes_latency");
    c.stream_gbps = p.num("ce.stream_bandwidth") / 1000;  // MB/s
  } else {
    c.neon.bs[0][0] = p.num("neon.aes128_bs_encrypt");
    c.neon.bs[0][1] = p.num("neon.aes128_bs_decrypt");
    c.neon.bs[1][0] = p.num("neon.aes256_bs_encrypt");
    c.neon.bs[1][1] = p.num("neon.aes256_bs_decrypt");
    c.neon.aes_arm[0] = p.num("neon.aes128_arm");
    c.neon.aes_arm[1] = p.num("neon.aes256_arm");
    c.neon.sha256 = p.num("neon.sha256");
    c.neon.sha1 = p.num("neon.sha1");
  }
  c.hz = task_core_type(p).freq_max * 1e9;
  c.des_cycles_per_byte = p.num("cpu.des_cycles_per_byte");
  c.tdes_cycles_per_byte = p.num("cpu.3des_cycles_per_byte");
  return c;
}

SoftCrypto::SoftCrypto(const SoftCryptoConfig& cfg) : m_cfg(cfg) {
  if (cfg.crypto == CpuCrypto::neon) {  // AES goes by neon.* per byte (neon_skcipher); SHA per block
    m_sha_block[0] = 64 * cfg.neon.sha1;
    m_sha_block[1] = m_sha_block2 = 64 * cfg.neon.sha256;
    return;
  }
  // The loops' schedules, once (every request uses them), at the profile's latencies: a
  // fractional latency interpolates the schedules of the whole cycles either side.
  const CeCoreTable& base = ce_core_table(cfg.core);
  auto at = [&](double lat, auto set, auto cycles) {
    if (lat <= 0) return cycles(base);
    const double lo = std::floor(lat), f = lat - lo;
    CeCoreTable a = base, b = base;
    set(a, static_cast<unsigned>(lo));
    set(b, static_cast<unsigned>(lo) + 1);
    return f == 0 ? cycles(a) : (1 - f) * cycles(a) + f * cycles(b);
  };
  const auto set_sha = [](CeCoreTable& t, unsigned l) { t.lat_sha256h = t.lat_sha256h2 = l; };
  const auto set_aes = [](CeCoreTable& t, unsigned l) { t.lat_aes = l; };
  const unsigned rounds[3] = {10, 12, 14};
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 5; ++l)
      m_aes[k][l] = at(cfg.aes_latency, set_aes, [&](const CeCoreTable& t) {
        return aes_ce_cycles_per_block(t, rounds[k], static_cast<AesLoop>(l));
      });
  // SHA-1 CE has no model of its own: SHA-256's loop stands in for it [I].
  m_sha_block[0] = m_sha_block[1] =
      at(cfg.sha256_latency, set_sha, [](const CeCoreTable& t) { return sha256_ce_cycles_per_block(t, 1); });
  m_sha_block2 = at(cfg.sha256_latency, set_sha, [](const CeCoreTable& t) { return sha256_ce_cycles_per_block(t, 2); });
}

// AES-192 (12 rounds) between the two measured key sizes, by rounds.
double SoftCrypto::neon_bs(std::size_t key_bytes, bool encrypt) const {
  const auto& bs = m_cfg.neon.bs;
  const int d = encrypt ? 0 : 1;
  return key_bytes == 32 ? bs[1][d] : key_bytes == 24 ? (bs[0][d] + bs[1][d]) / 2 : bs[0][d];
}

double SoftCrypto::neon_aes_arm(std::size_t key_bytes) const {
  const auto& a = m_cfg.neon.aes_arm;
  return key_bytes == 32 ? a[1] : key_bytes == 24 ? (a[0] + a[1]) / 2 : a[0];
}

void SoftCrypto::hash(Runner& r, const Costs& costs, HashAlg alg, std::uint64_t blocks, unsigned n) const {
  const bool sha1 = alg == HashAlg::sha1;
  const double total = static_cast<double>(blocks * n);
  const char* fn;
  double per_block;
  if (m_cfg.crypto == CpuCrypto::neon) {  // no multi-buffer code: n messages one after the other
    fn = sha1 ? "sha1_transform_neon" : "sha256_block_data_order_neon";
    per_block = m_sha_block[sha1 ? 0 : 1];
  } else {
    const bool x2 = n == 2 && !sha1;
    fn = sha1 ? "sha1_ce_transform" : x2 ? "sha256_ce_finup2x" : "sha256_ce_transform";
    per_block = x2 ? m_sha_block2 : m_sha_block[sha1 ? 0 : 1];
  }
  r.charge(costs(Cost::kernel_neon_begin));
  r.charge(cycles(fn, per_block * total));
  // The message streamed in: only a memory slower than the loop would show (not on these cores).
  if (m_cfg.crypto == CpuCrypto::ce && m_cfg.stream_gbps > 0 && m_cfg.hz > 0) {
    const double loop_s = per_block * total / m_cfg.hz, stream_s = 64.0 * total / (m_cfg.stream_gbps * 1e9);
    if (stream_s > loop_s) r.charge("memory_stall", sc_core::sc_time(stream_s - loop_s, sc_core::SC_SEC));
  }
  r.charge(costs(Cost::kernel_neon_end));
}

void SoftCrypto::neon_skcipher(Runner& r, const Costs& costs, CipherMode mode, std::size_t key_bytes, bool encrypt,
                               std::uint64_t bytes, bool sync_only) const {
  const double padded = static_cast<double>((bytes + 15) / 16 * 16);
  if (sync_only) {
    // The templates over aes-arm, block by block with no NEON (CTR and XTS encrypt forwards;
    // decryption taken at encryption's rate, and the templates' own per-block work uncounted [I]);
    // xts(ecb(aes-arm)) encrypts the tweak first.
    const bool forward = encrypt || mode == CipherMode::ctr;
    if (mode == CipherMode::xts) r.charge(cycles("__aes_arm_encrypt", neon_aes_arm(key_bytes) * 16));
    r.charge(cycles(forward ? "__aes_arm_encrypt" : "__aes_arm_decrypt", neon_aes_arm(key_bytes) * padded));
    return;
  }
  if (mode == CipherMode::cbc && encrypt) {
    // cbc-aes-neonbs hands CBC encryption (serial) to the cbc template over aes-arm: no NEON.
    r.charge(cycles("__aes_arm_encrypt", neon_aes_arm(key_bytes) * padded));
    return;
  }
  const char* fn = mode == CipherMode::ecb   ? (encrypt ? "aesbs_ecb_encrypt" : "aesbs_ecb_decrypt")
                   : mode == CipherMode::cbc ? "aesbs_cbc_decrypt"
                   : mode == CipherMode::ctr ? "aesbs_ctr_encrypt"
                                             : (encrypt ? "aesbs_xts_encrypt" : "aesbs_xts_decrypt");
  // CTR runs the cipher forwards whichever the direction.
  const bool forward = encrypt || mode == CipherMode::ctr;
  // __xts_crypt encrypts the IV with the second key in C first (the library's aes_encrypt, taken
  // at aes-arm's rate [I]).
  if (mode == CipherMode::xts) r.charge(cycles("aes_encrypt", neon_aes_arm(key_bytes) * 16));
  r.charge(costs(Cost::kernel_neon_begin));
  r.charge(cycles(fn, neon_bs(key_bytes, forward) * bs_pass_bytes(bytes)));
  r.charge(costs(Cost::kernel_neon_end));
}

// The skcipher walk maps src and dst a page at a time (buffers taken page-aligned [I]): the first
// page's step comes with the API entry and the glue, each further page is one more step.
void SoftCrypto::walk(Runner& r, const Costs& costs, std::uint64_t bytes) const {
  r.charge(costs(Cost::skcipher_walk));
  if (bytes > 4096) r.charge(costs.times(Cost::skcipher_walk_step, static_cast<double>((bytes - 1) / 4096)));
}

void SoftCrypto::skcipher(Runner& r, const Costs& costs, CipherAlg alg, CipherMode mode, std::size_t key_bytes,
                          bool encrypt, std::uint64_t bytes, bool sync_only) const {
  walk(r, costs, bytes);
  if (alg != CipherAlg::aes) {  // des_generic / des3_ede_generic: table-driven C, no NEON
    const double cpb = alg == CipherAlg::des ? m_cfg.des_cycles_per_byte : m_cfg.tdes_cycles_per_byte;
    r.charge(cycles(alg == CipherAlg::des ? (encrypt ? "des_encrypt" : "des_decrypt")
                                          : (encrypt ? "des3_ede_encrypt" : "des3_ede_decrypt"),
                    cpb * static_cast<double>(bytes)));
    return;
  }
  if (m_cfg.crypto == CpuCrypto::neon) return neon_skcipher(r, costs, mode, key_bytes, encrypt, bytes, sync_only);
  AesLoop loop = AesLoop::parallel;
  const char* fn = encrypt ? "ce_aes_ecb_encrypt" : "ce_aes_ecb_decrypt";
  if (mode == CipherMode::cbc) {
    loop = encrypt ? AesLoop::serial : AesLoop::parallel;
    fn = encrypt ? "ce_aes_cbc_encrypt" : "ce_aes_cbc_decrypt";
  } else if (mode == CipherMode::ctr) {
    loop = AesLoop::ctr;
    fn = "ce_aes_ctr_encrypt";
  } else if (mode == CipherMode::xts) {
    loop = AesLoop::xts;
    fn = encrypt ? "ce_aes_xts_encrypt" : "ce_aes_xts_decrypt";
  }
  // aes_xts_encrypt/decrypt's first call encrypts the IV with the second key: one serial block.
  const double blocks = static_cast<double>((bytes + 15) / 16);
  const double tweak = mode == CipherMode::xts ? m_aes[key_index(key_bytes)][static_cast<int>(AesLoop::serial)] : 0.0;
  r.charge(costs(Cost::kernel_neon_begin));
  r.charge(cycles(fn, m_aes[key_index(key_bytes)][static_cast<int>(loop)] * blocks + tweak));
  r.charge(costs(Cost::kernel_neon_end));
}

void SoftCrypto::aead(Runner& r, const Costs& costs, bool ccm, CipherAlg alg, HashAlg hash, std::size_t key_bytes,
                      bool encrypt, std::uint64_t assoc, std::uint64_t text) const {
  const int k = key_index(key_bytes);
  if (ccm && m_cfg.crypto == CpuCrypto::neon) {
    // The ccm template: the CBC-MAC (cbcmac over aes-arm, serial) over B0, the formatted
    // associated data and the payload, and ctr-aes-neonbs over the payload and the tag block.
    const double adata_blocks = assoc ? static_cast<double>((assoc + 2 + 15) / 16) : 0.0;
    const double mac_blocks = 1 + adata_blocks + static_cast<double>((text + 15) / 16);
    r.charge(cycles("__aes_arm_encrypt", neon_aes_arm(key_bytes) * 16 * mac_blocks));
    walk(r, costs, text + 16);
    neon_skcipher(r, costs, CipherMode::ctr, key_bytes, true, text + 16, false);
    return;
  }
  if (ccm) {
    // aes-ce-ccm: the associated data through the MAC alone (ce_aes_mac_update, a serial chain),
    // the payload with MAC and counter in lockstep, then the tag.
    const double adata_blocks = assoc ? static_cast<double>((assoc + 2 + 15) / 16) : 0.0;
    const double blocks = static_cast<double>((text + 15) / 16);
    walk(r, costs, text);  // skcipher_walk_aead_encrypt/decrypt over the payload
    r.charge(costs(Cost::kernel_neon_begin));
    if (assoc) r.charge(cycles("ce_aes_mac_update", m_aes[k][static_cast<int>(AesLoop::serial)] * adata_blocks));
    r.charge(cycles(encrypt ? "ce_aes_ccm_encrypt" : "ce_aes_ccm_decrypt",
                    m_aes[k][static_cast<int>(AesLoop::ccm)] * blocks + m_aes[k][static_cast<int>(AesLoop::serial)]));
    r.charge(costs(Cost::kernel_neon_end));
    return;
  }
  // crypto/authenc.c: the cipher (cbc) and the HMAC over assoc || ciphertext, one after the other.
  skcipher(r, costs, alg, CipherMode::cbc, key_bytes, encrypt, text);
  const std::uint64_t inner = 64 + assoc + text;             // K0 ^ ipad, then the message
  this->hash(r, costs, hash, (inner + 9 + 63) / 64 + 2, 1);  // + the outer hash's two blocks
}

}  // namespace qcesim::cpu
