#include "cpu/core.h"

#include <algorithm>
#include <stdexcept>

namespace qcesim::cpu {

using sc_core::sc_time;
using sc_core::sc_time_stamp;
using sc_core::SC_ZERO_TIME;

const char* ctx_name(Ctx c) {
  switch (c) {
    case Ctx::task: return "task";
    case Ctx::kworker: return "kworker";
    case Ctx::softirq: return "softirq";
    case Ctx::hardirq: return "hardirq";
    case Ctx::ksoftirqd: return "ksoftirqd";
  }
  return "?";
}

int ctx_level(Ctx c) {
  switch (c) {
    case Ctx::hardirq: return 2;
    case Ctx::softirq: return 1;
    default: return 0;
  }
}

sc_time CpuTimes::busy() const {
  sc_time t = SC_ZERO_TIME;
  for (const auto& c : ctx) t += c;
  return t;
}

Runner::Runner(Core& core, Ctx ctx, std::string name) : m_core(core), m_ctx(ctx), m_name(std::move(name)) {}

void Runner::charge(const char* fn, const sc_time& cost) {
  m_debt += cost;
  m_core.m_fn_time[static_cast<std::size_t>(m_ctx)][fn] += cost;
}

void Runner::sync() {
  if (m_debt == SC_ZERO_TIME) return;
  m_remaining = m_debt;
  m_debt = SC_ZERO_TIME;
  m_core.submit(*this);
  sc_core::wait(m_done);
}

void Runner::block() {
  if (m_core.m_owner != this) return;
  m_core.m_owner = nullptr;
  m_core.account_until_now();
  m_core.reschedule();
}

SC_HAS_PROCESS(Core);

Core::Core(sc_core::sc_module_name name, unsigned id) : sc_core::sc_module(name), m_id(id) {
  SC_METHOD(on_complete);
  sensitive << m_complete;
  dont_initialize();
}

void Core::account_until_now() {
  const sc_time now = sc_time_stamp();
  const sc_time elapsed = now - m_since;
  if (m_current) {
    m_current->m_remaining -= elapsed;
    m_times.ctx[static_cast<std::size_t>(m_current->m_ctx)] += elapsed;
  } else {
    m_times.idle += elapsed;
  }
  m_since = now;
}

void Core::submit(Runner& r) {
  if (r.m_active) throw std::logic_error("runner " + r.m_name + " synced twice at once");
  account_until_now();
  r.m_active = true;
  r.m_seq = ++m_seq;
  m_waiting.push_back(&r);
  reschedule();
}

// Runs the highest level; within a level the one already running stays (task-level threads
// do not preempt each other), otherwise the earliest arrival.
void Core::reschedule() {
  auto better = [this](const Runner* a, const Runner* b) {
    if (ctx_level(a->m_ctx) != ctx_level(b->m_ctx)) return ctx_level(a->m_ctx) > ctx_level(b->m_ctx);
    if (a == m_owner) return true;  // task level runs until it sleeps
    if (b == m_owner) return false;
    if (a == m_current) return true;
    if (b == m_current) return false;
    return a->m_seq < b->m_seq;
  };
  Runner* best = nullptr;
  for (Runner* r : m_waiting)
    if (!best || better(r, best)) best = r;
  // The same work keeps running to the same end: leave its completion event alone (most
  // submissions are of lower contexts, and re-queuing a timed event costs the kernel a heap
  // operation).
  if (best && best == m_current && m_complete_pending && m_complete_at == sc_time_stamp() + best->m_remaining) return;
  m_current = best;
  m_complete.cancel();
  m_complete_pending = best != nullptr;
  if (best) {
    m_complete_at = sc_time_stamp() + best->m_remaining;
    m_complete.notify(best->m_remaining);
  }
}

void Core::on_complete() {
  m_complete_pending = false;
  account_until_now();
  Runner* done = m_current;
  if (done && done->m_remaining == SC_ZERO_TIME) {
    if (ctx_level(done->m_ctx) == 0) m_owner = done;
    done->m_active = false;
    m_waiting.erase(std::find(m_waiting.begin(), m_waiting.end(), done));
    done->m_done.notify();  // immediate: the thread resumes in this delta, no extra cycle
  }
  reschedule();
}

std::map<std::pair<Ctx, std::string>, sc_time> Core::profile() const {
  std::map<std::pair<Ctx, std::string>, sc_time> out;
  for (std::size_t c = 0; c < kNumCtx; ++c)
    for (const auto& [fn, t] : m_fn_time[c]) out[{static_cast<Ctx>(c), fn}] += t;
  return out;
}

CpuTimes Core::times() const {
  CpuTimes t = m_times;
  const sc_time elapsed = sc_time_stamp() - m_since;
  if (m_current) {
    t.ctx[static_cast<std::size_t>(m_current->m_ctx)] += elapsed;
  } else {
    t.idle += elapsed;
  }
  return t;
}

}  // namespace qcesim::cpu
