#include "cpu/core.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "model/counter_rng.h"
#include "model/trace.h"

namespace qcesim::cpu {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

namespace {
// sc_time_stamp() without the library call: the core asks for the time several times per sync.
inline const sc_time& now() { return sc_core::sc_get_curr_simcontext()->time_stamp(); }
}  // namespace

const char* ctx_name(Ctx c) {
  switch (c) {
    case Ctx::task:
      return "task";
    case Ctx::kworker:
      return "kworker";
    case Ctx::softirq:
      return "softirq";
    case Ctx::hardirq:
      return "hardirq";
    case Ctx::ksoftirqd:
      return "ksoftirqd";
    case Ctx::idle:
      return "idle";
  }
  return "?";
}

int ctx_level(Ctx c) {
  switch (c) {
    case Ctx::hardirq:
      return 2;
    case Ctx::softirq:
      return 1;
    default:
      return 0;
  }
}

sc_time CpuTimes::busy() const {
  sc_time t = SC_ZERO_TIME;
  for (std::size_t c = 0; c < kNumCtx; ++c)
    if (static_cast<Ctx>(c) != Ctx::idle) t += ctx[c];
  return t;
}

sc_time& FnTimes::find(const char* fn) {
  for (;;) {
    const std::size_t mask = m_slots.size() - 1;
    std::size_t i = home_slot(fn);
    while (m_slots[i].first && m_slots[i].first != fn) i = (i + 1) & mask;
    if (!m_slots[i].first) {
      if (2 * (m_used + 1) > m_slots.size()) {
        grow();
        continue;
      }
      ++m_used;
      m_slots[i].first = fn;
    }
    m_last_fn = fn;
    return *(m_last = &m_slots[i].second);
  }
}

// Over half full: double and re-insert.
void FnTimes::grow() {
  std::vector<std::pair<const char*, sc_time>> old(m_slots.size() * 2);
  old.swap(m_slots);
  m_used = 0;
  m_last_fn = nullptr;
  for (const auto& e : old)
    if (e.first) (*this)[e.first] = e.second;
}

Runner::Runner(Core& core, Ctx ctx, std::string name) : m_core(core), m_ctx(ctx), m_name(std::move(name)), m_acct(ctx) {
  m_trace_outside_track.fill(-1);
  if (ctx == Ctx::idle) throw std::logic_error("runner " + m_name + ": idle is an account, not a context");
}

void Runner::outside_clock(bool on) {
  if (on) {
    outside_clock_as(m_core.interrupted(*this));
    return;
  }
  if (!m_outside_on) return;
  m_outside_on = false;
  m_acct = m_ctx;
  m_outside_open.to = m_charged;
  if (m_outside_open.to > m_outside_open.from) m_outside.push_back(m_outside_open);
}

void Runner::outside_clock_as(Ctx acct) {
  if (m_outside_on) outside_clock(false);
  m_outside_on = true;
  m_outside_open = {m_charged, m_charged, acct};
  m_acct = acct;
}

void Runner::when_done(std::function<void(const sc_time&)> fn) {
  if (m_executed == m_charged) {
    fn(now());
    return;
  }
  m_marks.emplace_back(m_charged, std::move(fn));
}

void Runner::trace_charge(const char* fn, const sc_time& cost, int item) {
  if (cost != SC_ZERO_TIME)
    m_trace_items.push_back({fn, cost, model::Tracer::active()->request(), m_core.clock_ghz(), item, m_acct});
}

void Runner::trace_moved(const sc_time& t) {
  model::Tracer* tr = model::Tracer::active();
  tr->tally(tr->request(), ctx_name(m_ctx == Ctx::ksoftirqd ? Ctx::softirq : m_ctx), t);
}

void Runner::sync() {
  // The accounting splits at charge positions, the profile at charge time: a range must close first.
  if (m_outside_on) throw std::logic_error("runner " + m_name + " synced with work outside the irq clock open");
  if (m_debt == SC_ZERO_TIME) return;
  m_debt = SC_ZERO_TIME;
  m_core.submit(*this);
  do {
    sc_core::wait(m_done);
  } while (!m_core.finish(*this));
}

void Runner::digest_charge(const char* fn, const sc_time& cost) {
  std::uint64_t& d = m_core.m_charge_digest;
  d = (d ^ (reinterpret_cast<std::uintptr_t>(fn) + cost.value() + static_cast<std::uint64_t>(m_ctx))) *
      0x9E3779B97F4A7C15ull;
  d ^= d >> 32;
}

void Runner::fingerprint(model::StateHash& h) const {
  h.add(m_active);
  h.add(m_irqs_off);
  h.add_span(m_debt);
  h.add_span(remaining());
  h.add(std::uint64_t{m_marks.size()});
  for (const auto& m : m_marks) h.add_span(m.first - m_executed);  // how much more work until each
  h.add(std::uint64_t{m_outside.size()});
  for (const Outside& o : m_outside) {
    h.add_span(o.from > m_executed ? o.from - m_executed : SC_ZERO_TIME);
    h.add_span(o.to - m_executed);
    h.add(static_cast<std::uint64_t>(o.acct));
  }
  h.add(m_outside_on);
  if (m_outside_on) {
    h.add_span(m_charged - m_outside_open.from);
    h.add(static_cast<std::uint64_t>(m_outside_open.acct));
  }
}

void Runner::block() {
  if (m_core.m_owner != this) return;
  m_core.m_owner = nullptr;
  m_core.account_until_now();
  m_core.reschedule();
  m_core.update_idle();
}

Core::Core(sc_core::sc_module_name name, unsigned id)
    : sc_core::sc_module(name), m_id(id), m_policy(std::make_shared<FreqPolicy>()) {
  m_policy->cores.push_back(this);
}

void Core::join_policy(Core& first) {
  if (first.m_policy == m_policy) return;
  auto& mine = m_policy->cores;
  mine.erase(std::remove(mine.begin(), mine.end(), this), mine.end());
  m_policy = first.m_policy;
  m_policy->cores.push_back(this);
}

void Core::set_power(const CpuPower& p) {
  m_power = p;
  m_policy->slow = 1.0;  // a core boots at its maximum clock
  m_idle_entries.assign(std::max<std::size_t>(p.idle_states.size(), 1), 0);
  m_idle_entries[0] = 1;  // idle from the start, in the shallowest state
}

void Core::set_variation(double cv, std::uint64_t seed) {
  m_cv = seed != 0 ? cv : 0.0;
  m_sigma = std::sqrt(std::log1p(m_cv * m_cv));
  m_mu = -0.5 * m_sigma * m_sigma;  // mean 1
  m_rng = seed * 0x9E3779B97F4A7C15ull + m_id;
}

double Core::variation() { return std::exp(m_mu + m_sigma * model::standard_normal(m_rng)); }

const IdleState* Core::idle_state() const {
  if (!m_idle || m_power.idle_states.empty()) return nullptr;
  return &m_power.idle_states[m_idle_state];
}

sc_time Core::idle_exit_latency() const {
  if (!m_idle || m_power.idle_states.empty()) return SC_ZERO_TIME;
  return m_power.idle_states[m_idle_state].exit_latency;
}

double Core::mean_busy_freq() const {
  sc_time busy = m_ran;
  if (m_current) busy += now() - m_since;
  return busy == SC_ZERO_TIME ? m_power.freq_max / m_policy->slow : m_busy_ghz_seconds / busy.to_seconds();
}

// The replay starts inside a run that has gone on for seconds: ondemand's first look comes after
// a sixteenth of a period, so that f_max before it is a short transient, not a quarter of a
// 2000-request replay.
sc_time Core::ondemand_period() const {
  return m_policy->looks > 0 ? m_power.sampling_rate : m_power.sampling_rate / 16;
}

// schedutil: PELT's utilisation over the time since the last look; at most once per rate limit
// the next frequency is 1.25 * f_max * util (the 80 % tipping point), the lowest OPP at or above
// it, within [f_min, f_max]. ondemand: once per sampling period, from the share of it the core
// was busy (wall time, not scaled by frequency: the kernel's idle-time accounting), the nearest
// OPP to f_min + load (f_max - f_min), or f_max above up_threshold. The look happens at the first
// change of work on any of the policy's cores after the period is over, so a period is at least
// the sampling rate long; it takes the busiest core's load or utilisation and sets every core's
// clock, after bringing the others' accounting up to now at the clock they ran.
void Core::governor_update(const sc_time& t) {
  FreqPolicy& pol = *m_policy;
  if (m_power.freq_max <= 0 || pol.looking) return;
  ++pol.updates;
  const bool ondemand = m_power.governor == Governor::ondemand;
  const sc_time since = since_look(t);
  if (ondemand ? pol.settled || since < ondemand_period() || since == SC_ZERO_TIME : since < m_power.rate_limit) return;
  pol.looking = true;
  double load = 0, util = 0;
  for (Core* c : pol.cores) {
    if (c != this) c->account_until_now();
    if (ondemand) load = std::max(load, c->m_window_busy / since);
    util = std::max(util, c->m_pelt.util());
    c->m_window_busy = SC_ZERO_TIME;
  }
  pol.looking = false;
  double f = m_power.freq_max;
  if (ondemand) {
    f = ondemand_target(m_power, load);
    // Settled: a second look in a row chose this clock, and a load 2 points either way would
    // too. A replay's load is steady (one request after another: from one period to the next it
    // moves by the share of one request in a period, 1 % for a 200 us request in the IPQ40xx's
    // 20 ms), so ondemand would keep choosing it; it looks no more, and the state can repeat for
    // the fast-forward. (A load that changes within the run, or requests over 2 % of a period,
    // would need it to keep looking.)
    const bool robust = ondemand_target(m_power, load - 0.02) == f && ondemand_target(m_power, load + 0.02) == f;
    pol.settled = pol.looks > 0 && robust && f > 0 && m_power.freq_max / f == pol.slow;
    ++pol.looks;
  } else {
    f = std::clamp(resolve_opp(m_power.opps, 1.25 * m_power.freq_max * util, true), m_power.freq_min, m_power.freq_max);
  }
  pol.at = t;
  pol.shift = SC_ZERO_TIME;
  pol.slow = f > 0 ? m_power.freq_max / f : 1.0;
}

// The idle loop: entered when nothing runs and no task holds the core, left when work arrives.
// The idle governor picks the state on entry from the periods it has seen.
void Core::update_idle() {
  const bool idle = !m_current && !m_owner;
  if (idle == m_idle) return;
  m_idle = idle;
  if (idle) {
    m_idle_since = now();
    m_idle_state = m_idle_predictor.choose(m_power.idle_states);
    if (!m_idle_entries.empty()) ++m_idle_entries[m_idle_state];
  } else {
    m_idle_predictor.observe(now() - m_idle_since);
  }
}

void Core::account_until_now() {
  const sc_time t = now();
  const sc_time elapsed = t - m_since;
  if (m_current) m_busy_ghz_seconds += elapsed.to_seconds() * m_power.freq_max / m_policy->slow;
  if (m_power.governor == Governor::schedutil) {
    m_pelt.account(elapsed, m_current != nullptr, 1.0 / m_policy->slow);
    governor_update(t);
  } else if (m_power.governor == Governor::ondemand) {
    if (m_current && !m_policy->settled) m_window_busy += elapsed;
    governor_update(t);
  }
  if (m_current) {
    m_ran += elapsed;
    Runner& r = *m_current;
    add_run(m_times, r, r.m_executed, elapsed);
    if (!r.m_trace_items.empty() && elapsed != SC_ZERO_TIME) trace_run(r, m_since, elapsed);
    const sc_time before = r.m_executed;
    r.m_executed += elapsed;
    while (!r.m_outside.empty() && r.m_outside.front().to <= r.m_executed) r.m_outside.pop_front();
    while (!r.m_marks.empty() && r.m_marks.front().first <= r.m_executed) {
      auto mark = std::move(r.m_marks.front());
      r.m_marks.pop_front();
      mark.second(m_since + (mark.first - before));
    }
  } else {
    m_times.idle += elapsed;
  }
  m_since = t;
}

void Core::add_run(CpuTimes& t, const Runner& r, sc_time executed, sc_time elapsed) {
  for (const Runner::Outside& o : r.m_outside) {
    if (elapsed == SC_ZERO_TIME || o.from >= executed + elapsed) break;
    if (o.to <= executed) continue;
    if (o.from > executed) {  // the runner's own work before the range
      t.ctx[static_cast<std::size_t>(r.m_ctx)] += o.from - executed;
      elapsed -= o.from - executed;
      executed = o.from;
    }
    const sc_time in = std::min(o.to - executed, elapsed);
    t.ctx[static_cast<std::size_t>(o.acct)] += in;
    if (o.acct == Ctx::idle) t.idle += in;
    elapsed -= in;
    executed += in;
  }
  t.ctx[static_cast<std::size_t>(r.m_ctx)] += elapsed;
}

// Linux's view: the highest context below hardirq that is running or preempted (reschedule's
// order), or the task holding the core between its syncs; idle when there is none. A thread
// running with interrupts off is switching away (to the idle task, or to the next thread
// waiting), which takes the interrupt.
Ctx Core::interrupted(const Runner& by) const {
  const Runner* switching = m_current && m_current->m_irqs_off ? m_current : nullptr;
  const Runner* best = nullptr;
  for (const Runner* r : m_waiting)
    if (r != &by && r != switching && ctx_level(r->m_ctx) < ctx_level(Ctx::hardirq) && (!best || runs_before(r, best)))
      best = r;
  if (best) return best->m_ctx;
  return m_owner && m_owner != switching ? m_owner->m_ctx : Ctx::idle;
}

// The timeline's track for a runner's work outside the irqtime clock, by the context it is
// counted as: beside the runner's own, so that every span on a cpu track has one account.
int Core::outside_track(Runner& r, Ctx acct) {
  int& t = r.m_trace_outside_track[static_cast<std::size_t>(acct)];
  if (t < 0)
    t = model::Tracer::active()->track("cpu" + std::to_string(m_id),
                                       std::string(ctx_name(r.m_ctx)) + " (as " + ctx_name(acct) + ")", "cpu",
                                       ctx_name(acct));
  return t;
}

// The runner ran its charged items in order for `elapsed` from `from`: one span per item, split
// only where something preempted it (pieces that touch are joined).
void Core::trace_run(Runner& r, sc_time from, sc_time elapsed) {
  model::Tracer* tr = model::Tracer::active();
  if (!tr) {
    r.m_trace_items.clear();
    return;
  }
  if (r.m_trace_track < 0) {
    const std::string ctx = ctx_name(r.m_ctx);
    const std::string label = r.m_ctx == Ctx::task                                 ? "task: " + r.m_name
                              : r.m_ctx == Ctx::hardirq || r.m_ctx == Ctx::softirq ? ctx
                                                                                   : r.m_name;
    r.m_trace_track = tr->track("cpu" + std::to_string(m_id), label, "cpu", ctx);
  }
  while (elapsed != SC_ZERO_TIME && !r.m_trace_items.empty()) {
    Runner::TraceItem& it = r.m_trace_items.front();
    const sc_time take = std::min(it.left, elapsed);
    if (r.m_trace_open && r.m_trace_end == from) {
      r.m_trace_end = from + take;
    } else {
      if (r.m_trace_open)
        tr->span(r.m_trace_open_track, it.fn, r.m_trace_start, r.m_trace_end, it.request, "", it.ghz, r.m_trace_item);
      r.m_trace_open = true;
      r.m_trace_item = it.item;
      r.m_trace_open_track = it.acct == r.m_ctx ? r.m_trace_track : outside_track(r, it.acct);
      r.m_trace_start = from;
      r.m_trace_end = from + take;
    }
    from += take;
    elapsed -= take;
    it.left -= take;
    if (it.left == SC_ZERO_TIME) {
      // Consecutive items of one function (a base cost and its per-entry part) make one span.
      const bool joins = r.m_trace_items.size() > 1 && r.m_trace_items[1].fn == it.fn &&
                         r.m_trace_items[1].request == it.request && r.m_trace_items[1].ghz == it.ghz &&
                         r.m_trace_items[1].acct == it.acct;
      if (!joins) {
        tr->span(r.m_trace_open_track, it.fn, r.m_trace_start, r.m_trace_end, it.request, "", it.ghz, r.m_trace_item);
        r.m_trace_open = false;
      }
      r.m_trace_items.pop_front();
    }
  }
}

void Core::submit(Runner& r) {
  if (r.m_active) throw std::logic_error("runner " + r.m_name + " synced twice at once");
  account_until_now();
  r.m_active = true;
  r.m_seq = ++m_seq;
  m_waiting.push_back(&r);
  reschedule();
  update_idle();
}

// reschedule()'s order: whether `a` runs before `b`. Work running with interrupts off keeps the
// core; then the higher level; within a level the task holding the core, then the one running,
// then the earliest arrival.
bool Core::runs_before(const Runner* a, const Runner* b) const {
  if (a == m_current && a->m_irqs_off) return true;
  if (b == m_current && b->m_irqs_off) return false;
  if (ctx_level(a->m_ctx) != ctx_level(b->m_ctx)) return ctx_level(a->m_ctx) > ctx_level(b->m_ctx);
  if (a == m_owner) return true;  // task level runs until it sleeps
  if (b == m_owner) return false;
  if (a == m_current) return true;
  if (b == m_current) return false;
  return a->m_seq < b->m_seq;
}

// Runs the highest level; within a level the one already running stays (task-level threads
// do not preempt each other), otherwise the earliest arrival. Work running with interrupts off
// keeps the core whatever arrives.
void Core::reschedule() {
  Runner* best = nullptr;
  for (Runner* r : m_waiting)
    if (!best || runs_before(r, best)) best = r;
  // The same work keeps running to the same end: leave its completion event alone (most
  // submissions are of lower contexts, and re-queuing a timed event costs the kernel a heap
  // operation).
  const sc_time left = best ? best->remaining() : SC_ZERO_TIME;
  const sc_time at = now() + left;
  if (best && best == m_current && m_complete_pending && m_complete_at == at) return;
  if (m_current && m_complete_pending) m_current->m_done.cancel();
  m_current = best;
  m_complete_pending = best != nullptr;
  if (best) {
    m_complete_at = at;
    best->m_done.notify(left);
  }
}

bool Core::finish(Runner& r) {
  account_until_now();
  if (r.remaining() != SC_ZERO_TIME) return false;
  if (&r == m_current) {
    m_current = nullptr;  // its event has fired
    m_complete_pending = false;
  }
  if (ctx_level(r.m_ctx) == 0) m_owner = &r;
  r.m_active = false;
  m_waiting.erase(std::find(m_waiting.begin(), m_waiting.end(), &r));
  reschedule();
  update_idle();
  return true;
}

void Core::fingerprint(model::StateHash& h) const {
  // The waiting runners in arrival order (reschedule() compares only their order).
  std::vector<const Runner*> waiting(m_waiting.begin(), m_waiting.end());
  std::sort(waiting.begin(), waiting.end(), [](const Runner* a, const Runner* b) { return a->m_seq < b->m_seq; });
  h.add(std::uint64_t{waiting.size()});
  for (const Runner* r : waiting) h.add(r);
  h.add(m_owner);
  h.add(m_current);
  // How long an idle core has slept is left out: it decides nothing until something wakes the
  // core (the idle predictor then records it, and that is in the state from then on), and a
  // core nothing wakes (the second core of a one-task replay) would otherwise never repeat.
  if (!m_idle) h.add_at(m_since);
  h.add(m_complete_pending);
  if (m_complete_pending) h.add_at(m_complete_at);
  h.add(m_policy->slow);
  if (m_cv > 0) h.add(m_rng);  // a draw to come: never the same state twice
  const FreqPolicy& pol = *m_policy;
  if (m_power.governor == Governor::schedutil) {
    m_pelt.fingerprint(h);
    // Only whether the rate limit has passed, and how far it is if not, decides the next update.
    h.add_span(std::min(since_look(h.now()), m_power.rate_limit));
  } else if (m_power.governor == Governor::ondemand) {
    // Until it settles, which look comes next; not the period's busy time and length so far,
    // which change nothing before that look (repeat_horizon() keeps a skip short of it and
    // skip_cycles() moves them on). (The policy's state is hashed by each of its cores: the same
    // values, harmless twice.)
    h.add(pol.settled);
    if (!pol.settled) h.add(std::uint64_t{pol.looks});
  }
  h.add(m_idle);
  if (m_idle) h.add(std::uint64_t{m_idle_state});
  if (m_power.idle_states.size() > 1) m_idle_predictor.fingerprint(h);
}

// A look can come only at a change of work on one of the policy's cores (a governor call) once
// the period is over. A cycle with no call repeats none, so no look can fall in the skip however
// long; otherwise the skipped cycles must end strictly before the period does (a call at the
// very instant it ends looks).
sc_time Core::repeat_horizon() const {
  const FreqPolicy& pol = *m_policy;
  if (m_power.freq_max <= 0 || m_power.governor != Governor::ondemand || pol.settled) return sc_core::sc_max_time();
  if (pol.updates == m_cycle_updates) return sc_core::sc_max_time();  // (a look is a call too)
  const sc_time since = since_look(now()), period = ondemand_period();
  return since >= period ? SC_ZERO_TIME : period - since;
}

// When the repeated cycle had no look, the skipped cycles lengthen the period that is under way:
// their time (once per policy) and each core's busy time. (A governor that looked in the cycle
// looks in every one: the time since its look repeats with the rest of its state.)
void Core::skip_cycles(std::uint64_t n, const sc_time& span) {
  FreqPolicy& pol = *m_policy;
  if (m_power.freq_max <= 0 || pol.at != m_cycle_look_at) return;
  if (pol.cores.front() == this) pol.shift += sc_time::from_value(span.value() * n);
  m_window_busy += sc_time::from_value((m_window_busy - m_cycle_window_busy).value() * n);
}

std::map<std::pair<Ctx, std::string>, sc_time> Core::profile() const {
  std::map<std::pair<Ctx, std::string>, sc_time> out;
  for (std::size_t c = 0; c < kNumCtx; ++c)
    m_fn_time[c].for_each([&](const char* fn, const sc_time& t) { out[{static_cast<Ctx>(c), fn}] += t; });
  return out;
}

CpuTimes Core::times() const {
  CpuTimes t = m_times;
  const sc_time elapsed = now() - m_since;
  if (m_current) {
    add_run(t, *m_current, m_current->m_executed, elapsed);
  } else {
    t.idle += elapsed;
  }
  return t;
}

}  // namespace qcesim::cpu
