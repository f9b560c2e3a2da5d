#include "studies/request_loop.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cpu/kernel.h"
#include "model/state_hash.h"
#include "model/trace.h"

namespace qcesim::studies {

using sc_core::sc_time;

void record_latency(model::LatencyStats& lat, std::uint64_t id, const sc_time& t0, const sc_time& end) {
  lat.add((end - t0).to_seconds() * 1e9);
  if (auto* tr = model::Tracer::active()) tr->request_span(static_cast<std::int64_t>(id), t0, end);
}

namespace {

void trace_request(std::uint64_t id) {
  if (auto* tr = model::Tracer::active()) tr->set_request(static_cast<std::int64_t>(id));
}

// A part of the caller's own work around message m's crypto call (RequestLoopConfig::caller).
using CallerPart = std::vector<cpu::Charge> CallerCharges::*;
void charge_caller(cpu::Runner& r, const RequestWorkload& w, const RequestLoopConfig& c, std::size_t m,
                   std::initializer_list<CallerPart> parts) {
  if (!c.caller) return;
  const CallerCharges& ch = c.caller(w.message_bytes(m));
  for (const CallerPart part : parts)
    for (const cpu::Charge& x : ch.*part) r.charge(x);
}

// What the caller runs once message m's call has returned: `after`, and before it the wait part
// where that runs whatever the call did (CallerCharges::wait_always: the AIO caller's eventfd read)
// and the caller never came to wait (a call that completed in it, or before the caller waited).
void charge_after_call(cpu::Runner& r, const RequestWorkload& w, const RequestLoopConfig& c, std::size_t m,
                       bool waited) {
  if (!c.caller) return;
  if (!waited && c.caller(w.message_bytes(m)).wait_always) charge_caller(r, w, c, m, {&CallerCharges::wait});
  charge_caller(r, w, c, m, {&CallerCharges::after});
}

// How many messages of the pool come round before what decides a request's timing does: the
// smallest p (a divisor of the pool's size) for which message m and message m % p have the same
// length and, on the engine path, engine requests and driver route. Every message's buffer starts
// on a page of its own, and the bytes themselves time nothing, so a pool of alike messages has
// period 1 and the fast-forward looks for a cycle of requests, not of the pool's 64 messages.
std::size_t timing_period(const RequestWorkload& w, bool engine) {
  const std::size_t n = w.pool_size();
  const auto alike = [&](std::size_t a, std::size_t b) {
    if (w.message_bytes(a) != w.message_bytes(b)) return false;
    return !engine || (w.engine_steps(a) == w.engine_steps(b) && w.driver_fallback(a) == w.driver_fallback(b));
  };
  for (std::size_t p = 1; p < n; ++p) {
    if (n % p) continue;
    bool same = true;
    for (std::size_t m = p; same && m < n; ++m) same = alike(m, m % p);
    if (same) return p;
  }
  return std::max<std::size_t>(n, 1);
}

// Where the fast-forward may start looking: with real data once every message of the pool has
// gone through the simulated path (its descriptors, the BAM and the registers) once; timing only,
// at once.
std::uint64_t first_boundary(const RequestWorkload& w) { return w.real_data() ? w.pool_size() : 0; }

// The CPU path: cpu_batch() messages per call of the software implementation, each call's
// latency charged to its messages.
void run_cpu(soc::Emulator& e, RequestWorkload& w, const RequestLoopConfig& c, model::LatencyStats& lat,
             VariantResult& res, const RequestTick& tick, FastForward& ff) {
  const unsigned batch = w.cpu_batch();
  const std::size_t period = timing_period(w, false);
  const std::uint64_t first = first_boundary(w);
  for (std::uint64_t i = 0; i < c.messages; i += batch) {
    const std::uint64_t skip = i >= first ? ff.at_boundary(i, c.messages, i % period) : 0;
    if (skip) {
      if (const auto check = w.skipped_checker(false)) res.digest_mismatches += ff.check_skipped(i, skip, check);
      i += skip;
      if (i >= c.messages) break;
    }
    tick(i);
    const unsigned n = static_cast<unsigned>(std::min<std::uint64_t>(batch, c.messages - i));
    const sc_time t0 = sc_core::sc_time_stamp();
    trace_request(i);
    for (unsigned k = 0; k < n; ++k) charge_caller(e.task(), w, c, (i + k) % w.pool_size(), {&CallerCharges::before});
    res.digest_mismatches += w.software(i, n);
    // The software tfm completes in the call: the caller's completion work there, then its own.
    for (unsigned k = 0; k < n; ++k) {
      charge_caller(e.task(), w, c, (i + k) % w.pool_size(), {&CallerCharges::completion});
      charge_after_call(e.task(), w, c, (i + k) % w.pool_size(), false);
    }
    res.issued += n;
    res.completed += n;
    e.task().sync();
    const sc_time t1 = sc_core::sc_time_stamp();
    for (unsigned k = 0; k < n; ++k) record_latency(lat, i + k, t0, t1);
  }
}

// The engine path: up to queue_depth messages in flight through the driver, each one engine
// request or several in turn (a hash's update, then its final once the caller has woken).
class EnginePath {
 public:
  EnginePath(soc::Emulator& e, RequestWorkload& w, const RequestLoopConfig& c, model::LatencyStats& lat,
             VariantResult& res, const RequestTick& tick, FastForward& ff)
      : m_e(e),
        m_task(e.task()),
        m_w(w),
        m_c(c),
        m_lat(lat),
        m_res(res),
        m_tick(tick),
        m_ff(ff),
        m_slots(c.queue_depth),
        m_freed(e.kernel()),
        m_period(timing_period(w, true)),
        m_first(first_boundary(w)) {}

  void run() {
    while (m_finished < m_c.messages) {
      if (m_submitted >= m_first)
        if (const std::uint64_t n = m_ff.at_boundary(m_submitted, m_c.messages, loop_state())) skip(n);
      // What the caller does once its finished messages' calls return (the read's frees, the
      // system calls that collect the result), then failed requests (the caller redoes them as
      // it gets the CPU back), then the next steps of messages under way, then new ones.
      charge_after();
      for (std::size_t i = 0; i < m_slots.size(); ++i)
        if (m_slots[i].fallback) fall_back(m_slots[i]);
      for (std::size_t i = 0; i < m_slots.size(); ++i)
        if (m_slots[i].next_due) submit_step(i);
      for (std::size_t i = 0; i < m_slots.size(); ++i)
        if (!m_slots[i].busy && m_submitted < m_c.messages) submit(i);
      // Wait for the engine unless the caller has something to do (a failed request's redo, a
      // message's next step); a completion that came while the caller itself polled is taken at
      // once.
      const bool caller_due =
          std::any_of(m_slots.begin(), m_slots.end(), [](const Slot& s) { return s.fallback || s.next_due; });
      const auto busy = std::find_if(m_slots.begin(), m_slots.end(), [](const Slot& s) { return s.busy; });
      if (!caller_due && (busy != m_slots.end() || m_freed.done())) {
        if (busy != m_slots.end()) charge_wait(busy->msg);
        if (!m_freed.wait_for(m_task, m_c.timeout))
          throw qce::QceError("a request did not complete within " + m_c.timeout.to_string());
      } else if (busy == m_slots.end()) {
        // Nothing in flight (the driver's software route took every new message): the caller's
        // work so far runs now, turn by turn, rather than owed to the end of the run, unseen by
        // the governor and repeated by the fast-forward as one stretch.
        m_task.sync();
      }
      if (!m_failure.empty()) throw qce::QceError("request failed: " + m_failure);
    }
    charge_after();
  }

 private:
  struct Slot {
    sc_time t0;
    std::size_t msg = 0;
    std::uint64_t id = 0;  // the request's number in the run
    unsigned step = 0;     // the message's engine request in flight (engine_steps)
    bool busy = false;
    bool next_due = false;   // a step done: the caller issues the next when it runs again
    bool fallback = false;   // failed: the caller redoes it in software when it runs again
    bool after_due = false;  // its message done: the caller's work after the call is still to run
    bool waited = false;     // the caller's wait part charged for this message
  };

  // The caller's way to its sleep, in which a completion finds it still running: what it runs
  // when the call has not completed yet (a completion already in finds crypto_wait_req returning
  // at once), and the AIO caller's eventfd read whatever the call did, once per message.
  void charge_wait(std::size_t msg) {
    if (!m_c.caller) return;
    const CallerCharges& ch = m_c.caller(m_w.message_bytes(msg));
    if (!ch.wait_always && m_freed.done()) return;
    for (Slot& s : m_slots)
      if (s.busy) s.waited = true;
    for (const cpu::Charge& x : ch.wait) m_task.charge(x);
  }

  // The caller's work after its finished messages' calls, in its task (first the AIO caller's
  // eventfd read where the call completed before the caller came to wait).
  void charge_after() {
    for (Slot& s : m_slots)
      if (s.after_due) {
        charge_after_call(m_task, m_w, m_c, s.msg, s.waited);
        s.after_due = false;
      }
  }

  // The loop's part of the state (studies/fast_forward.h): the next message's place in the
  // pool (modulo its timing period), the requests in flight, each slot, and the workload's own part.
  std::uint64_t loop_state() const {
    model::StateHash h(sc_core::sc_time_stamp());
    h.add(std::uint64_t{m_submitted % m_period});
    h.add(m_submitted - m_finished);
    m_w.add_state(h, m_submitted);
    for (const Slot& s : m_slots) {
      h.add(s.busy);
      h.add(s.fallback);
      h.add(s.next_due);
      h.add(s.after_due);
      h.add(s.waited);
      if (s.after_due) h.add(std::uint64_t{s.msg % m_period});
      h.add(std::uint64_t{s.step});
      if (!s.busy) continue;
      h.add(m_submitted - s.id);
      h.add_at(s.t0);
    }
    m_freed.fingerprint(h);
    return h.value();
  }

  // A fast-forward skipped n requests (whole cycles): with real data, their outputs checked.
  void skip(std::uint64_t n) {
    if (const auto check = m_w.skipped_checker(true))
      m_res.digest_mismatches += m_ff.check_skipped(m_submitted, n, check);
    m_submitted += n;
    m_finished += n;
    m_w.skipped(n);
    for (Slot& s : m_slots)
      if (s.busy) s.id += n;
    m_tick(m_finished);
  }

  void submit(std::size_t slot) {
    Slot& s = m_slots[slot];
    const std::uint64_t id = m_submitted;
    s.msg = id % m_w.pool_size();
    if (const std::optional<cpu::Cost> entry = m_w.driver_fallback(s.msg)) {
      software_route(id, *entry);
      return;
    }
    m_w.before_submit(id);
    s.busy = true;
    s.waited = false;
    s.id = id;
    s.step = 0;
    // The caller starts the request when it has the CPU again.
    m_task.when_done([sp = &s](const sc_time& t) { sp->t0 = t; });
    ++m_submitted;
    ++m_res.issued;
    trace_request(id);
    charge_caller(m_task, m_w, m_c, s.msg, {&CallerCharges::before});
    submit_step(slot);
  }

  // The slot's message's current step to the driver.
  void submit_step(std::size_t slot) {
    Slot& s = m_slots[slot];
    s.next_due = false;
    qce::QceAsyncRequest& req = m_w.engine_request(slot, s.msg, s.step);
    req.complete = [this, slot](cpu::Runner& k, const qce::QceStatus& st) { complete(k, slot, st); };
    trace_request(s.id);
    m_e.qce().enqueue(m_task, req);
  }

  // qce_*_crypt hands the request to its fallback tfm: done at once in the caller's context,
  // from when the task gets here (its charges so far may not have been synced yet).
  void software_route(std::uint64_t id, cpu::Cost entry) {
    ++m_submitted;
    ++m_res.issued;
    trace_request(id);
    auto t0 = std::make_shared<sc_time>();
    m_task.when_done([t0](const sc_time& t) { *t0 = t; });
    const std::size_t m = id % m_w.pool_size();
    charge_caller(m_task, m_w, m_c, m, {&CallerCharges::before});
    m_task.charge(m_e.kernel().costs()(entry));
    m_res.digest_mismatches += m_w.software(id, 1);
    // The fallback tfm completes in the call.
    charge_caller(m_task, m_w, m_c, m, {&CallerCharges::completion});
    charge_after_call(m_task, m_w, m_c, m, false);
    ++m_res.software;
    ++m_res.completed;
    ++m_finished;
    m_tick(m_finished);
    m_task.when_done([&lat = m_lat, id, t0](const sc_time& end) { record_latency(lat, id, *t0, end); });
  }

  // The request's completion, in the kworker.
  void complete(cpu::Runner& k, std::size_t slot, const qce::QceStatus& st) {
    Slot& s = m_slots[slot];
    // The message's last request done (or failed): what the caller's path runs in the completion
    // context (an AIO read's callback), before the caller is woken.
    if (st.failed() || s.step + 1 >= m_w.engine_steps(s.msg)) {
      charge_caller(k, m_w, m_c, s.msg, {&CallerCharges::completion});
      s.after_due = m_c.caller != nullptr;  // charged before the slot takes a new message
    }
    if (st.failed()) {
      ++m_res.failed_requests;
      if (!m_c.failures_expected && m_failure.empty()) m_failure = st.why;
      if (m_res.race.empty()) m_res.race = st.why;
      if (m_c.cpu_fallback) {
        s.fallback = true;
        m_freed.complete(k);
        return;
      }
      ++m_res.failed;
    } else if (s.step + 1 < m_w.engine_steps(s.msg)) {
      // The caller wakes and issues the next step (crypto_wait_req returns, the next call).
      ++s.step;
      s.next_due = true;
      m_freed.complete(k);
      return;
    } else {
      ++m_res.completed;
      if (m_w.engine_output_wrong(slot, s.msg)) ++m_res.digest_mismatches;
    }
    // The callback's moment is when the kworker gets there: after the work charged before it
    // and after the softirq work that preempts it. The slot is reused before that moment: take
    // its request's number and start now.
    k.when_done([&lat = m_lat, id = s.id, t0 = s.t0](const sc_time& end) { record_latency(lat, id, t0, end); });
    s.busy = false;
    ++m_finished;
    m_tick(m_finished);
    m_freed.complete(k);
  }

  // A failed request the caller redoes with the software implementation (as a user of the
  // crypto API would on -EIO): its latency ends when that is done; its output is checked.
  void fall_back(Slot& s) {
    trace_request(s.id);
    m_res.digest_mismatches += m_w.software(s.id, 1);
    m_task.when_done([&lat = m_lat, id = s.id, t0 = s.t0](const sc_time& end) { record_latency(lat, id, t0, end); });
    s.fallback = s.busy = s.next_due = false;
    ++m_res.fallback;
    ++m_finished;
    m_tick(m_finished);
  }

  soc::Emulator& m_e;
  cpu::Runner& m_task;
  RequestWorkload& m_w;
  const RequestLoopConfig& m_c;
  model::LatencyStats& m_lat;
  VariantResult& m_res;
  const RequestTick& m_tick;
  FastForward& m_ff;
  std::vector<Slot> m_slots;
  cpu::Completion m_freed;
  const std::size_t m_period;   // timing_period(m_w, true)
  const std::uint64_t m_first;  // first_boundary(m_w)
  std::string m_failure;
  std::uint64_t m_submitted = 0, m_finished = 0;
};

}  // namespace

void run_requests(soc::Emulator& e, RequestWorkload& w, const RequestLoopConfig& c, bool engine,
                  model::LatencyStats& lat, VariantResult& res, const RequestTick& tick, FastForward& ff) {
  if (engine) {
    EnginePath(e, w, c, lat, res, tick, ff).run();
  } else {
    run_cpu(e, w, c, lat, res, tick, ff);
  }
}

}  // namespace qcesim::studies
