#include "qce/qce_driver.h"

#include <spdlog/fmt/fmt.h>

#include <cstring>

namespace qcesim::qce {

namespace {
constexpr unsigned kMaxCmdElements = 128;  // QCE_MAX_REG_WRITES-style capacity of the series
constexpr unsigned kBurstSize = 64;        // QCE_BAM_BURST_SIZE
}  // namespace

const char* reg_io_name(RegIo r) { return r == RegIo::mmio ? "mmio" : "bam"; }

QceDevice::QceDevice(cpu::Host& host, bam::BamDma& bam, std::uint64_t base_phys, const QceDriverConfig& cfg)
    : m_host(host), m_bam(bam), m_base(base_phys), m_cfg(cfg) {}

QceDevice::~QceDevice() = default;

void QceDevice::probe() {
  m_version = m_host.readl(m_base + REG_VERSION);
  const unsigned major = m_version >> 24, minor = (m_version >> 16) & 0xFF;
  if (major < 5 || (major == 5 && minor == 0))
    throw QceError(fmt::format("unsupported QCE version {}.{}.{}", major, minor, m_version & 0xFFFF));
  m_rx = &m_bam.chan(m_cfg.rx_pipe);
  m_tx = &m_bam.chan(m_cfg.tx_pipe);
  bam::BamSlaveConfig rx{bam::DmaDir::mem_to_dev, std::nullopt};
  if (m_cfg.reg_io == RegIo::bam) rx.scratchpad = m_base + REG_VERSION;  // the series' dummy-write target
  m_bam.slave_config(*m_rx, rx);
  m_bam.slave_config(*m_tx, {bam::DmaDir::dev_to_mem, std::nullopt});
  m_result_buf = m_host.dma_alloc(QCE_RESULT_BUF_SZ, 64);
  m_ce_buf = m_host.dma_alloc(kMaxCmdElements * sizeof(bam::BamCmdElement), 64);
}

void QceDevice::qce_write(std::uint32_t offset, std::uint32_t val) {
  ++m_stats.reg_writes;
  if (m_cfg.reg_io == RegIo::mmio) {
    m_host.writel(m_base + offset, val);
    return;
  }
  if (m_ce_count == kMaxCmdElements) throw QceError("command element list full");
  const bam::BamCmdElement ce =
      bam::bam_prep_ce(static_cast<std::uint32_t>(m_base + offset), bam::BAM_WRITE_COMMAND, val);
  std::memcpy(m_ce_buf.ptr + m_ce_count * sizeof ce, &ce, sizeof ce);
  ++m_ce_count;
  ++m_stats.command_elements;
}

void QceDevice::qce_write_array(std::uint32_t offset, const std::uint32_t* val, unsigned n) {
  for (unsigned i = 0; i < n; ++i) qce_write(offset + 4 * i, val[i]);
}

std::uint32_t QceDevice::qce_read(std::uint32_t offset) {
  ++m_stats.status_reads;
  return m_host.readl(m_base + offset);  // reads stay CPU MMIO in both modes
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
// +16 AUTH_KEY words for HMAC).
void QceDevice::qce_setup_regs_ahash(const ShaRequest& req) {
  qce_write(REG_STATUS, 0);
  qce_write(REG_CONFIG, qce_config_reg(false));
  qce_write_array(REG_AUTH_IV0, req.carry.iv.data(), 8);
  if (req.first) {
    const std::uint32_t zero[4] = {0, 0, 0, 0};
    qce_write_array(REG_AUTH_BYTECNT0, zero, 4);
  } else {
    const std::uint32_t cnt[2] = {static_cast<std::uint32_t>(req.carry.byte_count),
                                  static_cast<std::uint32_t>(req.carry.byte_count >> 32)};
    qce_write_array(REG_AUTH_BYTECNT0, cnt, 2);
  }
  if (req.hmac) {
    std::uint32_t key[AUTH_KEY_WORDS];
    for (unsigned i = 0; i < AUTH_KEY_WORDS; ++i)
      key[i] = (std::uint32_t{req.k0[4 * i]} << 24) | (std::uint32_t{req.k0[4 * i + 1]} << 16) |
               (std::uint32_t{req.k0[4 * i + 2]} << 8) | req.k0[4 * i + 3];
    qce_write_array(REG_AUTH_KEY0, key, AUTH_KEY_WORDS);
  }
  std::uint32_t auth_cfg = (AUTH_ALG_SHA << AUTH_ALG_SHIFT) |
                           ((req.hmac ? AUTH_MODE_HMAC : AUTH_MODE_HASH) << AUTH_MODE_SHIFT) |
                           ((req.alg == HashAlg::sha1 ? AUTH_SIZE_SHA1 : AUTH_SIZE_SHA256) << AUTH_SIZE_SHIFT);
  if (req.last) auth_cfg |= AUTH_LAST;
  if (req.first) auth_cfg |= AUTH_FIRST;
  qce_write(REG_AUTH_SEG_CFG, auth_cfg);
  qce_write(REG_AUTH_SEG_SIZE, req.nbytes);
  qce_write(REG_AUTH_SEG_START, 0);
  qce_write(REG_ENCR_SEG_CFG, 0);
  qce_write(REG_SEG_SIZE, req.nbytes);
  qce_write(REG_CONFIG, qce_config_reg(true));
  qce_crypto_go();
}

void QceDevice::qce_crypto_go() {
  qce_write(REG_GOPROC, GO | RESULTS_DUMP);
  if (m_cfg.reg_io == RegIo::bam) qce_submit_cmd_desc();
}

// qce_submit_cmd_desc: one scatterlist entry per command element, one CMD transfer on rx.
void QceDevice::qce_submit_cmd_desc() {
  std::vector<bam::ScatterEntry> sg;
  sg.reserve(m_ce_count);
  for (unsigned i = 0; i < m_ce_count; ++i)
    sg.push_back({m_ce_buf.addr + i * sizeof(bam::BamCmdElement), sizeof(bam::BamCmdElement)});
  m_bam.submit(*m_rx, m_bam.prep_slave_sg(*m_rx, sg, bam::DMA_PREP_CMD));
  m_ce_count = 0;
}

// The CPU waits for the BAM interrupt and runs the hardirq, then the bottom half.
void QceDevice::wait_for(const bool& done, const char* what) {
  while (!done) {
    if (!m_host.wait_irq(m_cfg.timeout))
      throw QceError(fmt::format("timed out after {} waiting for {}", m_cfg.timeout.to_string(), what));
    m_bam.irq();
    m_bam.run_bh();
    if (m_rx->error) throw QceError(*m_rx->error);
  }
}

void QceDevice::run_sha(ShaRequest& req) {
  ++m_stats.requests;
  std::uint32_t sg_total = 0;
  for (const auto& e : req.src) sg_total += e.len;
  if (sg_total != req.nbytes) throw QceError("scatterlist length does not match nbytes");
  if (!req.last && req.nbytes % kShaBlockBytes != 0) throw QceError("non-final hash chunk not a multiple of 64");

  bool done = false;
  bam::DmaResult tx_result;
  const std::vector<bam::ScatterEntry> result_sg{{m_result_buf.addr, QCE_RESULT_BUF_SZ}};
  auto tx_cb = [&](const bam::DmaResult& r) {
    tx_result = r;
    done = true;
  };

  // qce_ahash_async_req_handle: dma_map_sg (identity here) src and result.
  if (m_cfg.reg_io == RegIo::mmio) {
    if (req.nbytes)
      m_bam.submit(*m_rx, m_bam.prep_slave_sg(*m_rx, req.src, bam::DMA_PREP_INTERRUPT | bam::DMA_CTRL_ACK));
    m_bam.submit(*m_tx, m_bam.prep_slave_sg(*m_tx, result_sg, bam::DMA_PREP_INTERRUPT | bam::DMA_CTRL_ACK, tx_cb));
    m_bam.issue_pending(*m_rx);
    m_bam.issue_pending(*m_tx);
    qce_setup_regs_ahash(req);  // 21 writel, the last one GO
  } else {
    qce_setup_regs_ahash(req);  // builds and submits the command descriptor
    if (req.nbytes)
      m_bam.submit(*m_rx, m_bam.prep_slave_sg(*m_rx, req.src,
                                               bam::DMA_PREP_INTERRUPT | bam::DMA_CTRL_ACK | bam::DMA_PREP_FENCE));
    m_bam.submit(*m_tx, m_bam.prep_slave_sg(*m_tx, result_sg, bam::DMA_PREP_INTERRUPT | bam::DMA_CTRL_ACK, tx_cb));
    m_bam.issue_pending(*m_tx);
    m_bam.issue_pending(*m_rx);  // LOCK is prepended and UNLOCK appended here
  }

  try {
    wait_for(done, "the result dump (tx channel)");
    if (!tx_result.ok) throw QceError(tx_result.error);
    qce_ahash_done(req);
  } catch (...) {
    // Recover for the next request: drop both channels' work (resetting busy pipes) and
    // clear the engine's context, which abandons an operation still waiting for data.
    m_bam.terminate_all(*m_rx);
    m_bam.terminate_all(*m_tx);
    m_host.writel(m_base + REG_GOPROC, CLR_CNTXT);
    throw;
  }
}

// qce_ahash_done: terminate both channels, read the dump, check STATUS.
void QceDevice::qce_ahash_done(ShaRequest& req) {
  // qce_dma_terminate_all: rx may still hold descriptors (UNLOCK) if its completion was not seen.
  while (!m_rx->active.empty() && !m_rx->error) {
    if (!m_host.wait_irq(m_cfg.timeout)) break;
    m_bam.irq();
    m_bam.run_bh();
  }
  m_bam.terminate_all(*m_rx);
  m_bam.terminate_all(*m_tx);

  const std::uint8_t* dump = m_result_buf.ptr;
  std::uint32_t dump_status;
  std::memcpy(&dump_status, dump + DUMP_STATUS, 4);
  const std::uint32_t status = qce_read(REG_STATUS);
  if (status & (SW_ERR | AXI_ERR | HSD_ERR) || !(status & OPERATION_DONE))
    throw QceError(fmt::format("engine reported STATUS=0x{:08x} (dump status 0x{:08x})", status, dump_status));
  for (unsigned i = 0; i < 8; ++i) {
    const std::uint8_t* w = dump + DUMP_AUTH_IV + 4 * i;
    req.carry.iv[i] = (std::uint32_t{w[0]} << 24) | (std::uint32_t{w[1]} << 16) | (std::uint32_t{w[2]} << 8) | w[3];
  }
  std::uint32_t cnt[2];
  std::memcpy(cnt, dump + DUMP_AUTH_BYTECNT, 8);
  req.carry.byte_count = std::uint64_t{cnt[0]} | (std::uint64_t{cnt[1]} << 32);
  if (req.last) req.digest.assign(dump + DUMP_AUTH_IV, dump + DUMP_AUTH_IV + digest_bytes(req.alg));
}

}  // namespace qcesim::qce
