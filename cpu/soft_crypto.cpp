#include "cpu/soft_crypto.h"

#include "cpu/ce_core.h"

namespace qcesim::cpu {

namespace {
int key_index(std::size_t key_bytes) { return key_bytes == 32 ? 2 : key_bytes == 24 ? 1 : 0; }
}  // namespace

SoftCryptoConfig soft_crypto_config(const model::Profile& p) {
  SoftCryptoConfig c;
  c.core = p.text("ce.core");
  c.hz = p.num("cpu.freq") * 1e9;
  c.des_cycles_per_byte = p.num("cpu.des_cycles_per_byte");
  c.tdes_cycles_per_byte = p.num("cpu.3des_cycles_per_byte");
  return c;
}

SoftCrypto::SoftCrypto(const SoftCryptoConfig& cfg) : m_cfg(cfg) {
  // The loops' schedules, once (every request uses them).
  const CeCoreTable& t = ce_core_table(cfg.core);
  const unsigned rounds[3] = {10, 12, 14};
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 5; ++l) m_aes[k][l] = aes_ce_cycles_per_block(t, rounds[k], static_cast<AesLoop>(l));
  // SHA-1 CE has no model of its own: SHA-256's loop stands in for it [I].
  m_sha_block[0] = m_sha_block[1] = sha256_ce_cycles_per_block(t, 1);
}

double SoftCrypto::aes_cycles_per_block(std::size_t key_bytes, int loop) const { return m_aes[key_index(key_bytes)][loop]; }

void SoftCrypto::skcipher(Runner& r, const Costs& costs, CipherAlg alg, CipherMode mode, std::size_t key_bytes, bool encrypt,
                          std::uint64_t bytes) const {
  if (alg != CipherAlg::aes) {  // des_generic / des3_ede_generic: table-driven C, no NEON
    const double cpb = alg == CipherAlg::des ? m_cfg.des_cycles_per_byte : m_cfg.tdes_cycles_per_byte;
    r.charge(cycles(alg == CipherAlg::des ? (encrypt ? "des_encrypt" : "des_decrypt") : (encrypt ? "des3_ede_encrypt" : "des3_ede_decrypt"),
                    cpb * static_cast<double>(bytes)));
    return;
  }
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
  const double blocks = static_cast<double>((bytes + 15) / 16);
  r.charge(costs(Cost::kernel_neon_begin));
  r.charge(cycles(fn, m_aes[key_index(key_bytes)][static_cast<int>(loop)] * blocks));
  r.charge(costs(Cost::kernel_neon_end));
}

void SoftCrypto::aead(Runner& r, const Costs& costs, bool ccm, CipherAlg alg, HashAlg hash, std::size_t key_bytes,
                      bool encrypt, std::uint64_t assoc, std::uint64_t text) const {
  const int k = key_index(key_bytes);
  if (ccm) {
    // aes-ce-ccm: the associated data through the MAC alone (ce_aes_mac_update, a serial chain),
    // the payload with MAC and counter in lockstep, then the tag.
    const double adata_blocks = assoc ? static_cast<double>((assoc + 2 + 15) / 16) : 0.0;
    const double blocks = static_cast<double>((text + 15) / 16);
    r.charge(costs(Cost::kernel_neon_begin));
    if (assoc) r.charge(cycles("ce_aes_mac_update", m_aes[k][static_cast<int>(AesLoop::serial)] * adata_blocks));
    r.charge(cycles(encrypt ? "ce_aes_ccm_encrypt" : "ce_aes_ccm_decrypt",
                    m_aes[k][static_cast<int>(AesLoop::ccm)] * blocks + m_aes[k][static_cast<int>(AesLoop::serial)]));
    r.charge(costs(Cost::kernel_neon_end));
    return;
  }
  // crypto/authenc.c: the cipher (cbc) and the HMAC over assoc || ciphertext, one after the other.
  skcipher(r, costs, alg, CipherMode::cbc, key_bytes, encrypt, text);
  const std::uint64_t inner = 64 + assoc + text;  // K0 ^ ipad, then the message
  const double sha_blocks = static_cast<double>((inner + 9 + 63) / 64 + 2);  // + the outer hash's two blocks
  r.charge(costs(Cost::kernel_neon_begin));
  r.charge(cycles(hash == HashAlg::sha1 ? "sha1_ce_transform" : "sha256_ce_transform",
                  m_sha_block[hash == HashAlg::sha1 ? 0 : 1] * sha_blocks));
  r.charge(costs(Cost::kernel_neon_end));
}

}  // namespace qcesim::cpu
