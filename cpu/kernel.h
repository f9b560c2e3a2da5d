// The kernel's execution machinery on the cores: interrupt delivery through a GIC to a chosen
// core and its hardirq context, softirq work (tasklets, BH work) run after the hardirq on the
// same core, workqueue items in a kworker, completions that wake a sleeping task, and task
// threads. Per core there is one long-lived thread per context; nothing is spawned per request.
#pragma once

#include <deque>
#include <map>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "cpu/core.h"
#include "cpu/costs.h"
#include "cpu/dma_iommu.h"
#include "model/irq_line.h"

namespace qcesim::cpu {

using model::IrqLine;

class Completion;

class Kernel : public sc_core::sc_module, public model::TimingState {
 public:
  using Fn = std::function<void(Runner&)>;

  // One core per CPU of costs.cpus (one zero-cost core when it is empty).
  Kernel(sc_core::sc_module_name name, const Costs& costs);
  ~Kernel() override;

  unsigned num_cores() const { return static_cast<unsigned>(m_cpus.size()); }
  Core& core(unsigned cpu);
  const CoreType& core_type(unsigned cpu) const { return m_cpus.at(cpu)->type; }
  const Costs& costs() const { return m_costs; }
  Charge cost(Cost c) const { return m_costs(c); }
  // The dma-mapping layer the drivers map their buffers through.
  DmaIommu& dma() { return m_dma; }

  // A level-high interrupt line, delivered to `cpu` (its affinity); `handler` runs in hardirq
  // context there, between irq entry and exit, and again while the line stays high after EOI.
  void request_irq(IrqLine& line, unsigned cpu, const std::string& name, Fn handler);

  // Softirq work on the caller's core: raised in interrupt context it runs on irq exit (after
  // the current hardirq); raised from a thread it wakes ksoftirqd, as raise_softirq does. A
  // softirq pass that keeps being re-raised (10 restarts) or runs over 2 ms hands the rest to
  // ksoftirqd too.
  void tasklet_schedule(Runner& from, const char* fn, Fn work);
  // The same for a BH workqueue item (queue_work on system_bh_highpri_wq): it runs in softirq
  // like a tasklet, at a workqueue's queueing and dispatch cost.
  void queue_bh_work(Runner& from, const char* fn, Fn work);
  // A work item for the kworker of the caller's core (schedule_work).
  void schedule_work(Runner& from, const char* fn, Fn work);
  // A work item for `cpu`'s kworker after `delay` (queue_delayed_work_on): a timer queues it, so
  // there is no calling context to charge.
  void schedule_delayed_work_on(unsigned cpu, const sc_core::sc_time& delay, const char* fn, Fn work);

  // Starts a thread in task context on `cpu`. Call before or during the simulation.
  Runner& spawn_task(unsigned cpu, const std::string& name, Fn body);

  std::uint64_t hardirqs() const { return m_hardirqs; }
  // Inter-processor interrupts taken (a wake-up of a task sleeping on another CPU).
  std::uint64_t ipis() const { return m_ipis; }

  // An IPI from `from` to `cpu` (a remote try_to_wake_up): after the GIC's latency, and the
  // wake-up from the idle state the target sleeps in, its IPI handler runs in hardirq context
  // (irq entry, sched_ttwu_pending, irq exit) and calls `wake`.
  void send_ipi(Runner& from, unsigned cpu, std::function<void()> wake);

  // The state that decides what the kernel does next, relative to now (model/state_hash.h):
  // every core with its threads, the interrupt lines' levels, the softirq and work queues (by
  // function), the armed timers, the dma-mapping layer. The cores add their own.
  void fingerprint(model::StateHash& h) const override;
  std::string timing_name() const override { return name(); }

 private:
  friend class Completion;
  // Timers (completion timeouts, delayed work) share one SystemC event: a timed wait per request
  // would leave a cancelled entry in the simulator's event heap until its (far) deadline, and
  // thousands of those make every timed notification slower.
  using Timers = std::multimap<sc_core::sc_time, std::function<void()>>;
  Timers::iterator arm_timer(const sc_core::sc_time& deadline, std::function<void()> expire);
  void disarm_timer(Timers::iterator it) { m_timers.erase(it); }
  void on_timer();
  Timers m_timers;
  sc_core::sc_event m_timer_event;
  bool m_timer_pending = false;
  sc_core::sc_time m_timer_armed;  // when m_timer_event fires, if pending

  struct Irq {
    const IrqLine* line;
    std::string name;
    Fn handler;
  };
  struct Deferred {
    const char* fn;
    Fn work;
    bool bh = false;  // a BH workqueue item (else a tasklet)
  };
  struct Cpu {
    std::unique_ptr<Core> core;
    CoreType type;
    std::unique_ptr<Runner> hardirq, softirq, kworker, ksoftirqd;
    // The IPI handler: a hardirq-level thread of its own (the core runs one hardirq at a time).
    std::unique_ptr<Runner> ipi;
    struct Ipi {
      sc_core::sc_time due;
      std::function<void()> wake;
    };
    std::deque<Ipi> ipis;
    sc_core::sc_event ipi_event;
    std::vector<Irq> irqs;
    sc_core::sc_event irq_event, softirq_event, work_event, ksoftirqd_event;
    bool ksoftirqd_sleeping = true;
    std::deque<Deferred> softirq_queue, work_queue;
    std::deque<Deferred> softirq_batch;  // the pass being run (kept to reuse its storage)
    bool kworker_sleeping = true;
    // The timeline's idle-exit spans so far, by what woke the core (irq, ipi): where the last ends.
    std::map<std::string, sc_core::sc_time> idle_traced_until;
  };
  void hardirq_thread(unsigned cpu);
  sc_core::sc_time delivery_delay(const Cpu& c) const;
  void trace_idle_exit(Cpu& c, const sc_core::sc_time& due, const char* by);
  void trace_held_off(Cpu& c);
  void switch_to_idle(Runner& r);
  Ctx irq_enter(Runner& r);
  void irq_exit(Runner& r, Ctx interrupted);
  void softirq_thread(unsigned cpu);
  void kworker_thread(unsigned cpu);
  void ksoftirqd_thread(unsigned cpu);
  void ipi_thread(unsigned cpu);
  void defer(Runner& from, const char* fn, Fn work, bool bh);
  std::uint64_t m_ipis = 0;
  void wake_ksoftirqd(Cpu& c, Runner& from);
  std::uint64_t m_ksoftirqd_wakeups = 0;

 public:
  std::uint64_t ksoftirqd_wakeups() const { return m_ksoftirqd_wakeups; }

 private:
  Costs m_costs;
  DmaIommu m_dma{m_costs, m_costs.iommu};
  std::vector<std::unique_ptr<Cpu>> m_cpus;
  std::vector<std::unique_ptr<Runner>> m_tasks;
  std::uint64_t m_hardirqs = 0;
};

// struct completion: wait_for_completion() in a task, complete() from anywhere.
class Completion {
 public:
  explicit Completion(Kernel& k) : m_kernel(k) {}
  void wait(Runner& task);
  // As wait(), giving up after `timeout` of simulated time: false if it gave up.
  bool wait_for(Runner& task, const sc_core::sc_time& timeout);
  void complete(Runner& from);
  bool done() const { return m_done; }
  void fingerprint(model::StateHash& h) const {
    h.add(m_done);
    h.add(m_sleeping);
    h.add(m_timed_out);
    h.add(m_waking);
    h.add(m_woken);
  }

 private:
  friend class Kernel;
  void switch_out(Runner& task);
  void sleep(Runner& task);
  Kernel& m_kernel;
  bool m_done = false;
  bool m_sleeping = false;
  bool m_timed_out = false;
  bool m_waking = false;  // an IPI to the sleeper's CPU is on its way
  bool m_woken = false;   // the sleeper was woken (it may still be switching out, not yet waiting)
  Runner* m_waiter = nullptr;
  sc_core::sc_event m_event;
};

}  // namespace qcesim::cpu
