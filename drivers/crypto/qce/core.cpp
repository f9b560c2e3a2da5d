#include "drivers/crypto/qce/core.h"

#include <spdlog/fmt/fmt.h>

#include <cstring>

namespace qcesim::qce {

namespace {
constexpr unsigned kMaxCmdElements = 128;  // capacity of the series' command-element list
constexpr unsigned kBurstSize = 64;        // QCE_BAM_BURST_SIZE
}  // namespace

QceDevice::QceDevice(cpu::Host& host, cpu::Kernel& kernel, bam::BamDma& bam, std::uint64_t base_phys,
                     const QceDriverConfig& cfg)
    : m_host(host), m_kernel(kernel), m_costs(kernel.costs()), m_bam(bam), m_base(base_phys), m_cfg(cfg) {}

QceDevice::~QceDevice() = default;

void QceDevice::probe(Runner& r) {
  m_version = m_host.readl(r, m_base + REG_VERSION);
  const unsigned major = m_version >> 24, minor = (m_version >> 16) & 0xFF;
  if (major < 5 || (major == 5 && minor == 0))
    throw QceError(fmt::format("unsupported QCE version {}.{}.{}", major, minor, m_version & 0xFFFF));
  m_rx = &m_bam.chan(m_cfg.rx_pipe);
  m_tx = &m_bam.chan(m_cfg.tx_pipe);
  bam::BamSlaveConfig rx{bam::DmaDir::mem_to_dev, std::nullopt};
  if (m_cfg.reg_io == RegIo::bam && m_cfg.bam_lock) rx.scratchpad = m_base + REG_VERSION;  // the series' dummy-write target
  rx.interrupts = m_cfg.rx_interrupt && !m_cfg.poll;
  m_bam.slave_config(*m_rx, rx);
  bam::BamSlaveConfig tx{bam::DmaDir::dev_to_mem, std::nullopt};
  tx.interrupts = !m_cfg.poll;
  m_bam.slave_config(*m_tx, tx);
  auto on_error = [this](Runner& hr, const std::string& why) { on_channel_error(hr, why); };
  m_rx->on_error = on_error;
  m_tx->on_error = on_error;
  m_result_buf = m_host.dma_alloc(QCE_RESULT_BUF_SZ, 64);
  m_result_sg = {{m_result_buf.addr, QCE_RESULT_BUF_SZ}};
  m_ce_buf = m_host.dma_alloc(kMaxCmdElements * sizeof(bam::BamCmdElement), 64);
}

// ---------------------------------------------------------------------------------------------
// Queue

void QceDevice::enqueue(Runner& r, ShaRequest& req) {
  r.charge(m_costs(cpu::Cost::crypto_ahash_digest));
  ++m_stats.requests;
  m_queue.push_back(&req);
  qce_handle_queue(r);
}

void QceDevice::qce_handle_queue(Runner& r) {
  r.charge(m_costs(cpu::Cost::qce_handle_queue));
  if (m_req || m_queue.empty()) return;  // one request in flight per device
  m_req = m_queue.front();
  m_queue.pop_front();
  ++m_req_seq;
  if (m_cfg.request_timeout != sc_core::SC_ZERO_TIME) {
    // From when the CPU gets here; a request done by then leaves a stale timer behind (seq).
    const std::uint64_t seq = m_req_seq;
    m_kernel.schedule_delayed_work_on(m_cfg.irq_cpu, m_cfg.request_timeout + r.debt(), "qce_request_timeout",
                                      [this, seq](Runner& k) { qce_request_timeout(k, seq); });
  }
  qce_ahash_async_req_handle(r, *m_req);
}

void QceDevice::run_sha(Runner& task, ShaRequest& req) {
  cpu::Completion done(m_kernel);
  std::string error;
  req.complete = [&](Runner& k, const std::string& e) {
    error = e;
    done.complete(k);
  };
  enqueue(task, req);
  if (!done.wait_for(task, m_cfg.timeout)) {
    // Nothing completed the request: drop it and reset what it left behind.
    qce_dma_terminate_all(task);
    m_host.writel(task, m_base + REG_GOPROC, CLR_CNTXT);
    m_req = nullptr;
    ++m_req_seq;  // a late completion of the abandoned request is ignored
    ++m_stats.errors;
    throw QceError(fmt::format("timed out after {} waiting for the request to complete",
                               m_cfg.timeout.to_string()));
  }
  if (!error.empty()) throw QceError(error);
}

// ---------------------------------------------------------------------------------------------
// Register programming

void QceDevice::qce_write(Runner& r, std::uint32_t offset, std::uint32_t val) {
  ++m_stats.reg_writes;
  if (m_cfg.reg_io == RegIo::mmio) {
    if (offset == REG_GOPROC) {
      r.sync();  // the engine starts when the CPU gets here
      // A channel error taken while the CPU got here has failed the request already (and
      // cleared the engine's context): starting the engine now would leave it running an
      // operation whose data never comes, and the next request's GO would find it busy.
      if (val & GO && m_failed_seq == m_req_seq) return;
    }
    m_host.writel(r, m_base + offset, val);
    return;
  }
  if (m_ce_count == kMaxCmdElements) throw QceError("command element list full");
  r.charge(m_costs(cpu::Cost::qce_write_ce));
  const bam::BamCmdElement ce =
      bam::bam_prep_ce(static_cast<std::uint32_t>(m_base + offset), bam::BAM_WRITE_COMMAND, val);
  std::memcpy(m_ce_buf.ptr + m_ce_count * sizeof ce, &ce, sizeof ce);
  ++m_ce_count;
  ++m_stats.command_elements;
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

// qce_submit_cmd_desc: one scatterlist entry per command element, mapped, one CMD transfer on rx.
void QceDevice::qce_submit_cmd_desc(Runner& r) {
  std::vector<bam::ScatterEntry>& sg = m_ce_sg;
  sg.clear();
  for (unsigned i = 0; i < m_ce_count; ++i)
    sg.push_back({m_ce_buf.addr + i * sizeof(bam::BamCmdElement), sizeof(bam::BamCmdElement)});
  r.charge(m_costs(cpu::Cost::dma_map_sg, cpu::Cost::dma_map_sg_per_entry, m_ce_count));
  m_bam.submit(*m_rx, m_bam.prep_slave_sg(r, *m_rx, sg, bam::DMA_PREP_CMD));
  m_ce_mapped = m_ce_count;
  m_ce_count = 0;
}

// ---------------------------------------------------------------------------------------------
// Request

void QceDevice::qce_ahash_async_req_handle(Runner& r, ShaRequest& req) {
  r.charge(m_costs(cpu::Cost::qce_ahash_async_req_handle));
  std::uint32_t sg_total = 0;
  for (const auto& e : req.src) sg_total += e.len;
  if (sg_total != req.nbytes) return finish(r, "scatterlist length does not match nbytes");
  if (!req.last && req.nbytes % kShaBlockBytes != 0) return finish(r, "non-final hash chunk not a multiple of 64");

  // dma_map_sg of the source and of the result buffer.
  r.charge(m_costs(cpu::Cost::dma_map_sg, cpu::Cost::dma_map_sg_per_entry, req.src.size()));
  r.charge(m_costs(cpu::Cost::dma_map_sg, cpu::Cost::dma_map_sg_per_entry, 1));
  auto tx_cb = [this](Runner& s, const bam::DmaResult& res) { qce_ahash_done(s, res); };
  const unsigned flags = bam::DMA_PREP_INTERRUPT | bam::DMA_CTRL_ACK;

  if (m_cfg.reg_io == RegIo::mmio) {
    if (req.nbytes) m_bam.submit(*m_rx, m_bam.prep_slave_sg(r, *m_rx, req.src, flags));
    m_bam.submit(*m_tx, m_bam.prep_slave_sg(r, *m_tx, m_result_sg, flags, tx_cb));
    m_bam.issue_pending(r, *m_rx);
    m_bam.issue_pending(r, *m_tx);
    qce_setup_regs_ahash(r, req);  // 21 writel, the last one GO
  } else {
    qce_setup_regs_ahash(r, req);  // builds and submits the command descriptor
    if (req.nbytes) m_bam.submit(*m_rx, m_bam.prep_slave_sg(r, *m_rx, req.src, flags | bam::DMA_PREP_FENCE));
    m_bam.submit(*m_tx, m_bam.prep_slave_sg(r, *m_tx, m_result_sg, flags, tx_cb));
    m_bam.issue_pending(r, *m_tx);
    m_bam.issue_pending(r, *m_rx);  // LOCK is prepended and UNLOCK appended here
  }
  r.sync();
  if (m_cfg.poll) poll_completion(r);
}

// Polling: the submitting context reads the tx pipe's offset until the dump is in, waiting
// poll_delay between reads (udelay: the CPU stays busy), then runs the done path itself.
void QceDevice::poll_completion(Runner& r) {
  const std::uint64_t seq = m_req_seq;
  for (;;) {
    ++m_stats.polls;
    if (m_bam.poll_done(r, *m_tx)) break;
    r.run("__udelay", m_cfg.poll_delay);
    if (seq != m_req_seq) return;  // failed meanwhile (watchdog)
  }
  qce_ahash_done(r, bam::DmaResult{});
}

void QceDevice::qce_dma_terminate_all(Runner& r) {
  m_bam.terminate_all(r, *m_rx);
  m_bam.terminate_all(r, *m_tx);
  if (m_ce_mapped) {
    r.charge(m_costs(cpu::Cost::dma_unmap_sg, cpu::Cost::dma_unmap_sg_per_entry, m_ce_mapped));
    m_ce_mapped = 0;
  }
}

// qce_ahash_done, the tx callback, in softirq context.
void QceDevice::qce_ahash_done(Runner& r, const bam::DmaResult& res) {
  if (!m_req) return;
  ShaRequest& req = *m_req;
  r.charge(m_costs(cpu::Cost::qce_ahash_done));
  qce_dma_terminate_all(r);
  r.charge(m_costs(cpu::Cost::dma_unmap_sg, cpu::Cost::dma_unmap_sg_per_entry, req.src.size()));
  r.charge(m_costs(cpu::Cost::dma_unmap_sg, cpu::Cost::dma_unmap_sg_per_entry, 1));
  if (!res.ok) return finish(r, res.error);

  const std::uint8_t* dump = m_result_buf.ptr;
  std::uint32_t dump_status;
  std::memcpy(&dump_status, dump + DUMP_STATUS, 4);
  // qce_check_status: one CPU read of STATUS (or, as a what-if, the dump's copy).
  std::uint32_t status = dump_status;
  if (!m_cfg.status_from_dump) {
    ++m_stats.status_reads;
    status = m_host.readl(r, m_base + REG_STATUS);
  }
  if (status & (SW_ERR | AXI_ERR | HSD_ERR) || !(status & OPERATION_DONE))
    return finish(r, fmt::format("engine reported STATUS=0x{:08x} (dump status 0x{:08x})", status, dump_status));
  for (unsigned i = 0; i < 8; ++i) {
    const std::uint8_t* w = dump + DUMP_AUTH_IV + 4 * i;
    req.carry.iv[i] = (std::uint32_t{w[0]} << 24) | (std::uint32_t{w[1]} << 16) | (std::uint32_t{w[2]} << 8) | w[3];
  }
  std::uint32_t cnt[2];
  std::memcpy(cnt, dump + DUMP_AUTH_BYTECNT, 8);
  req.carry.byte_count = std::uint64_t{cnt[0]} | (std::uint64_t{cnt[1]} << 32);
  if (req.last) req.digest.assign(dump + DUMP_AUTH_IV, dump + DUMP_AUTH_IV + digest_bytes(req.alg));
  finish(r, "");
}

// A channel stopped with P_ERR (hardirq): the request fails; clean up from softirq.
void QceDevice::on_channel_error(Runner& r, const std::string& why) {
  if (!m_req) return;
  m_kernel.tasklet_schedule(r, "qce_dma_error", [this, why](Runner& s) {
    if (!m_req) return;
    qce_dma_terminate_all(s);
    finish(s, why);
  });
}

// The request_timeout watchdog: fails a request that has not completed in time (its channels
// are reset and the engine's context cleared, as after an error) and starts the next.
void QceDevice::qce_request_timeout(Runner& k, std::uint64_t seq) {
  if (seq != m_req_seq || !m_req) return;
  ++m_stats.timeouts;
  qce_dma_terminate_all(k);
  finish(k, fmt::format("no completion within {}: the engine did not finish this request (another execution "
                        "environment took it, or its result went elsewhere)",
                        m_cfg.request_timeout.to_string()));
}

// async_req_done: the rest runs in a kworker (qce_req_done_work), which completes the request
// and starts the next queued one.
void QceDevice::finish(Runner& r, std::string error) {
  if (!error.empty()) {
    // Clear the engine's context so an operation left waiting for data does not block the next.
    ++m_stats.errors;
    m_host.writel(r, m_base + REG_GOPROC, CLR_CNTXT);
    m_failed_seq = m_req_seq;
  }
  const std::uint64_t seq = m_req_seq;
  if (m_cfg.poll && cpu::ctx_level(r.ctx()) == 0) {
    // Polled: the request completes in the context that waited for it, no workqueue.
    qce_req_done_work(r, seq, error);
    return;
  }
  m_kernel.schedule_work(r, "qce_req_done_work",
                         [this, seq, error](Runner& k) { qce_req_done_work(k, seq, error); });
}

// Completes the request `seq` (unless it was abandoned after a timeout) and starts the next.
void QceDevice::qce_req_done_work(Runner& r, std::uint64_t seq, const std::string& error) {
  r.charge(m_costs(cpu::Cost::qce_req_done_work));
  if (seq != m_req_seq) return;
  ShaRequest* req = m_req;
  m_req = nullptr;
  r.charge(m_costs(cpu::Cost::crypto_request_complete));
  if (req->complete) req->complete(r, error);
  qce_handle_queue(r);
}

}  // namespace qcesim::qce
