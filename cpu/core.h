// One CPU core of the timed model. A core runs one execution context at a time: hardirq over
// softirq over task level (task and kworker threads, first come first served). Software runs as
// SystemC threads, each bound to one context of one core through a Runner; a Runner charges named
// costs (kernel function names) and syncs, which blocks it until the core has given it that much
// CPU time. A higher context preempts a lower one, and the preempted work resumes afterwards and
// finishes later by exactly the time taken from it. Time is accounted per context the way Linux
// does with CONFIG_IRQ_TIME_ACCOUNTING, and per (context, function) for profiles.
//
// The core is event-driven: the running work's thread sleeps on its own timed event, armed for
// when its work will be done and re-armed on preemption; nothing ticks and no process of the
// core's own sits between the threads.
#pragma once

#include <array>
#include <cmath>
#include <deque>
#include <functional>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

#include "cpu/power.h"
#include "model/timing_state.h"
#include "model/state_hash.h"
#include "model/trace.h"

namespace qcesim::cpu {

// ksoftirqd runs softirq work as a thread (task level) and is accounted as softirq, as
// CONFIG_IRQ_TIME_ACCOUNTING does. `idle` is an account, never a thread's context: the work an
// interrupt does on an idle CPU outside Linux's irqtime clock (Runner::outside_clock), which the
// kernel counts as idle time.
enum class Ctx : std::uint8_t { task = 0, kworker = 1, softirq = 2, hardirq = 3, ksoftirqd = 4, idle = 5 };
constexpr std::size_t kNumCtx = 6;
const char* ctx_name(Ctx c);
// Scheduling level: hardirq 2, softirq 1, task, kworker and ksoftirqd 0.
int ctx_level(Ctx c);

// As Linux counts it: ctx[idle] is the part of `idle` the core spent in interrupt entry and exit
// outside the irqtime clock, which busy() leaves out.
struct CpuTimes {
  std::array<sc_core::sc_time, kNumCtx> ctx{};  // busy time per context
  sc_core::sc_time idle;
  sc_core::sc_time busy() const;
  sc_core::sc_time of(Ctx c) const { return ctx[static_cast<std::size_t>(c)]; }
};

class Core;

// CPU time per function name, keyed by the name's address (charges pass string literals, so
// no string is built per charge; Core::profile() merges equal names). Open addressing on the
// pointer: charge() runs for every cost item, and a std::unordered_map lookup cost several
// percent of a replay.
class FnTimes {
 public:
  // Sparse (a few dozen names per context): most names then sit at their home slot.
  FnTimes() : m_slots(256) {}
  // Runs of the same item (writel after writel) skip the probe; a name found at its home slot
  // needs no call.
  sc_core::sc_time& operator[](const char* fn) {
    if (fn == m_last_fn) return *m_last;
    auto& home = m_slots[home_slot(fn)];
    if (home.first != fn) return find(fn);
    m_last_fn = fn;
    return *(m_last = &home.second);
  }
  template <class F>
  void for_each(F&& f) const {
    for (const auto& s : m_slots)
      if (s.first) f(s.first, s.second);
  }

 private:
  std::size_t home_slot(const char* fn) const {
    return (reinterpret_cast<std::uintptr_t>(fn) * 0x9E3779B97F4A7C15ull >> 32) & (m_slots.size() - 1);
  }
  sc_core::sc_time& find(const char* fn);
  void grow();
  std::vector<std::pair<const char*, sc_core::sc_time>> m_slots;  // size: a power of two
  std::size_t m_used = 0;
  // The last item looked up (slots move only on growth).
  const char* m_last_fn = nullptr;
  sc_core::sc_time* m_last = nullptr;
};

// Work charged under a kernel function's name (cpu/costs.h builds these from the cost items).
// `scales`: CPU-bound work, given at the core's maximum clock, that stretches when the governor
// lowers the frequency; otherwise a wait (an uncached read's bus round trip) that does not.
// A cost item (item >= 0) is timed by the charging core's own table (cpu/costs.h: an instruction
// count at its IPC and clock, or a wait), `count` times; otherwise `time` is the charge.
struct Charge {
  const char* fn;
  sc_core::sc_time time;
  bool scales = false;
  int item = -1;
  double count = 1;
  bool moved = false;  // time is cache lines taken from the other core (Costs::lines_moved)
};

// Per cost item (by index): one call's time on this core at its maximum clock, and whether it is
// CPU-bound work that stretches when the clock drops.
struct ItemTimes {
  std::vector<sc_core::sc_time> time;
  std::vector<bool> scales;
  std::vector<sc_core::sc_time> moved;  // the cache lines taken from the other core: a wait, never scaled
};

// A thread's seat on a core in one context.
class Runner {
 public:
  Runner(Core& core, Ctx ctx, std::string name);
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Adds `cost` of work in function `fn` to what this thread owes the core. Inline: the
  // driver flows charge about a hundred items per request.
  void charge(const char* fn, const sc_core::sc_time& cost, int item = -1) {
    m_debt += cost;
    m_charged += cost;
    if (model::Tracer::active()) trace_charge(fn, cost, item);
    fn_time(fn) += cost;
    note_charge(fn, cost);
  }
  void charge(const Charge& c);
  // Blocks until the core has executed everything charged so far (preempted as needed).
  void sync();
  void run(const char* fn, const sc_core::sc_time& cost) {
    charge(fn, cost);
    sync();
  }
  // Calls fn with the simulated time at which the CPU will have run everything charged so far
  // (this thread's "now" as the hardware sees it), without a sync: at once if nothing is owed,
  // else when the core gets there, preemptions included.
  void when_done(std::function<void(const sc_core::sc_time&)> fn);

  // Task level: the thread is about to sleep (wait for a completion or for work), so it gives
  // up the core; until then it keeps the core between its syncs (no wake-up preemption).
  void block();

  // local_irq_disable()/enable(): while on, the work this thread runs is not preempted (an
  // interrupt or softirq that arrives waits for it), once the core has started it. __schedule
  // runs so from before the sleeper leaves the run queue to the end of the switch. Set and
  // cleared with nothing owed (after a sync): the flag covers the work charged in between.
  void irqs_off(bool on) { m_irqs_off = on; }

  // Linux's irqtime clock (CONFIG_IRQ_TIME_ACCOUNTING) runs from account_hardirq_enter to
  // account_hardirq_exit and from account_softirq_enter to account_softirq_exit; what an
  // interrupt does before and after (the exception's entry and return, irq_enter_rcu's tick
  // work) is charged to the context it interrupted, idle when it woke the core. Work charged
  // while this is on runs here, at this context's level, but is accounted (times and profile)
  // to the context the core would run without it, decided now; outside_clock_as() names it (an
  // interrupt's exit is counted as what its entry interrupted, whatever was raised meanwhile).
  void outside_clock(bool on);
  void outside_clock_as(Ctx acct);
  // The context this thread's charges are accounted to now: its own, or the interrupted one.
  Ctx accounted() const { return m_acct; }

  Ctx ctx() const { return m_ctx; }
  const sc_core::sc_time& debt() const { return m_debt; }
  // What decides this thread's future on the core: owed and charged work, its when_done marks.
  void fingerprint(model::StateHash& h) const;
  Core& core() { return m_core; }
  const std::string& name() const { return m_name; }

 private:
  friend class Core;
  void trace_charge(const char* fn, const sc_core::sc_time& cost, int item);
  void trace_moved(const sc_core::sc_time& t);  // explain's tally of the lines waited for
  sc_core::sc_time& fn_time(const char* fn);
  inline void note_charge(const char* fn, const sc_core::sc_time& cost);
  void digest_charge(const char* fn, const sc_core::sc_time& cost);
  Core& m_core;
  Ctx m_ctx;
  std::string m_name;
  sc_core::sc_time m_debt;  // charged, not yet synced
  bool m_active = false;
  bool m_irqs_off = false;
  std::uint64_t m_seq = 0;  // arrival order at its level
  // Timeline (only while a model::Tracer is installed): the charged items not yet run, each
  // with the request it was charged for, and the piece of the front item running now.
  struct TraceItem {
    const char* fn;
    sc_core::sc_time left;
    std::int64_t request;
    double ghz;  // the core's clock when the item was charged (work items are timed at it)
    int item;    // the cost item (cpu/costs.h), -1 for a charge by time
    Ctx acct;    // the context it is accounted to (outside_clock)
  };
  std::deque<TraceItem> m_trace_items;
  // All work ever charged and all the core has run; what a sync in progress still owes follows.
  sc_core::sc_time m_charged, m_executed;
  sc_core::sc_time remaining() const { return m_charged - m_debt - m_executed; }
  // when_done(): positions in m_charged and what to call there.
  std::deque<std::pair<sc_core::sc_time, std::function<void(const sc_core::sc_time&)>>> m_marks;
  // outside_clock(): ranges of m_charged accounted to another context, and the open one.
  struct Outside {
    sc_core::sc_time from, to;
    Ctx acct;
  };
  std::deque<Outside> m_outside;
  bool m_outside_on = false;
  Outside m_outside_open{};
  Ctx m_acct;  // where charges go in the profile now: m_ctx, or the open range's account
  int m_trace_track = -1;
  std::array<int, kNumCtx> m_trace_outside_track{};  // per account: outside_clock's spans (-1: none yet)
  int m_trace_open_track = -1;                       // the open span's track
  bool m_trace_open = false;
  sc_core::sc_time m_trace_start, m_trace_end;
  int m_trace_item = -1;     // the open span's cost item: its first (a base cost before its per-entry part)
  sc_core::sc_event m_done;  // timed: fires when the core will have run all of remaining()
};

class Core;

// One cpufreq policy: the cores one governor sets the clock of (Linux's policy: a cluster of one
// core type). Its look takes the busiest of them: ondemand the highest load, schedutil the
// highest utilisation (sugov_next_freq_shared).
struct FreqPolicy {
  std::vector<Core*> cores;
  double slow = 1.0;          // f_max / f, for every core of the policy
  sc_core::sc_time at;        // the governor's last look
  sc_core::sc_time shift;     // simulated time the fast-forward repeated since then (the clock stayed)
  unsigned looks = 0;         // ondemand: looks taken
  std::uint64_t updates = 0;  // calls of the governor (each change of work on a core): a look can come only at one
  bool settled = false;       // ondemand: the clock is settled (no more looks)
  bool looking = false;       // a look in progress (it brings the other cores' accounting up to now)
};

class Core : public sc_core::sc_module, public model::TimingState {
 public:
  Core(sc_core::sc_module_name name, unsigned id);

  unsigned id() const { return m_id; }
  // Whether anything has run here yet: the CPUs a workload never touches are left out of its
  // idle time.
  bool used() const { return m_seq > 0; }
  // Totals up to now (the running work counted up to the present instant).
  CpuTimes times() const;
  // CPU time per (context, function name).
  std::map<std::pair<Ctx, std::string>, sc_core::sc_time> profile() const;
  // The context running now, or nothing.
  const Runner* running() const { return m_current; }

  // The governors (cpu/power.h). Before the simulation starts.
  void set_power(const CpuPower& p);
  // Share `first`'s cpufreq policy (one clock for both, set by the busier). Before the
  // simulation starts; a core is alone in its policy until then.
  void join_policy(Core& first);
  // What each cost item takes on this core (cpu/costs.h's item_times). Before the simulation starts.
  void set_item_times(ItemTimes t) { m_items = std::move(t); }
  const ItemTimes& item_times() const { return m_items; }
  // How long an interrupt arriving now waits for the core to wake: the exit latency of the idle
  // state it sleeps in, zero when it is not idle.
  sc_core::sc_time idle_exit_latency() const;
  // The idle state the core sleeps in now (nullptr when it is not idle or has none).
  const IdleState* idle_state() const;
  // When the work running now with interrupts off ends (an interrupt arriving meanwhile waits for
  // it); zero when the core runs nothing so.
  sc_core::sc_time irqs_off_until() const {
    return m_current && m_current->m_irqs_off && m_complete_pending ? m_complete_at : sc_core::SC_ZERO_TIME;
  }
  // f_max / f now: what CPU-bound work is stretched by.
  double slowdown() const { return m_policy->slow; }
  // The clock now (GHz); 0 for a core without one (the untimed emulator's).
  double clock_ghz() const {
    return m_power.freq_max > 0 ? std::round(m_power.freq_max / m_policy->slow * 1e6) / 1e6 : 0.0;  // to the kHz
  }
  // The clock averaged over busy time (GHz), and how often each idle state was entered.
  double mean_busy_freq() const;
  const std::vector<std::uint64_t>& idle_entries() const { return m_idle_entries; }
  const CpuPower& power() const { return m_power; }

  // The core's state relative to now (model/state_hash.h): who runs and waits, when the running
  // work ends, the governors' state. Not its totals, which only grow.
  void fingerprint(model::StateHash& h) const override;
  // Not with service-time variation (cpu.cost_cv and a sim.seed): every charge is a new draw.
  bool repeats() const override { return m_cv == 0; }
  std::string timing_name() const override { return name(); }
  // ondemand before it settles: its period's length and busy time so far, left out of the
  // fingerprint, decide its next look; cycles may be repeated up to the period's end.
  sc_core::sc_time repeat_horizon() const override;
  void cycle_start() override {
    m_cycle_window_busy = m_window_busy;
    m_cycle_look_at = m_policy->at;
    m_cycle_updates = m_policy->updates;
  }
  void skip_cycles(std::uint64_t n, const sc_core::sc_time& span) override;
  // A digest of the work charged on this core (function and amount, in order) since the last
  // call: two stretches with equal digests ran the same items. Kept only while asked for
  // (digest_charges(true)): it costs every charge a few instructions.
  void digest_charges(bool on) { m_digest_charges = on; }
  std::uint64_t take_charge_digest() { return std::exchange(m_charge_digest, 0); }

  // Service-time variation: every CPU charge drawn from a log-normal with mean 1 and this
  // coefficient of variation, from a generator seeded with `seed` (0 or cv 0: every charge at its
  // mean). Before the simulation starts; the same seed gives the same run.
  void set_variation(double cv, std::uint64_t seed);
  // One draw of the factor (mean 1).
  double variation();

 private:
  friend class Runner;
  void submit(Runner& r);
  void reschedule();
  // The runner's sync woke up: true if its work is done (it leaves the core).
  bool finish(Runner& r);
  void account_until_now();
  // Adds `elapsed` of r's work from its `executed` point to `t`, split by r's outside_clock ranges.
  static void add_run(CpuTimes& t, const Runner& r, sc_core::sc_time executed, sc_core::sc_time elapsed);
  // The context an interrupt arriving now takes the core from (Runner::outside_clock).
  Ctx interrupted(const Runner& by) const;
  bool runs_before(const Runner* a, const Runner* b) const;
  void governor_update(const sc_core::sc_time& t);
  void update_idle();
  void trace_run(Runner& r, sc_core::sc_time from, sc_core::sc_time elapsed);
  int outside_track(Runner& r, Ctx acct);

  unsigned m_id;
  std::vector<Runner*> m_waiting;  // active runners
  Runner* m_owner = nullptr;       // the task-level thread holding the core between its syncs
  Runner* m_current = nullptr;
  sc_core::sc_time m_since;         // when m_current last started running, or idle began
  bool m_complete_pending = false;  // m_current's m_done is armed for m_complete_at
  sc_core::sc_time m_complete_at;
  std::uint64_t m_seq = 0;
  CpuTimes m_times;
  std::array<FnTimes, kNumCtx> m_fn_time;
  // Governors.
  CpuPower m_power;
  std::shared_ptr<FreqPolicy> m_policy;    // its clock (slow: what this core's CPU-bound work is stretched by)
  double m_cv = 0, m_mu = 0, m_sigma = 0;  // variation: log-normal parameters
  std::uint64_t m_rng = 0;
  Pelt m_pelt;
  sc_core::sc_time m_window_busy;            // ondemand: busy time since the policy's last look
  sc_core::sc_time m_cycle_window_busy;      // ... when the cycle the fast-forward repeats began
  sc_core::sc_time m_cycle_look_at;          // the policy's last look then
  std::uint64_t m_cycle_updates = 0;         // and its governor calls so far
  sc_core::sc_time ondemand_period() const;  // until the policy's next look
  sc_core::sc_time since_look(const sc_core::sc_time& t) const { return t - m_policy->at + m_policy->shift; }
  double m_busy_ghz_seconds = 0;  // integral of the clock over busy time
  sc_core::sc_time m_ran;         // busy time as the core sees it (interrupt edges included)
  bool m_idle = true;             // nothing runs and no task holds the core
  sc_core::sc_time m_idle_since;
  std::size_t m_idle_state = 0;
  IdlePredictor m_idle_predictor;
  std::vector<std::uint64_t> m_idle_entries;
  std::uint64_t m_charge_digest = 0;
  bool m_digest_charges = false;
  ItemTimes m_items;
};

// A load and a branch inline; the digest out of line, so that charge() stays small enough to inline.
inline void Runner::note_charge(const char* fn, const sc_core::sc_time& cost) {
  if (m_core.m_digest_charges) digest_charge(fn, cost);
}

inline void Runner::charge(const Charge& c) {
  sc_core::sc_time t = c.time;
  if (c.item < 0) {
    if (c.scales && m_core.slowdown() != 1.0) t = t * m_core.slowdown();
    if (c.moved && t != sc_core::SC_ZERO_TIME && model::Tracer::active()) trace_moved(t);
  } else {
    const auto i = static_cast<std::size_t>(c.item);
    const ItemTimes& it = m_core.m_items;
    t = i < it.time.size() ? it.time[i] : sc_core::SC_ZERO_TIME;
    if (c.count != 1.0) t = t * c.count;
    if (i < it.scales.size() && it.scales[i] && m_core.slowdown() != 1.0) t = t * m_core.slowdown();
    // The lines taken from the other core: a wait at any clock.
    if (i < it.moved.size() && it.moved[i] != sc_core::SC_ZERO_TIME) {
      const sc_core::sc_time moved = it.moved[i] * c.count;
      t += moved;
      if (model::Tracer::active()) trace_moved(moved);
    }
  }
  if (m_core.m_cv > 0 && t != sc_core::SC_ZERO_TIME) t = t * m_core.variation();
  charge(c.fn, t, c.item);
}

inline sc_core::sc_time& Runner::fn_time(const char* fn) {
  return m_core.m_fn_time[static_cast<std::size_t>(m_acct)][fn];
}

}  // namespace qcesim::cpu
