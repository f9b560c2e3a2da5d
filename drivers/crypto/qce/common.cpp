// The qce driver's common.c: register writes, the CONFIG value, the ahash register set-up and
// the STATUS check. The skcipher and aead set-ups (qce_setup_regs_skcipher/aead) go here too.
#include <spdlog/fmt/fmt.h>

#include <cstring>

#include "drivers/crypto/qce/core.h"
#include "drivers/crypto/qce/sha.h"

namespace qcesim::qce {

namespace {
constexpr unsigned kBurstSize = 64;  // QCE_BAM_BURST_SIZE
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
    std::uint32_t key[AUTH_KEY_WORDS];
    for (unsigned i = 0; i < AUTH_KEY_WORDS; ++i)
      key[i] = (std::uint32_t{req.k0[4 * i]} << 24) | (std::uint32_t{req.k0[4 * i + 1]} << 16) |
               (std::uint32_t{req.k0[4 * i + 2]} << 8) | req.k0[4 * i + 3];
    qce_write_array(r, REG_AUTH_KEY0, key, AUTH_KEY_WORDS);
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
  if (m_cfg.reg_io == RegIo::bam) qce_submit_cmd_desc(r);
}

// qce_check_status: one CPU read of STATUS (or, as a what-if, the result dump's copy).
std::string QceDevice::qce_check_status(Runner& r) {
  std::uint32_t dump_status;
  std::memcpy(&dump_status, m_result_buf.ptr + DUMP_STATUS, 4);
  std::uint32_t status = dump_status;
  if (!m_cfg.status_from_dump) {
    ++m_stats.status_reads;
    status = m_host.readl(r, m_base + REG_STATUS);
  }
  if (status & (SW_ERR | AXI_ERR | HSD_ERR) || !(status & OPERATION_DONE))
    return fmt::format("engine reported STATUS=0x{:08x} (dump status 0x{:08x})", status, dump_status);
  return "";
}

}  // namespace qcesim::qce
