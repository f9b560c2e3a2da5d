#include "drivers/tz/qce_tz.h"

#include <cstring>

#include "qce/regs_v5.h"

namespace qcesim::qce {

using namespace bam;

SC_HAS_PROCESS(TzAgent);

TzAgent::TzAgent(sc_core::sc_module_name name, cpu::Host& host, bam::Bam& bam, std::uint64_t bam_base,
                 std::uint64_t qce_base, const TzConfig& cfg)
    : sc_core::sc_module(name),
      m_host(host),
      m_bam(bam),
      m_bam_base(bam_base),
      m_qce_base(qce_base),
      m_cfg(cfg),
      m_rx(2 * cfg.pipe_set),
      m_tx(2 * cfg.pipe_set + 1),
      m_rng(cfg.seed) {
  if (m_tx >= bam.config().num_pipes)
    throw std::invalid_argument("TrustZone pipe set " + std::to_string(cfg.pipe_set) + " needs pipes up to " +
                                std::to_string(m_tx) + "; the BAM has " + std::to_string(bam.config().num_pipes));
  if (cfg.ee >= bam.config().num_ees) throw std::invalid_argument("TrustZone EE beyond the BAM's EEs");
  SC_THREAD(thread);
}

TzStats TzAgent::stats() const {
  TzStats s = m_stats;
  s.lock_wait = m_bam.pipe_stats(m_rx).lock_wait + m_bam.pipe_stats(m_tx).lock_wait;
  return s;
}

void TzAgent::setup_pipe(unsigned p, bool producer) {
  set_bam_reg(BAM_P_RST(p), 1);
  set_bam_reg(BAM_P_RST(p), 0);
  set_bam_reg(BAM_P_TRUST_REG(p), m_cfg.ee);  // the secure world owns this pipe
  set_bam_reg(BAM_P_DESC_FIFO_ADDR(p), static_cast<std::uint32_t>(m_ring[p == m_tx].addr));
  set_bam_reg(BAM_P_FIFO_SIZES(p), BAM_DESC_FIFO_SIZE);
  set_bam_reg(BAM_P_IRQ_EN(p), P_DEFAULT_IRQS_EN);
  set_bam_reg(BAM_IRQ_SRCS_MSK_EE(m_cfg.ee), bam_reg(BAM_IRQ_SRCS_MSK_EE(m_cfg.ee)) | (1u << p));
  set_bam_reg(BAM_P_CTRL(p), P_EN | P_SYS_MODE | (producer ? P_DIRECTION : 0u));
  m_wr[p == m_tx] = 0;
}

void TzAgent::setup_pipes() {
  setup_pipe(m_rx, false);
  setup_pipe(m_tx, true);
}

void TzAgent::push(unsigned pipe, std::uint32_t addr, std::uint16_t size, std::uint16_t flags) {
  const unsigned i = pipe == m_tx;
  const BamDescHw d{addr, size, flags};
  std::memcpy(m_ring[i].ptr + m_wr[i], &d, sizeof d);
  m_wr[i] = (m_wr[i] + static_cast<std::uint32_t>(sizeof d)) % BAM_DESC_FIFO_SIZE;
}

void TzAgent::thread() {
  if (m_cfg.rate_per_s <= 0) return;
  sc_core::wait(m_start);
  for (auto& r : m_ring) r = m_host.dma_alloc(BAM_DESC_FIFO_SIZE, 4096);
  m_ce = m_host.dma_alloc(32 * sizeof(BamCmdElement), 64);
  m_lock_ce = m_host.dma_alloc(sizeof(BamCmdElement), 16);
  m_data = m_host.dma_alloc(m_cfg.message_bytes, 4096);
  m_result = m_host.dma_alloc(QCE_RESULT_BUF_SZ, 64);
  setup_pipes();
  std::exponential_distribution<double> gap(m_cfg.rate_per_s);
  while (!m_stopped) {
    sc_core::sc_time next(gap(m_rng), sc_core::SC_SEC);
    if (m_wants && next > m_cfg.share_hold) {  // idle long enough: Linux may stop locking
      sc_core::wait(m_cfg.share_hold);
      m_host.writel(m_cfg.share_addr, 0);
      m_wants = false;
      next -= m_cfg.share_hold;
    }
    sc_core::wait(next);
    if (m_stopped) break;
    if (m_cfg.share) share_enter();
    if (!run_job()) {
      ++m_stats.timeouts;
      setup_pipes();  // reset: also releases the BAM lock if this EE held it
    }
  }
}

// Dekker's entry on the other side: want the engine, then wait until Linux has no unlocked
// request on it (its next ones will lock, seeing word 0).
void TzAgent::share_enter() {
  if (!m_wants) {
    m_host.writel(m_cfg.share_addr, 1);
    m_wants = true;
    ++m_stats.share_switches;
  }
  const sc_core::sc_time since = sc_core::sc_time_stamp();
  while (m_host.readl(m_cfg.share_addr + 4) != 0 && !m_stopped) sc_core::wait(m_cfg.share_poll);
  m_stats.share_wait += sc_core::sc_time_stamp() - since;
}

// One digest: program the engine with command descriptors, feed it the message, read the dump.
// Returns false when nothing came back in time.
bool TzAgent::run_job() {
  ++m_stats.jobs;
  const std::uint32_t n = m_cfg.message_bytes;
  std::vector<std::uint8_t> ref;
  if (m_cfg.functional) {
    for (std::uint32_t i = 0; i < n; ++i) m_data.ptr[i] = static_cast<std::uint8_t>(m_rng());
    ref = sha_digest(HashAlg::sha256, m_data.ptr, n);
  }
  // The same register set Linux's driver writes for a one-shot SHA-256, on this EE's pipe set.
  const ShaState iv = sha_initial_state(HashAlg::sha256);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> writes;
  for (unsigned i = 0; i < 8; ++i) writes.emplace_back(REG_AUTH_IV0 + 4 * i, iv.h[i]);
  for (unsigned i = 0; i < 2; ++i) writes.emplace_back(REG_AUTH_BYTECNT0 + 4 * i, 0);
  writes.emplace_back(REG_AUTH_SEG_CFG, (AUTH_ALG_SHA << AUTH_ALG_SHIFT) | (AUTH_MODE_HASH << AUTH_MODE_SHIFT) |
                                            (AUTH_SIZE_SHA256 << AUTH_SIZE_SHIFT) | AUTH_LAST | AUTH_FIRST);
  writes.emplace_back(REG_AUTH_SEG_SIZE, n);
  writes.emplace_back(REG_AUTH_SEG_START, 0);
  writes.emplace_back(REG_ENCR_SEG_CFG, 0);
  writes.emplace_back(REG_SEG_SIZE, n);
  std::uint32_t config = (7u << REQ_SIZE_SHIFT) | MASK_DOUT_INTR | MASK_DIN_INTR | MASK_OP_DONE_INTR | MASK_ERR_INTR |
                         (m_cfg.pipe_set << PIPE_SET_SELECT_SHIFT) | LITTLE_ENDIAN_MODE;
  writes.emplace_back(REG_CONFIG, config);
  writes.emplace_back(REG_GOPROC, GO | RESULTS_DUMP);
  for (std::size_t i = 0; i < writes.size(); ++i) {
    const BamCmdElement ce =
        bam_prep_ce(static_cast<std::uint32_t>(m_qce_base + writes[i].first), BAM_WRITE_COMMAND, writes[i].second);
    std::memcpy(m_ce.ptr + i * sizeof ce, &ce, sizeof ce);
  }
  const BamCmdElement dummy = bam_prep_ce(static_cast<std::uint32_t>(m_qce_base + REG_VERSION), BAM_WRITE_COMMAND, 0);
  std::memcpy(m_lock_ce.ptr, &dummy, sizeof dummy);
  std::memset(m_result.ptr, 0, QCE_RESULT_BUF_SZ);

  const auto ce_bytes = static_cast<std::uint16_t>(writes.size() * sizeof(BamCmdElement));
  push(m_rx, static_cast<std::uint32_t>(m_ce.addr), ce_bytes,
       static_cast<std::uint16_t>(DESC_FLAG_CMD | (m_cfg.lock ? DESC_FLAG_LOCK : 0)));
  push(m_rx, static_cast<std::uint32_t>(m_data.addr), static_cast<std::uint16_t>(n),
       static_cast<std::uint16_t>(DESC_FLAG_EOT | (m_cfg.lock ? DESC_FLAG_NWD : 0)));
  if (m_cfg.lock && m_cfg.lock_hold != sc_core::SC_ZERO_TIME) {
    // Injected: the job runs with the lock taken, and UNLOCK comes this much later.
    set_bam_reg(BAM_P_EVNT_REG(m_rx), m_wr[0]);
    sc_core::wait(m_cfg.lock_hold);
  }
  if (m_cfg.lock)
    push(m_rx, static_cast<std::uint32_t>(m_lock_ce.addr), sizeof(BamCmdElement),
         static_cast<std::uint16_t>(DESC_FLAG_CMD | DESC_FLAG_UNLOCK | DESC_FLAG_INT));
  push(m_tx, static_cast<std::uint32_t>(m_result.addr), QCE_RESULT_BUF_SZ, DESC_FLAG_INT);
  set_bam_reg(BAM_P_EVNT_REG(m_tx), m_wr[1]);
  set_bam_reg(BAM_P_EVNT_REG(m_rx), m_wr[0]);

  // Wait for the dump (and, with the lock, for the UNLOCK to have run), level-triggered: look
  // at the status first, sleep on the EE's line only when nothing is pending.
  const sc_core::sc_time deadline = sc_core::sc_time_stamp() + m_cfg.timeout;
  bool dumped = false;
  for (;;) {
    for (unsigned p : {m_rx, m_tx}) {
      const std::uint32_t st = bam_reg(BAM_P_IRQ_STTS(p));
      if (!st) continue;
      set_bam_reg(BAM_P_IRQ_CLR(p), st);
      if (p == m_tx && (st & P_TRNSFR_END)) dumped = true;
    }
    const bool rx_idle = bam_reg(BAM_P_SW_OFSTS(m_rx)) == m_wr[0];
    if (dumped && rx_idle) break;
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (now >= deadline) return false;
    sc_core::wait(deadline - now, m_bam.irq_line(m_cfg.ee).rise_event());
  }
  ++m_stats.completed;
  std::uint32_t status;
  std::memcpy(&status, m_result.ptr + DUMP_STATUS, 4);
  if (status & (SW_ERR | DIN_ERR)) {
    ++m_stats.errors;
  } else if (m_cfg.functional && std::memcmp(m_result.ptr + DUMP_AUTH_IV, ref.data(), ref.size()) != 0) {
    ++m_stats.digest_mismatches;
  }
  return true;
}

}  // namespace qcesim::qce
