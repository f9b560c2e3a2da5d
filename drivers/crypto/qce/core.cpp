#include "drivers/crypto/qce/core.h"

#include <spdlog/fmt/fmt.h>

#include <cstring>

#include "drivers/crypto/qce/aead.h"
#include "drivers/crypto/qce/sha.h"
#include "drivers/crypto/qce/skcipher.h"

namespace qcesim::qce {

namespace {

// qce_ops[]: the algorithm types this driver registers, each with its request handler, in the
// kernel's core.c order.
using OpsFactory = std::unique_ptr<QceAlgoOps> (*)(QceDevice&);
constexpr OpsFactory kQceOps[] = {make_skcipher_ops, make_ahash_ops, make_aead_ops};

}  // namespace

const char* alg_type_name(AlgType t) {
  switch (t) {
    case AlgType::skcipher:
      return "skcipher";
    case AlgType::ahash:
      return "ahash";
    case AlgType::aead:
      return "aead";
  }
  return "?";
}

QceDevice::QceDevice(cpu::Host& host, cpu::Kernel& kernel, bam::BamDma& bam, std::uint64_t base_phys,
                     const QceDriverConfig& cfg)
    : m_host(host),
      m_kernel(kernel),
      m_costs(kernel.costs()),
      m_soft(cfg.soft),
      m_bam(bam),
      m_base(base_phys),
      m_cfg(cfg) {}

QceDevice::~QceDevice() = default;

void QceDevice::probe(Runner& r) {
  m_version = m_host.readl(r, m_base + REG_VERSION);  // qce_check_version
  const unsigned major = m_version >> 24, minor = (m_version >> 16) & 0xFF;
  if (major < 5 || (major == 5 && minor == 0))
    throw QceError(fmt::format("unsupported QCE version {}.{}.{}", major, minor, m_version & 0xFFFF));
  qce_dma_request(r);
  if (m_cfg.lock_when_shared) {
    const cpu::DmaBuf share = m_host.dma_alloc(64, 64);
    std::memset(share.ptr, 0, 8);
    m_cfg.share_addr = share.addr;
  }
  for (OpsFactory make : kQceOps) m_ops.push_back(make(*this));  // qce_register_algs
}

// ---------------------------------------------------------------------------------------------
// Queue

void QceDevice::enqueue(Runner& r, QceAsyncRequest& req) {
  // The caller's side of the request up to the driver.
  if (req.opens_message) r.charge(m_costs(cpu::Cost::caller_overhead));
  if (req.calls.empty())
    r.charge(m_costs(req.type == AlgType::ahash      ? cpu::Cost::crypto_ahash_digest
                     : req.type == AlgType::skcipher ? cpu::Cost::qce_skcipher_crypt
                                                     : cpu::Cost::qce_aead_crypt));
  for (const cpu::Cost c : req.calls) r.charge(m_costs(c));
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
  // Polling needs a process context to spin in (not the pre-2024 done tasklet).
  const bool process = cpu::ctx_level(r.ctx()) == 0;
  if (m_cfg.poll_at_load) qce_set_polling(r, !m_queue.empty() && process);
  qce_handle_request(r, *m_req);
  if (m_polling && !m_in_poll_loop && process) qce_poll_loop(r);
}

void QceDevice::qce_set_polling(Runner& r, bool on) {
  if (on == m_polling) return;
  m_polling = on;
  m_bam.set_interrupts(r, *m_rx, on ? false : m_cfg.rx_interrupt);
  m_bam.set_interrupts(r, *m_tx, !on);
}

// The requests started while polling complete here, one after another (each completion starts
// the next queued one, which returns to this loop instead of polling inside it).
void QceDevice::qce_poll_loop(Runner& r) {
  m_in_poll_loop = true;
  // A request that failed before issuing anything, or that an error path has failed, completes
  // through the work it queued: leave the loop so that work can run.
  while (m_req && m_polling && m_issued_seq == m_req_seq && m_failed_seq != m_req_seq) {
    poll_completion(r);
  }
  m_in_poll_loop = false;
}

// qce_handle_request: the ops entry of the request's type handles it.
void QceDevice::qce_handle_request(Runner& r, QceAsyncRequest& req) {
  for (const auto& ops : m_ops)
    if (ops->type() == req.type) return ops->async_req_handle(r, req);
  async_req_done(r, qce_error(-ENODEV, fmt::format("no {} algorithms registered", alg_type_name(req.type))));
}

void QceDevice::run_sync(Runner& task, QceAsyncRequest& req) {
  cpu::Completion done(m_kernel);
  QceStatus result;
  req.complete = [&](Runner& k, const QceStatus& st) {
    result = st;
    done.complete(k);
  };
  enqueue(task, req);
  if (!done.done()) task.charge(m_costs(cpu::Cost::crypto_wait_req));  // the caller's way to its sleep
  if (!done.wait_for(task, m_cfg.timeout)) {
    // Nothing completed the request: drop it and reset what it left behind.
    qce_dma_terminate_all(task);
    m_host.writel(task, m_base + REG_GOPROC, CLR_CNTXT);
    qce_share_release(task);
    m_bam.bam_release_lock(task, *m_rx);
    m_req = nullptr;
    ++m_req_seq;  // a late completion of the abandoned request is ignored
    ++m_stats.errors;
    throw QceError(fmt::format("timed out after {} waiting for the request to complete", m_cfg.timeout.to_string()));
  }
  if (result.err == -EBADMSG) throw QceBadMessage(result.why);
  if (result.failed()) throw QceError(result.why);
}

void QceDevice::run_sha(Runner& task, ShaRequest& req) { run_sync(task, req); }

// ---------------------------------------------------------------------------------------------
// Errors and the watchdog

// A channel stopped with P_ERR (hardirq): the request fails; clean up from softirq.
void QceDevice::on_channel_error(Runner& r, const std::string& why) {
  if (!m_req) return;
  m_kernel.tasklet_schedule(r, "qce_dma_error", [this, why](Runner& s) {
    if (!m_req) return;
    qce_dma_terminate_all(s);
    async_req_done(s, qce_error(-EIO, why));
  });
}

// The request_timeout watchdog: fails a request that has not completed in time (its channels
// are reset and the engine's context cleared, as after an error) and starts the next.
void QceDevice::qce_request_timeout(Runner& k, std::uint64_t seq) {
  if (seq != m_req_seq || !m_req) return;
  ++m_stats.timeouts;
  qce_dma_terminate_all(k);
  async_req_done(k, qce_error(-ETIMEDOUT, fmt::format("no completion within {}: the engine did not finish this request "
                                                      "(another execution environment took it, or its result went "
                                                      "elsewhere)",
                                                      m_cfg.request_timeout.to_string())));
}

// ---------------------------------------------------------------------------------------------
// Done

// qce_async_request_done: the rest runs in a kworker (qce_req_done_work), or before 2024 in the
// done tasklet (qce_tasklet_req_done), which completes the request and starts the next queued one.
void QceDevice::async_req_done(Runner& r, QceStatus status) {
  if (status.failed()) {
    // Clear the engine's context so an operation left waiting for data does not block the next.
    // Not mainline's: its qce_async_request_done writes nothing to the engine. Without this the
    // model's engine stays busy with the failed operation and every later request fails; what the
    // hardware does after an error without it is not published [I] (docs/locking-designs.md).
    ++m_stats.errors;
    m_host.writel(r, m_base + REG_GOPROC, CLR_CNTXT);
    m_failed_seq = m_req_seq;
  }
  qce_share_release(r);  // the engine is done with this request
  const std::uint64_t seq = m_req_seq;
  if ((m_cfg.poll || m_in_poll_loop) && cpu::ctx_level(r.ctx()) == 0) {
    // Polled: the request completes in the context that waited for it, no workqueue.
    qce_req_done_work(r, seq, status);
    return;
  }
  if (m_cfg.done_tasklet) {
    m_kernel.tasklet_schedule(r, "qce_tasklet_req_done",
                              [this, seq, status](Runner& s) { qce_tasklet_req_done(s, seq, status); });
    return;
  }
  m_kernel.schedule_work(r, "qce_req_done_work", [this, seq, status](Runner& k) { qce_req_done_work(k, seq, status); });
}

// The pre-2024 done tasklet: the same work in softirq, under the queue's spinlock.
void QceDevice::qce_tasklet_req_done(Runner& r, std::uint64_t seq, const QceStatus& status) {
  r.charge(m_costs(cpu::Cost::qce_tasklet_req_done));
  finish_request(r, seq, status);
}

// Completes the request `seq` (unless it was abandoned after a timeout) and starts the next.
void QceDevice::qce_req_done_work(Runner& r, std::uint64_t seq, const QceStatus& status) {
  r.charge(m_costs(cpu::Cost::qce_req_done_work));
  finish_request(r, seq, status);
}

void QceDevice::finish_request(Runner& r, std::uint64_t seq, const QceStatus& status) {
  if (seq != m_req_seq) return;
  QceAsyncRequest* req = m_req;
  m_req = nullptr;
  r.charge(m_costs(cpu::Cost::crypto_request_complete));
  if (req->complete) req->complete(r, status);
  qce_handle_queue(r);
  // lock_batch: a lock kept for a request that then did not come (it failed before taking it,
  // or the queue drained) is released now, not left to the next request.
  if (!m_req && m_rx && m_rx->locked && !m_rx->unlock_queued) m_bam.bam_release_lock(r, *m_rx);
}

}  // namespace qcesim::qce
