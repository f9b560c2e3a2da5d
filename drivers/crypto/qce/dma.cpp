// The qce driver's dma.c: the two channels and the result buffer (qce_dma_request), the
// scatterlists on both pipes (qce_dma_prep_sgs), issue and terminate, and the locking series'
// register writes as BAM command elements (qce_write_dma, qce_submit_cmd_desc).
#include <cstring>

#include "drivers/crypto/qce/core.h"
#include "drivers/dma_mapping.h"

namespace qcesim::qce {

namespace {
constexpr unsigned kMaxCmdElements = 128;  // capacity of the series' command-element list
}  // namespace

void QceDevice::qce_dma_request(Runner& r) {
  m_rx = &m_bam.chan(m_cfg.rx_pipe);
  m_tx = &m_bam.chan(m_cfg.tx_pipe);
  bam::BamSlaveConfig rx{bam::DmaDir::mem_to_dev, std::nullopt};
  if (m_cfg.locks() && !m_cfg.lock_inline) rx.scratchpad = m_base + REG_VERSION;  // the series' dummy-write target
  rx.interrupts = m_cfg.rx_interrupt && !m_cfg.poll;
  rx.unlock_interrupt = m_cfg.unlock_interrupt;
  rx.coherent_lock_ce = m_cfg.coherent_ce;
  m_bam.bam_slave_config(*m_rx, rx);
  m_bam.bam_alloc_chan_resources(r, *m_rx);
  bam::BamSlaveConfig tx{bam::DmaDir::dev_to_mem, std::nullopt};
  tx.interrupts = !m_cfg.poll;
  m_bam.bam_slave_config(*m_tx, tx);
  auto on_error = [this](Runner& hr, const std::string& why) { on_channel_error(hr, why); };
  m_rx->on_error = on_error;
  m_tx->on_error = on_error;
  m_result_buf = m_host.dma_alloc(QCE_RESULT_BUF_SZ, 64);
  m_result_sg = {{m_result_buf.addr, QCE_RESULT_BUF_SZ}};
  m_ce_buf = m_host.dma_alloc(kMaxCmdElements * sizeof(bam::BamCmdElement), 64);
  if (m_cfg.coherent_ce) {  // dma_alloc_coherent: one mapping for the device's lifetime
    cpu::SgShape whole;
    whole.add(m_ce_buf.addr, m_ce_buf.size);
    dma::dma_map_sg(r, m_kernel.dma(), whole, dma::DmaDir::to_device);
  }
}

void QceDevice::qce_dma_prep_sgs(Runner& r, const std::vector<bam::ScatterEntry>& src, unsigned rx_flags,
                                 bam::DmaCallback done, const std::vector<bam::ScatterEntry>& dst, bool add_result) {
  const unsigned flags = bam::DMA_PREP_INTERRUPT | bam::DMA_CTRL_ACK;
  if (m_cfg.poll || m_cfg.poll_at_load) m_done = done;
  m_issued_seq = m_req_seq;
  if (!src.empty()) m_bam.submit(*m_rx, m_bam.bam_prep_slave_sg(r, *m_rx, src, flags | rx_flags));
  if (dst.empty()) {
    m_bam.submit(*m_tx, m_bam.bam_prep_slave_sg(r, *m_tx, m_result_sg, flags, std::move(done)));
    return;
  }
  // The destination table: the data, then the result buffer (qce_sgtable_add twice).
  std::vector<bam::ScatterEntry> tx = dst;
  if (add_result) tx.insert(tx.end(), m_result_sg.begin(), m_result_sg.end());
  m_bam.submit(*m_tx, m_bam.bam_prep_slave_sg(r, *m_tx, tx, flags, std::move(done)));
}

void QceDevice::qce_dma_issue_pending(Runner& r) {
  if (m_cfg.reg_io == RegIo::mmio) {
    m_bam.bam_issue_pending(r, *m_rx);
    m_bam.bam_issue_pending(r, *m_tx);
  } else {
    m_bam.bam_issue_pending(r, *m_tx);
    m_bam.bam_issue_pending(r, *m_rx);  // LOCK is prepended and UNLOCK appended here
  }
}

void QceDevice::qce_dma_terminate_all(Runner& r) {
  m_bam.bam_dma_terminate_all(r, *m_rx);
  m_bam.bam_dma_terminate_all(r, *m_tx);
  for (const cpu::SgShape& s : m_ce_maps) dma::dma_unmap_sg(r, m_kernel.dma(), s, dma::DmaDir::to_device);
  m_ce_maps.clear();
  m_ce_first = m_ce_count = 0;
}

void QceDevice::qce_write_dma(Runner& r, std::uint32_t offset, std::uint32_t val) {
  if (m_ce_count == kMaxCmdElements) throw QceError("command element list full");
  r.charge(m_costs(cpu::Cost::qce_write_ce));
  const bam::BamCmdElement ce =
      bam::bam_prep_ce(static_cast<std::uint32_t>(m_base + offset), bam::BAM_WRITE_COMMAND, val);
  std::memcpy(m_ce_buf.ptr + m_ce_count * sizeof ce, &ce, sizeof ce);
  ++m_ce_count;
  ++m_stats.command_elements;
}

// qce_submit_cmd_desc: one scatterlist entry per command element, mapped, one CMD transfer on rx.
void QceDevice::qce_submit_cmd_desc(Runner& r, unsigned flags) {
  std::vector<bam::ScatterEntry>& sg = m_ce_sg;
  sg.clear();
  for (unsigned i = m_ce_first; i < m_ce_count; ++i)
    sg.push_back({m_ce_buf.addr + i * sizeof(bam::BamCmdElement), sizeof(bam::BamCmdElement)});
  if (!m_cfg.coherent_ce) {  // the series maps the list per request (unmapped by terminate_all)
    m_ce_maps.push_back(dma::sg_shape({&sg}));
    dma::dma_map_sg(r, m_kernel.dma(), m_ce_maps.back(), dma::DmaDir::to_device);
  }
  bam::BamDescPtr d = m_bam.bam_prep_slave_sg(r, *m_rx, sg, bam::DMA_PREP_CMD | flags);
  // dmaengine_desc_attach_metadata (the scratchpad, under the channel's lock), dmaengine_submit.
  r.charge(m_costs(cpu::Cost::qce_submit_cmd_desc));
  m_bam.submit(*m_rx, std::move(d));
  m_ce_first = m_ce_count;  // the elements stay where the BAM will read them until the request ends
}

// With the lock (or a LOCK queued) the request writes the engine's registers inside it; without,
// as mainline. Decided per request: lock_when_shared asks the handshake, lock_batch looks at the
// queue behind.
void QceDevice::qce_lock_policy(Runner& r) {
  if (!m_cfg.locks()) return;
  bool lock = true;
  if (m_cfg.lock_when_shared && !m_rx->locked) {
    // Dekker's entry: announce an unlocked request, then look whether the other EE wants in.
    m_host.writel(r, m_cfg.share_addr + 4, 1);
    lock = m_host.readl(r, m_cfg.share_addr) != 0;
    if (lock) m_host.writel(r, m_cfg.share_addr + 4, 0);
    m_unlocked_busy = !lock;
  }
  m_rx->lock_next = lock;
  if (!lock) {
    m_rx->keep_lock = false;
    return;
  }
  if (!m_rx->locked) m_batch = 0;
  ++m_batch;
  m_rx->keep_lock = m_batch < m_cfg.lock_batch && !m_queue.empty();
}

bool QceDevice::qce_wait_lock(Runner& r) {
  return qce_poll_until(r, [this, &r] { return m_bam.lock_acquired(r, *m_rx); });
}

// One poll loop for the LOCK wait and the completion: `ready` read every poll_delay (udelay: the
// CPU stays busy) until it holds; false when the request in flight was failed meanwhile. The
// watchdog's work may be queued behind this very context (a kworker), so the loop keeps its own
// deadline and fails the request itself.
bool QceDevice::qce_poll_until(Runner& r, const std::function<bool()>& ready) {
  const std::uint64_t seq = m_req_seq;
  const sc_core::sc_time start = sc_core::sc_time_stamp();
  for (;;) {
    ++m_stats.polls;
    if (ready()) break;
    r.run("__udelay", m_cfg.poll_delay);
    if (seq != m_req_seq || m_failed_seq == seq) return false;  // failed meanwhile (the watchdog, an error path)
    if (m_cfg.request_timeout != sc_core::SC_ZERO_TIME && sc_core::sc_time_stamp() - start >= m_cfg.request_timeout) {
      qce_request_timeout(r, seq);
      return false;
    }
  }
  return seq == m_req_seq && m_failed_seq != seq;  // an error path may have failed it as it caught up
}

void QceDevice::qce_share_release(Runner& r) {
  if (!m_unlocked_busy) return;
  m_host.writel(r, m_cfg.share_addr + 4, 0);
  m_unlocked_busy = false;
}

// Polling: the submitting context reads the tx pipe's offset until the dump is in, waiting
// poll_delay between reads (udelay: the CPU stays busy), then runs the done callback itself.
void QceDevice::poll_completion(Runner& r) {
  if (m_issued_seq != m_req_seq) return;  // nothing of this request's was issued (it failed before)
  if (qce_poll_until(r, [this, &r] { return m_bam.poll_done(r, *m_tx); })) m_done(r, bam::DmaResult{});
}

}  // namespace qcesim::qce
