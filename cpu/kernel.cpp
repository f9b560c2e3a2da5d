// sc_spawn for the per-core threads and interrupt edge methods.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "cpu/kernel.h"

#include <algorithm>
#include <spdlog/fmt/fmt.h>
#include <stdexcept>

#include "model/trace.h"

namespace qcesim::cpu {

using sc_core::SC_ZERO_TIME;

SC_HAS_PROCESS(Kernel);

Kernel::Kernel(sc_core::sc_module_name name, const Costs& costs) : sc_core::sc_module(name), m_costs(costs) {
  // The untimed emulator has no CPU list: one core on which everything costs nothing.
  const std::vector<CoreType> cpus = costs.cpus.empty() ? std::vector<CoreType>{CoreType{}} : costs.cpus;
  for (unsigned i = 0; i < cpus.size(); ++i) {
    auto c = std::make_unique<Cpu>();
    const std::string n = "cpu" + std::to_string(i);
    c->core = std::make_unique<Core>(n.c_str(), i);
    c->core->set_power(core_power(costs, cpus[i]));
    c->core->set_item_times(item_times(costs, cpus[i]));
    c->type = cpus[i];
    c->core->set_variation(costs.cost_cv, costs.seed);
    c->hardirq = std::make_unique<Runner>(*c->core, Ctx::hardirq, n + ".hardirq");
    c->softirq = std::make_unique<Runner>(*c->core, Ctx::softirq, n + ".softirq");
    c->kworker = std::make_unique<Runner>(*c->core, Ctx::kworker, "kworker/" + std::to_string(i));
    c->ksoftirqd = std::make_unique<Runner>(*c->core, Ctx::ksoftirqd, "ksoftirqd/" + std::to_string(i));
    c->ipi = std::make_unique<Runner>(*c->core, Ctx::hardirq, n + ".ipi");
    // One cpufreq policy per core type, as a cluster's CPUs share a clock (SM8650's five A720s are
    // two policies on the board, 2-4 and 5-6: one here).
    for (const auto& other : m_cpus)
      if (other->type.name == cpus[i].name) {
        c->core->join_policy(*other->core);
        break;
      }
    m_cpus.push_back(std::move(c));
    sc_core::sc_spawn(sc_bind(&Kernel::hardirq_thread, this, i), (n + "_hardirq").c_str());
    sc_core::sc_spawn(sc_bind(&Kernel::softirq_thread, this, i), (n + "_softirq").c_str());
    sc_core::sc_spawn(sc_bind(&Kernel::kworker_thread, this, i), (n + "_kworker").c_str());
    sc_core::sc_spawn(sc_bind(&Kernel::ksoftirqd_thread, this, i), (n + "_ksoftirqd").c_str());
    sc_core::sc_spawn(sc_bind(&Kernel::ipi_thread, this, i), (n + "_ipi").c_str());
  }
  SC_METHOD(on_timer);
  sensitive << m_timer_event;
  dont_initialize();
}

Kernel::Timers::iterator Kernel::arm_timer(const sc_core::sc_time& deadline, std::function<void()> expire) {
  auto it = m_timers.emplace(deadline, std::move(expire));
  if (!m_timer_pending || deadline < m_timer_armed) {
    m_timer_pending = true;
    m_timer_armed = deadline;
    m_timer_event.notify(deadline - sc_core::sc_time_stamp());  // an earlier notify overrides
  }
  return it;
}

// Fires at the earliest deadline armed so far; disarmed timers have left the map, so it runs the
// expired ones and re-arms for the earliest still pending.
void Kernel::on_timer() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  m_timer_pending = false;
  while (!m_timers.empty() && m_timers.begin()->first <= now) {
    std::function<void()> expire = std::move(m_timers.begin()->second);
    m_timers.erase(m_timers.begin());
    expire();
  }
  if (!m_timers.empty()) {
    m_timer_pending = true;
    m_timer_armed = m_timers.begin()->first;
    m_timer_event.notify(m_timer_armed - now);
  }
}

Kernel::~Kernel() = default;

Core& Kernel::core(unsigned cpu) { return *m_cpus.at(cpu)->core; }

void Kernel::request_irq(IrqLine& line, unsigned cpu, const std::string& name, Fn handler) {
  Cpu& c = *m_cpus.at(cpu);
  line.set_delivery([this, &c] {
    const sc_core::sc_time d = delivery_delay(c);
    trace_idle_exit(c, sc_core::sc_time_stamp() + d, "irq");
    return d;
  });
  c.irqs.push_back({&line, name, std::move(handler)});
  c.irq_event.notify(SC_ZERO_TIME);  // the hardirq thread starts watching this line
}

void Kernel::hardirq_thread(unsigned cpu) {
  Cpu& c = *m_cpus[cpu];
  Runner& r = *c.hardirq;
  bool delivered = false;  // woken by the GIC's delivery of the one line
  for (;;) {
    const Irq* pending = nullptr;
    for (const Irq& irq : c.irqs)
      if (irq.line->level()) {
        pending = &irq;
        break;
      }
    if (!pending) {
      // Sleep until a line rises (or a new one is registered). One line, the usual case,
      // needs no event or-list (which allocates on every wait) and sleeps until the GIC
      // delivers it.
      if (c.irqs.empty()) {
        sc_core::wait(c.irq_event);
      } else if (c.irqs.size() == 1) {
        sc_core::wait(c.irqs.front().line->delivered_event());
        delivered = true;
      } else {
        sc_core::sc_event_or_list any;
        any |= c.irq_event;
        for (const Irq& irq : c.irqs) any |= irq.line->rise_event();
        sc_core::wait(any);
      }
      continue;
    }
    // Delivered: the latency ran from the edge (a later edge may still be due). Found high at
    // EOI or with several lines: it runs from now.
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    sc_core::sc_time delay = SC_ZERO_TIME;
    if (!delivered) {
      delay = delivery_delay(c);
      trace_idle_exit(c, now + delay, "irq");
    } else if (pending->line->delivery_due() > now) {
      delay = pending->line->delivery_due() - now;
    }
    delivered = false;
    if (delay != SC_ZERO_TIME) sc_core::wait(delay);
    trace_held_off(c);
    ++m_hardirqs;
    const Ctx interrupted = irq_enter(r);
    pending->handler(r);
    irq_exit(r, interrupted);
    r.sync();
    // EOI: the GIC samples the line's level again (the loop), which the handler's status
    // clears have already lowered if nothing new is pending.
  }
}

// An interrupt's way in, with the line Linux's irqtime clock draws (Runner::outside_clock):
// hardirq time starts at account_hardirq_enter, after the exception's entry and irq_enter_rcu.
// The exception's serialising events are split there too: the vector entry and the accounting's
// counter reads outside, the GIC's acknowledge and EOI inside (charged after the dispatch: the
// same time, and gic_handle_irq's span is described by the dispatch).
// Returns the context it interrupted, which its exit is counted as too (a softirq the handler
// raised is not running yet when the exit runs: Linux's softirq clock starts after it).
Ctx Kernel::irq_enter(Runner& r) {
  r.outside_clock(true);
  const Ctx interrupted = r.accounted();
  r.charge(m_costs(Cost::irq_exception));
  r.charge(m_costs(Cost::irq_enter));
  if (interrupted == Ctx::idle) r.charge(m_costs(Cost::tick_irq_enter));
  r.outside_clock(false);
  r.charge(m_costs(Cost::irq_entry));
  r.charge(m_costs(Cost::gic_iar_eoi));
  return interrupted;
}

// ... and out: hardirq time ends at account_hardirq_exit, at the start of irq_exit_rcu.
void Kernel::irq_exit(Runner& r, Ctx interrupted) {
  r.outside_clock_as(interrupted);
  r.charge(m_costs(Cost::irq_exit));
  r.outside_clock(false);
}

// GIC distributor latency, and a core sleeping in an idle state first has to wake up from it. Never
// zero: with the untimed emulator's zero costs, an interrupt still reaches the CPU after the
// hardware has done everything it does at that instant (1 ps, the time resolution), as it
// does on the chip, whatever the order of the delta cycles.
sc_core::sc_time Kernel::delivery_delay(const Cpu& c) const {
  const sc_core::sc_time d = m_costs.gic_latency + c.core->idle_exit_latency();
  return d != SC_ZERO_TIME ? d : sc_core::sc_get_time_resolution();
}

// The timeline's record of a wake-up from an idle state: the exit latency, ending when the
// interrupt (or the IPI) reaches the handler at `due`. A track per kind of wake-up, as the
// model times each from its own edge; a second edge while the core still wakes shows only the
// part after the first one's span (spans on a track must not overlap).
void Kernel::trace_idle_exit(Cpu& c, const sc_core::sc_time& due, const char* by) {
  model::Tracer* tr = model::Tracer::active();
  const IdleState* s = tr ? c.core->idle_state() : nullptr;
  if (!s || s->exit_latency == SC_ZERO_TIME) return;
  sc_core::sc_time& until = c.idle_traced_until[by];
  const sc_core::sc_time start = std::max(due - s->exit_latency, until);
  if (start >= due) return;
  until = due;
  const int track = tr->track("cpu" + std::to_string(c.core->id()), std::string("idle (woken by ") + by + ")", "idle");
  tr->span(track, std::string(model::kIdleExitSpan) + s->name, start, due, tr->request(),
           fmt::format("exit latency {:.3f} us, target residency {:.3f} us", s->exit_latency.to_seconds() * 1e6,
                       s->target_residency.to_seconds() * 1e6));
}

// The timeline's record of an interrupt that reached a core running with interrupts off (a
// sleeper's __schedule): it waits until that work ends.
void Kernel::trace_held_off(Cpu& c) {
  model::Tracer* tr = model::Tracer::active();
  const sc_core::sc_time now = sc_core::sc_time_stamp(), until = c.core->irqs_off_until();
  if (!tr || until <= now) return;
  const int track = tr->track("cpu" + std::to_string(c.core->id()), "interrupt held off", "held");
  tr->span(track, "interrupts off: the interrupt waits", now, until, tr->request());
}

// A thread going to sleep: __schedule switches its CPU to the idle task with interrupts off, from
// before it leaves the run queue to the end of the switch (kernel/sched/core.c), so an interrupt
// of that CPU arriving meanwhile waits for it. With nothing owed (the flag covers this work only).
void Kernel::switch_to_idle(Runner& r) {
  r.sync();
  r.irqs_off(true);
  r.charge(m_costs(Cost::context_switch_out));
  r.sync();
  r.irqs_off(false);
}

void Kernel::send_ipi(Runner& from, unsigned cpu, std::function<void()> wake) {
  // The SGI goes out when the waker's CPU gets there (its charged work done, preemptions
  // included); the send itself is part of its try_to_wake_up.
  Cpu& c = *m_cpus.at(cpu);
  from.when_done([this, &c, wake = std::move(wake)](const sc_core::sc_time& at) mutable {
    // The mark may be reported at the next accounting point, after the instant it names.
    const sc_core::sc_time due = std::max(at + delivery_delay(c), sc_core::sc_time_stamp());
    trace_idle_exit(c, due, "ipi");
    c.ipis.push_back({due, std::move(wake)});
    if (c.ipis.size() == 1) c.ipi_event.notify(due - sc_core::sc_time_stamp());
  });
}

// The IPI handler: one IPI (with everything queued by then) per hardirq, as gic_handle_irq
// takes one SGI per entry.
void Kernel::ipi_thread(unsigned cpu) {
  Cpu& c = *m_cpus[cpu];
  Runner& r = *c.ipi;
  for (;;) {
    while (c.ipis.empty() || c.ipis.front().due > sc_core::sc_time_stamp()) {
      if (c.ipis.empty()) {
        sc_core::wait(c.ipi_event);
      } else {
        sc_core::wait(c.ipis.front().due - sc_core::sc_time_stamp());
      }
    }
    trace_held_off(c);
    ++m_ipis;
    const Ctx interrupted = irq_enter(r);
    r.charge(m_costs(Cost::sched_ttwu_pending));
    irq_exit(r, interrupted);
    std::deque<Cpu::Ipi> batch;
    batch.swap(c.ipis);
    for (auto& i : batch) i.wake();
    r.sync();
  }
}

void Kernel::softirq_thread(unsigned cpu) {
  Cpu& c = *m_cpus[cpu];
  Runner& r = *c.softirq;
  constexpr int kMaxRestart = 10;                      // MAX_SOFTIRQ_RESTART
  const sc_core::sc_time max_time(2, sc_core::SC_MS);  // MAX_SOFTIRQ_TIME
  for (;;) {
    while (c.softirq_queue.empty() || !c.ksoftirqd_sleeping) {
      // Work ksoftirqd already owns is left to it.
      sc_core::wait(c.softirq_event);
    }
    // The pass starts when the CPU gets there: after the hardirq that raised it has returned.
    // Its prologue and epilogue are outside the softirq clock.
    r.outside_clock(true);
    r.charge(m_costs(Cost::softirq_edge));
    r.outside_clock(false);
    r.charge(m_costs(Cost::softirq_entry));
    r.sync();
    const sc_core::sc_time start = sc_core::sc_time_stamp();
    for (int pass = 0; !c.softirq_queue.empty(); ++pass) {
      if (pass == kMaxRestart || sc_core::sc_time_stamp() + r.debt() - start > max_time) {
        wake_ksoftirqd(c, r);
        break;
      }
      // One pass runs what was pending when it started; what that raises is a restart.
      std::deque<Deferred>& batch = c.softirq_batch;
      batch.swap(c.softirq_queue);
      for (Deferred& d : batch) {
        r.charge(m_costs.as(d.fn, d.bh ? Cost::bh_work_dispatch : Cost::tasklet_action));
        r.sync();  // what the item does to the devices happens when the CPU runs it
        d.work(r);
      }
      batch.clear();
    }
    r.sync();
  }
}

void Kernel::wake_ksoftirqd(Cpu& c, Runner& from) {
  if (!c.ksoftirqd_sleeping) return;
  c.ksoftirqd_sleeping = false;
  ++m_ksoftirqd_wakeups;
  from.charge(m_costs.as("wakeup_softirqd", Cost::try_to_wake_up));
  c.ksoftirqd_event.notify();
}

// ksoftirqd: softirq work run as a thread; its time counts as softirq.
void Kernel::ksoftirqd_thread(unsigned cpu) {
  Cpu& c = *m_cpus[cpu];
  Runner& r = *c.ksoftirqd;
  for (;;) {
    while (c.ksoftirqd_sleeping) sc_core::wait(c.ksoftirqd_event);
    r.charge(m_costs(Cost::context_switch));
    r.charge(m_costs(Cost::softirq_edge));  // ksoftirqd's time is softirq time, all of it
    r.charge(m_costs(Cost::softirq_entry));
    while (!c.softirq_queue.empty()) {
      Deferred d = std::move(c.softirq_queue.front());
      c.softirq_queue.pop_front();
      r.charge(m_costs.as(d.fn, d.bh ? Cost::bh_work_dispatch : Cost::tasklet_action));
      d.work(r);
    }
    r.sync();  // the softirq work ran with interrupts on
    if (c.softirq_queue.empty()) switch_to_idle(r);
    if (c.softirq_queue.empty()) {
      c.ksoftirqd_sleeping = true;
      r.block();
      c.softirq_event.notify(SC_ZERO_TIME);  // irq-exit processing may resume
    }
  }
}

void Kernel::kworker_thread(unsigned cpu) {
  Cpu& c = *m_cpus[cpu];
  Runner& r = *c.kworker;
  bool ran = false;
  for (;;) {
    if (c.work_queue.empty()) {
      c.kworker_sleeping = true;
      if (ran) switch_to_idle(r);  // not at boot: it starts asleep
      ran = true;
      r.block();
      // Re-check after every wake-up: an item queued while this thread was still syncing
      // would otherwise be missed.
      while (c.work_queue.empty()) sc_core::wait(c.work_event);
      r.charge(m_costs(Cost::context_switch));
    }
    c.kworker_sleeping = false;
    Deferred d = std::move(c.work_queue.front());
    c.work_queue.pop_front();
    r.charge(m_costs.as(d.fn, Cost::process_one_work));
    r.sync();
    d.work(r);
    r.sync();
  }
}

void Kernel::tasklet_schedule(Runner& from, const char* fn, Fn work) { defer(from, fn, std::move(work), false); }

void Kernel::queue_bh_work(Runner& from, const char* fn, Fn work) { defer(from, fn, std::move(work), true); }

void Kernel::defer(Runner& from, const char* fn, Fn work, bool bh) {
  Cpu& c = *m_cpus.at(from.core().id());
  from.charge(m_costs(bh ? Cost::bh_queue_work : Cost::tasklet_schedule));
  c.softirq_queue.push_back({fn, std::move(work), bh});
  if (ctx_level(from.ctx()) == 0) {
    wake_ksoftirqd(c, from);  // raised outside interrupt context
  } else {
    c.softirq_event.notify();  // immediate: the thread re-checks its queue, nothing is lost
  }
}

void Kernel::schedule_work(Runner& from, const char* fn, Fn work) {
  Cpu& c = *m_cpus.at(from.core().id());
  from.charge(m_costs(Cost::queue_work));
  if (c.kworker_sleeping && c.work_queue.empty()) from.charge(m_costs(Cost::try_to_wake_up));
  c.work_queue.push_back({fn, std::move(work), false});
  c.work_event.notify();
}

void Kernel::schedule_delayed_work_on(unsigned cpu, const sc_core::sc_time& delay, const char* fn, Fn work) {
  Cpu& c = *m_cpus.at(cpu);
  arm_timer(sc_core::sc_time_stamp() + delay, [&c, fn, work = std::move(work)]() mutable {
    c.work_queue.push_back({fn, std::move(work), false});
    c.work_event.notify();
  });
}

Runner& Kernel::spawn_task(unsigned cpu, const std::string& name, Fn body) {
  m_tasks.push_back(std::make_unique<Runner>(*m_cpus.at(cpu)->core, Ctx::task, name));
  Runner* r = m_tasks.back().get();
  sc_core::sc_spawn_options opts;
  opts.set_stack_size(8u << 20);  // driver code and test assertions run here
  sc_core::sc_spawn([r, body] { body(*r); }, name.c_str(), &opts);
  return *r;
}

void Kernel::fingerprint(model::StateHash& h) const {
  auto queue = [&h](const std::deque<Deferred>& q) {
    h.add(std::uint64_t{q.size()});
    for (const Deferred& d : q) {
      h.add(d.fn);
      h.add(d.bh);
    }
  };
  for (const auto& c : m_cpus) {
    for (const Runner* r : {c->hardirq.get(), c->softirq.get(), c->kworker.get(), c->ksoftirqd.get()})
      r->fingerprint(h);
    for (const Irq& irq : c->irqs) {
      h.add(irq.line->level());
      if (irq.line->delivery_due() >= h.now()) h.add_at(irq.line->delivery_due());  // a delivery to come
    }
    c->ipi->fingerprint(h);
    h.add(std::uint64_t{c->ipis.size()});
    for (const auto& i : c->ipis) h.add_at(i.due);
    h.add(c->ksoftirqd_sleeping);
    h.add(c->kworker_sleeping);
    queue(c->softirq_queue);
    queue(c->softirq_batch);
    queue(c->work_queue);
  }
  for (const auto& t : m_tasks) t->fingerprint(h);
  h.add(std::uint64_t{m_timers.size()});
  for (const auto& t : m_timers) h.add_at(t.first);
  // Not when m_timer_event fires: at or before the earliest deadline (a disarmed timer leaves
  // it early), and a firing with nothing expired changes nothing.
  m_dma.fingerprint(h);
}

// A completion that came before the wait finds nothing to sleep for. Otherwise the task
// switches its CPU to the idle task (__schedule) with interrupts off, from before it leaves the
// run queue to the end of the switch (kernel/sched/core.c): an interrupt of its own CPU waits for
// the switch, and a wake-up from another CPU finds it leaving. Either way it sleeps and is woken
// (try_to_wake_up, then the switch back). A completion before local_irq_disable() finds it still
// running: the caller's way there (cost.crypto_wait_req, charged before the wait) is paid here,
// in the sync, with interrupts on.
void Completion::switch_out(Runner& task) {
  task.sync();
  if (m_done) return;
  m_sleeping = true;
  m_woken = false;
  m_waiter = &task;
  m_kernel.switch_to_idle(task);
}

// Asleep (switched out) until woken; woken meanwhile, it goes on at once.
void Completion::sleep(Runner& task) {
  task.block();
  if (!m_woken) sc_core::wait(m_event);
}

void Completion::wait(Runner& task) {
  switch_out(task);
  if (m_sleeping) {
    sleep(task);
    m_sleeping = m_woken = false;
    task.charge(m_kernel.cost(Cost::context_switch));
  }
  m_done = false;
}

bool Completion::wait_for(Runner& task, const sc_core::sc_time& timeout) {
  switch_out(task);
  if (m_sleeping) {
    m_timed_out = false;
    const auto timer = m_kernel.arm_timer(sc_core::sc_time_stamp() + timeout, [this] {
      if (m_waking || m_woken) return;  // the wake-up is on its way, or done
      m_timed_out = true;
      m_event.notify();
    });
    sleep(task);
    if (!m_timed_out) m_kernel.disarm_timer(timer);
    m_sleeping = m_woken = false;
    if (!m_done) return false;
    task.charge(m_kernel.cost(Cost::context_switch));
  }
  m_done = false;
  return true;
}

// try_to_wake_up: a sleeper on the waker's CPU is woken at once; one on another CPU is queued on
// that CPU's wake list and woken by an IPI (ttwu_queue_wakelist), which its CPU takes in hardirq
// context after the GIC's latency and its own wake-up from idle.
void Completion::complete(Runner& from) {
  m_done = true;
  if (!m_sleeping || m_waking || m_woken) return;
  const unsigned cpu = m_waiter->core().id();
  if (cpu == from.core().id()) {
    from.charge(m_kernel.cost(Cost::try_to_wake_up));
    m_woken = true;
    m_event.notify();
    return;
  }
  from.charge(m_kernel.cost(Cost::try_to_wake_up_remote));
  m_waking = true;
  m_kernel.send_ipi(from, cpu, [this] {
    m_waking = false;
    if (!m_sleeping) return;  // it gave up (a timeout at the same instant) and went on
    m_woken = true;
    m_event.notify();
  });
}

}  // namespace qcesim::cpu
