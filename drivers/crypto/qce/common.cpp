// The qce driver's common.c: register writes, the CONFIG value, the ahash, skcipher and aead
// register set-ups and the STATUS check.
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "drivers/crypto/qce/aead.h"
#include "drivers/crypto/qce/core.h"
#include "drivers/crypto/qce/sha.h"
#include "drivers/crypto/qce/skcipher.h"
#include "model/byte_order.h"

namespace qcesim::qce {

namespace {
constexpr unsigned kBurstSize = 64;  // QCE_BAM_BURST_SIZE
// lock_inline's UNLOCK element: CONFIG back to downstream qce50's CRYPTO_CONFIG_RESET (qce50.c):
// the engine's four interrupts masked (MASK_ERR/OP_DONE/DIN/DOUT_INTR), HIGH_SPEED_EN, REQ_SIZE 7.
// Not 0, which would unmask them for whatever runs next.
constexpr std::uint32_t kConfigReset = 0xE001F;

// qce_cpu_to_be32p_array: each 4 bytes as one big-endian register word.
std::vector<std::uint32_t> be_words(const std::uint8_t* b, std::size_t n) {
  std::vector<std::uint32_t> w(n / 4);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = load_be32(b + 4 * i);
  return w;
}
}  // namespace

void QceDevice::qce_write(Runner& r, std::uint32_t offset, std::uint32_t val) {
  ++m_stats.reg_writes;
  if (m_cfg.reg_io == RegIo::bam) return qce_write_dma(r, offset, val);
  if (offset == REG_GOPROC) {
    r.sync();  // the engine starts when the CPU gets here
    // A channel error taken while the CPU got here has failed the request already (and
    // cleared the engine's context): starting the engine now would leave it running an
    // operation whose data never comes, and the next request's GO would find it busy.
    if (val & GO && m_failed_seq == m_req_seq) return;
  }
  m_host.writel(r, m_base + offset, val);
}

void QceDevice::qce_write_array(Runner& r, std::uint32_t offset, const std::uint32_t* val, unsigned n) {
  for (unsigned i = 0; i < n; ++i) qce_write(r, offset + 4 * i, val[i]);
}

// qce_config_reg: burst of 64 bytes -> REQ_SIZE 7, all engine interrupts masked (completion
// comes from the BAM), the pipe set of the rx channel, and the quirk that clears bit 2.
std::uint32_t QceDevice::qce_config_reg(bool little) const {
  const std::uint32_t beats = kBurstSize / 8 - 1;
  const std::uint32_t pipe_pair = m_cfg.rx_pipe >> 1;
  std::uint32_t config = (beats << REQ_SIZE_SHIFT) | MASK_DOUT_INTR | MASK_DIN_INTR | MASK_OP_DONE_INTR |
                         MASK_ERR_INTR | (pipe_pair << PIPE_SET_SELECT_SHIFT);
  config &= ~HIGH_SPD_EN_N_SHIFT;  // as the driver does: clears bit value 4 (MASK_DIN_INTR)
  if (little) config |= LITTLE_ENDIAN_MODE;
  return config;
}

// qce_setup_regs_ahash: 21 writes for a one-shot SHA-256 digest (19 for a continuation,
// +16 AUTH_KEY words for HMAC), ending with GO (qce_crypto_go).
void QceDevice::qce_setup_regs_ahash(Runner& r, const ShaRequest& req) {
  qce_write(r, REG_STATUS, 0);
  qce_write(r, REG_CONFIG, qce_config_reg(false));
  qce_write_array(r, REG_AUTH_IV0, req.carry.iv.data(), 8);
  if (req.first) {
    const std::uint32_t zero[4] = {0, 0, 0, 0};
    qce_write_array(r, REG_AUTH_BYTECNT0, zero, 4);
  } else {
    const std::uint32_t cnt[2] = {static_cast<std::uint32_t>(req.carry.byte_count),
                                  static_cast<std::uint32_t>(req.carry.byte_count >> 32)};
    qce_write_array(r, REG_AUTH_BYTECNT0, cnt, 2);
  }
  if (req.hmac) {
    const auto key = be_words(req.k0.data(), req.k0.size());
    qce_write_array(r, REG_AUTH_KEY0, key.data(), AUTH_KEY_WORDS);
  }
  std::uint32_t auth_cfg = (AUTH_ALG_SHA << AUTH_ALG_SHIFT) |
                           ((req.hmac ? AUTH_MODE_HMAC : AUTH_MODE_HASH) << AUTH_MODE_SHIFT) |
                           ((req.alg == HashAlg::sha1 ? AUTH_SIZE_SHA1 : AUTH_SIZE_SHA256) << AUTH_SIZE_SHIFT);
  if (req.last) auth_cfg |= AUTH_LAST;
  if (req.first) auth_cfg |= AUTH_FIRST;
  qce_write(r, REG_AUTH_SEG_CFG, auth_cfg);
  qce_write(r, REG_AUTH_SEG_SIZE, req.nbytes);
  qce_write(r, REG_AUTH_SEG_START, 0);
  qce_write(r, REG_ENCR_SEG_CFG, 0);
  qce_write(r, REG_SEG_SIZE, req.nbytes);
  qce_write(r, REG_CONFIG, qce_config_reg(true));
  qce_write(r, REG_GOPROC, GO | RESULTS_DUMP);
}

namespace {

// qce_encr_cfg: ALG, KEY_SZ and MODE (ENCODE is added by the caller); CCM adds LAST_CCM.
std::uint32_t qce_encr_cfg(CipherAlg alg, std::uint32_t mode, std::size_t key_bytes) {
  std::uint32_t cfg = 0;
  if (alg == CipherAlg::aes) {
    cfg = (ENCR_ALG_AES << ENCR_ALG_SHIFT) |
          ((key_bytes == 32 ? ENCR_KEY_SZ_AES256 : ENCR_KEY_SZ_AES128) << ENCR_KEY_SZ_SHIFT);
  } else {
    cfg = (ENCR_ALG_DES << ENCR_ALG_SHIFT) |
          ((alg == CipherAlg::tdes ? ENCR_KEY_SZ_3DES : ENCR_KEY_SZ_DES) << ENCR_KEY_SZ_SHIFT);
  }
  return cfg | (mode << ENCR_MODE_SHIFT) | (mode == ENCR_MODE_CCM ? LAST_CCM : 0);
}

std::uint32_t encr_mode_bits(CipherMode m) {
  return m == CipherMode::ecb   ? ENCR_MODE_ECB
         : m == CipherMode::cbc ? ENCR_MODE_CBC
         : m == CipherMode::ctr ? ENCR_MODE_CTR
                                : ENCR_MODE_XTS;
}

// qce_auth_cfg for the AEADs: HMAC-SHA-1/256, or CCM's CBC-MAC (AES, the MAC size, four nonce words).
std::uint32_t qce_auth_cfg(const AeadAlg& alg, std::size_t key_bytes, unsigned authsize) {
  if (!alg.ccm)
    return (AUTH_ALG_SHA << AUTH_ALG_SHIFT) | (AUTH_MODE_HMAC << AUTH_MODE_SHIFT) |
           ((alg.hash == HashAlg::sha1 ? AUTH_SIZE_SHA1 : AUTH_SIZE_SHA256) << AUTH_SIZE_SHIFT);
  return (AUTH_ALG_AES << AUTH_ALG_SHIFT) |
         ((key_bytes == 32 ? AUTH_KEY_SZ_AES256 : AUTH_KEY_SZ_AES128) << AUTH_KEY_SIZE_SHIFT) |
         ((authsize - 1) << AUTH_SIZE_SHIFT) | (AUTH_MODE_CCM << AUTH_MODE_SHIFT) | (4u << AUTH_NONCE_NUM_WORDS_SHIFT);
}

}  // namespace

// qce_setup_regs_skcipher: 17 writes for AES-128-CBC, 30 for AES-256-XTS
// (linux-qce-cipher.md section 3), ending with GO.
void QceDevice::qce_setup_regs_skcipher(Runner& r, const SkcipherRequest& req) {
  const bool xts = req.mode == CipherMode::xts;
  const std::size_t key_bytes = xts ? req.key.size() / 2 : req.key.size();
  qce_write(r, REG_STATUS, 0);
  qce_write(r, REG_CONFIG, qce_config_reg(false));
  qce_write(r, REG_AUTH_SEG_CFG, 0);
  if (xts) {  // qce_xtskey: the tweak key, then the data unit (cryptlen since 2021, at most 512 before)
    const auto k2 = be_words(req.key.data() + key_bytes, key_bytes);
    qce_write_array(r, REG_ENCR_XTS_KEY0, k2.data(), static_cast<unsigned>(k2.size()));
    qce_write(r, REG_ENCR_XTS_DU_SIZE, qce_xts_du_size(m_cfg.rules, req.cryptlen));
  }
  const auto k1 = be_words(req.key.data(), key_bytes);
  qce_write_array(r, REG_ENCR_KEY0, k1.data(), static_cast<unsigned>(k1.size()));
  if (req.mode != CipherMode::ecb) {
    std::array<std::uint8_t, 16> iv = req.iv;
    const std::size_t ivsize = skcipher_ivsize(req.alg, req.mode);
    if (xts) std::reverse(iv.begin(), iv.end());  // qce_xts_swapiv: the tweak as a big-endian number
    const auto w = be_words(iv.data(), ivsize);
    qce_write_array(r, REG_CNTR0_IV0, w.data(), static_cast<unsigned>(w.size()));
  }
  qce_write(r, REG_ENCR_SEG_CFG,
            qce_encr_cfg(req.alg, encr_mode_bits(req.mode), key_bytes) | (req.encrypt ? ENCODE : 0));
  qce_write(r, REG_ENCR_SEG_SIZE, req.cryptlen);
  qce_write(r, REG_ENCR_SEG_START, 0);
  if (req.mode == CipherMode::ctr)
    for (std::uint32_t m : {REG_CNTR_MASK, REG_CNTR_MASK0, REG_CNTR_MASK1, REG_CNTR_MASK2}) qce_write(r, m, ~0u);
  qce_write(r, REG_SEG_SIZE, req.cryptlen);
  qce_write(r, REG_CONFIG, qce_config_reg(true));
  qce_write(r, REG_GOPROC, GO | RESULTS_DUMP);
}

// qce_setup_regs_aead: 72 writes for CCM AES-128, 71 for authenc HMAC-SHA-256 AES-128 with a
// 32-byte key (linux-qce-cipher.md section 4.4); GO without the result dump for CCM.
void QceDevice::qce_setup_regs_aead(Runner& r, const AeadRequest& req, const AeadRegs& rctx) {
  const AeadAlg& alg = req.alg;
  qce_write(r, REG_STATUS, 0);
  qce_write(r, REG_CONFIG, qce_config_reg(false));
  const auto enckey = be_words(req.enc_key.data(), req.enc_key.size());
  qce_write_array(r, REG_ENCR_KEY0, enckey.data(), static_cast<unsigned>(enckey.size()));
  // CCM (rfc4309 too: rctx->ivsize = AES_BLOCK_SIZE once its IV is built) loads the whole counter block.
  const auto enciv = be_words(rctx.iv.data(), alg.ccm ? 16 : alg.ivsize());
  qce_write_array(r, REG_CNTR0_IV0, enciv.data(), static_cast<unsigned>(enciv.size()));
  if (alg.ccm) {  // A1 for the payload, A0 for the MAC, the full 128-bit counter
    qce_write(r, REG_CNTR3_IV3, enciv.back() + 1);
    qce_write_array(r, REG_ENCR_CCM_INT_CNTR0, enciv.data(), static_cast<unsigned>(enciv.size()));
    for (std::uint32_t m : {REG_CNTR_MASK, REG_CNTR_MASK0, REG_CNTR_MASK1, REG_CNTR_MASK2}) qce_write(r, m, ~0u);
  }
  const std::uint32_t zero[AUTH_KEY_WORDS] = {};
  qce_write_array(r, REG_AUTH_IV0, zero, AUTH_IV_WORDS);
  qce_write_array(r, REG_AUTH_KEY0, zero, AUTH_KEY_WORDS);
  qce_write_array(r, REG_AUTH_BYTECNT0, zero, AUTH_BYTECNT_WORDS);
  std::vector<std::uint8_t> auth_key = req.auth_key;
  auth_key.resize((auth_key.size() + 3) / 4 * 4, 0);
  const auto authkey = be_words(auth_key.data(), auth_key.size());
  qce_write_array(r, REG_AUTH_KEY0, authkey.data(), static_cast<unsigned>(authkey.size()));
  if (!alg.ccm) {  // HMAC starts from the hash's initial state
    const ShaState h0 = sha_initial_state(alg.hash);
    qce_write_array(r, REG_AUTH_IV0, h0.h.data(), static_cast<unsigned>(state_words(alg.hash)));
  } else {
    const auto nonce = be_words(rctx.b0.data(), rctx.b0.size());
    qce_write_array(r, REG_AUTH_INFO_NONCE0, nonce.data(), static_cast<unsigned>(nonce.size()));
  }
  const std::uint32_t mode = alg.ccm ? ENCR_MODE_CCM : ENCR_MODE_CBC;
  qce_write(r, REG_ENCR_SEG_CFG, qce_encr_cfg(alg.cipher, mode, req.enc_key.size()) | (req.encrypt ? ENCODE : 0));
  // CCM MACs the plaintext: the input encrypting, the output decrypting; authenc the ciphertext.
  const bool pos_before = alg.ccm == req.encrypt;
  qce_write(r, REG_AUTH_SEG_CFG,
            qce_auth_cfg(alg, req.enc_key.size(), req.authsize) | AUTH_LAST | AUTH_FIRST |
                ((pos_before ? AUTH_POS_BEFORE : AUTH_POS_AFTER) << AUTH_POS_SHIFT));
  const std::uint32_t totallen = rctx.cryptlen + rctx.assoclen;
  const std::uint32_t mac_in = alg.ccm && !req.encrypt ? req.authsize : 0;  // CCM decrypt: the tag goes in
  qce_write(r, REG_ENCR_SEG_SIZE, rctx.cryptlen + mac_in);
  qce_write(r, REG_ENCR_SEG_START, rctx.assoclen & 0xffff);
  qce_write(r, REG_AUTH_SEG_SIZE, totallen);
  qce_write(r, REG_AUTH_SEG_START, 0);
  qce_write(r, REG_SEG_SIZE, totallen + mac_in);
  qce_write(r, REG_CONFIG, qce_config_reg(true));
  qce_write(r, REG_GOPROC, alg.ccm ? GO : GO | RESULTS_DUMP);
}

void QceDevice::qce_start(Runner& r, const QceAsyncRequest& req, const AeadRegs* aead,
                          const std::function<void(unsigned)>& prep_sgs) {
  auto setup_regs = [&] {
    switch (req.type) {
      case AlgType::ahash:
        return qce_setup_regs_ahash(r, static_cast<const ShaRequest&>(req));
      case AlgType::skcipher:
        return qce_setup_regs_skcipher(r, static_cast<const SkcipherRequest&>(req));
      case AlgType::aead:
        return qce_setup_regs_aead(r, static_cast<const AeadRequest&>(req), *aead);
    }
  };
  qce_lock_policy(r);
  if (m_cfg.reg_io == RegIo::mmio && m_cfg.locks() && m_rx->lock_next) {
    // One lock pair around the data (NWD: UNLOCK waits for the engine's dump); the CPU writes
    // the registers once the BAM serves only this EE.
    prep_sgs(bam::DMA_PREP_FENCE);
    qce_dma_issue_pending(r);
    if (!qce_wait_lock(r)) return;  // failed while waiting: nothing of it may reach the engine
    setup_regs();
  } else if (m_cfg.reg_io == RegIo::mmio) {
    prep_sgs(0);
    qce_dma_issue_pending(r);
    setup_regs();  // writel after writel, GO last
  } else {
    m_ce_first = m_ce_count = 0;
    // lock_inline: LOCK rides on the first command descriptor, UNLOCK on a CONFIG reset after
    // the data (NWD: the engine has finished and dumped before it runs).
    const bool inline_lock = m_cfg.lock_inline && m_cfg.locks() && m_rx->lock_next;
    setup_regs();  // qce_write -> command elements
    qce_submit_cmd_desc(r, inline_lock ? bam::DMA_PREP_LOCK : 0u);
    prep_sgs(bam::DMA_PREP_FENCE);
    if (inline_lock) {
      qce_write_dma(r, REG_CONFIG, kConfigReset);
      qce_submit_cmd_desc(r, bam::DMA_PREP_UNLOCK);
    }
    qce_dma_issue_pending(r);
  }
}

QceStatus QceDevice::qce_check_status(Runner& r) {
  bool mac_failed = false;
  QceStatus st = qce_check_status(r, mac_failed);
  return st.failed() || !mac_failed ? st : qce_error(-EBADMSG, kQceBadMessage);
}

// qce_check_status: one CPU read of STATUS (or, as a what-if, the result dump's copy).
QceStatus QceDevice::qce_check_status(Runner& r, bool& mac_failed, bool dumped) {
  const auto dump_status = static_cast<std::uint32_t>(load_le(m_result_buf.ptr + DUMP_STATUS, 4));
  std::uint32_t status = dump_status;
  if (!m_cfg.status_from_dump || !dumped) {
    ++m_stats.status_reads;
    status = m_host.readl(r, m_base + REG_STATUS);
  }
  if (status & (SW_ERR | AXI_ERR | HSD_ERR) || !(status & OPERATION_DONE))
    return qce_error(-ENXIO,
                     fmt::format("engine reported STATUS=0x{:08x} (dump status 0x{:08x})", status, dump_status));
  mac_failed = (status & MAC_FAILED) != 0;
  return qce_ok();
}

}  // namespace qcesim::qce
