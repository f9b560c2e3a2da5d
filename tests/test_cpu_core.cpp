// The core's scheduling and accounting against hand-computed expectations.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

#include "cpu/core.h"
#include "cpu/kernel.h"

using namespace qcesim::cpu;
using sc_core::sc_time;
using sc_core::SC_US;

namespace {

sc_time us(double v) { return sc_time(v, SC_US); }

// Costs for `cpus` cores at 1 GHz and IPC 1: a count of N instructions takes N ns.
Costs one_ns_per_instruction(unsigned cpus) {
  Costs costs;
  CoreType t;
  t.freq_max = 1.0;
  costs.cpus.assign(cpus, t);
  return costs;
}

// A core and threads that each start at a time, charge work in a context, and record when
// they finished. One elaboration per process: one bench per test.
struct Bench {
  struct Job {
    Ctx ctx;
    sc_time start;
    std::vector<std::pair<const char*, sc_time>> work;
    sc_time done;
  };
  Core core{"core0", 0};
  std::vector<std::unique_ptr<Runner>> runners;
  std::vector<Job> jobs;

  void add(Ctx ctx, sc_time start, std::vector<std::pair<const char*, sc_time>> work) {
    jobs.push_back({ctx, start, std::move(work), {}});
  }
  void run(sc_time until) {
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      runners.push_back(std::make_unique<Runner>(core, jobs[i].ctx, "job" + std::to_string(i)));
      sc_core::sc_spawn([this, i] {
        Job& j = jobs[i];
        sc_core::wait(j.start);
        for (auto& [fn, cost] : j.work) runners[i]->charge(fn, cost);
        runners[i]->sync();
        j.done = sc_core::sc_time_stamp();
      });
    }
    sc_core::sc_start(until);
  }
};

}  // namespace

TEST(CpuCore, HardirqPreemptsTaskWhichFinishesLaterByTheIrqTime) {
  Bench b;
  b.add(Ctx::task, us(0), {{"task_work", us(10)}});
  b.add(Ctx::hardirq, us(3), {{"bam_dma_irq", us(2)}});
  b.run(us(20));
  EXPECT_EQ(b.jobs[1].done, us(5));
  EXPECT_EQ(b.jobs[0].done, us(12));
  const CpuTimes t = b.core.times();
  EXPECT_EQ(t.of(Ctx::task), us(10));
  EXPECT_EQ(t.of(Ctx::hardirq), us(2));
  EXPECT_EQ(t.idle, us(8));
  EXPECT_EQ(t.busy(), us(12));
}

TEST(CpuCore, NestedHardirqInSoftirqInTask) {
  Bench b;
  b.add(Ctx::task, us(0), {{"task_work", us(10)}});
  b.add(Ctx::softirq, us(2), {{"vchan_complete", us(4)}});
  b.add(Ctx::hardirq, us(3), {{"bam_dma_irq", us(1)}});
  b.run(us(30));
  EXPECT_EQ(b.jobs[2].done, us(4));
  EXPECT_EQ(b.jobs[1].done, us(7));
  EXPECT_EQ(b.jobs[0].done, us(15));
  const CpuTimes t = b.core.times();
  EXPECT_EQ(t.of(Ctx::softirq), us(4));
  EXPECT_EQ(t.of(Ctx::hardirq), us(1));
  EXPECT_EQ(t.idle, us(15));
}

TEST(CpuCore, TaskLevelThreadsRunFirstComeFirstServed) {
  Bench b;
  b.add(Ctx::task, us(0), {{"task_work", us(5)}});
  b.add(Ctx::kworker, us(1), {{"qce_req_done_work", us(2)}});
  b.add(Ctx::hardirq, us(2), {{"bam_dma_irq", us(1)}});
  b.run(us(10));
  EXPECT_EQ(b.jobs[2].done, us(3));
  EXPECT_EQ(b.jobs[0].done, us(6));  // the task keeps the CPU after the irq
  EXPECT_EQ(b.jobs[1].done, us(8));
  EXPECT_EQ(b.core.times().of(Ctx::kworker), us(2));
  EXPECT_EQ(b.core.times().idle, us(2));
}

TEST(CpuCore, IdleBetweenWork) {
  Bench b;
  b.add(Ctx::task, us(0), {{"a", us(1)}});
  b.add(Ctx::task, us(6), {{"b", us(1)}});
  b.run(us(10));
  EXPECT_EQ(b.jobs[1].done, us(7));
  EXPECT_EQ(b.core.times().idle, us(8));
  EXPECT_EQ(b.core.times().of(Ctx::task), us(2));
}

TEST(CpuCore, ProfileAttributesEveryChargeToItsFunction) {
  Bench b;
  b.add(Ctx::task, us(0), {{"dma_map_sg", us(1)}, {"writel", us(0.5)}, {"dma_map_sg", us(2)}});
  b.add(Ctx::hardirq, us(1), {{"bam_dma_irq", us(3)}});
  b.run(us(10));
  EXPECT_EQ(b.jobs[0].done, us(6.5));
  const auto& p = b.core.profile();
  EXPECT_EQ(p.at({Ctx::task, "dma_map_sg"}), us(3));
  EXPECT_EQ(p.at({Ctx::task, "writel"}), us(0.5));
  EXPECT_EQ(p.at({Ctx::hardirq, "bam_dma_irq"}), us(3));
}

// Softirq work raised from a thread goes to ksoftirqd: it runs as a thread (it does not
// preempt the task, which keeps the core until it sleeps) and its time counts as softirq.
TEST(CpuCore, KernelSoftirqRaisedFromATaskRunsInKsoftirqd) {
  Costs costs;
  Kernel k("kernel", costs);
  sc_time work_done_at, task_done_at;
  k.spawn_task(0, "task", [&](Runner& r) {
    k.tasklet_schedule(r, "test_tasklet", [&](Runner& s) {
      EXPECT_EQ(s.ctx(), Ctx::ksoftirqd);
      s.run("test_tasklet_work", us(5));
      work_done_at = sc_core::sc_time_stamp();
    });
    r.run("task_work", us(10));
    task_done_at = sc_core::sc_time_stamp();
    r.block();
  });
  sc_core::sc_start(us(50));
  EXPECT_EQ(task_done_at, us(10));
  EXPECT_EQ(work_done_at, us(15));
  EXPECT_EQ(k.core(0).times().of(Ctx::ksoftirqd), us(5));
  EXPECT_EQ(k.core(0).times().of(Ctx::softirq), us(0));
  EXPECT_EQ(k.ksoftirqd_wakeups(), 1u);
}

// The per-function table grows past its first size and keeps every total; the last-hit shortcut
// must follow the slots when they move.
TEST(CpuCore, FnTimesTableKeepsEveryNameAcrossGrowth) {
  static char names[200];  // distinct addresses, as string literals are
  FnTimes t;
  for (int round = 0; round < 3; ++round)
    for (int i = 0; i < 200; ++i) t[&names[i]] += us(i + 1);
  t[&names[7]] += us(1);
  int seen = 0;
  t.for_each([&](const char* fn, const sc_time& v) {
    const int i = static_cast<int>(fn - names);
    EXPECT_EQ(v, us(3.0 * (i + 1) + (i == 7 ? 1 : 0))) << i;
    ++seen;
  });
  EXPECT_EQ(seen, 200);
}

// Timed completion waits share one kernel timer: a waiter completed in time returns true at
// the completion, one nobody completes gives up exactly at its own deadline, whatever the
// order in which the deadlines were armed.
TEST(CpuCore, KernelCompletionTimeoutsExpireAtTheirOwnDeadlines) {
  Costs costs;
  costs.cpus.assign(2, CoreType{});  // two zero-cost cores
  Kernel k("kernel", costs);
  Completion early(k), never(k), late(k);
  struct Seen {
    bool ok = true;
    sc_time at;
  } a, b, c, d;
  k.spawn_task(0, "long_wait", [&](Runner& r) {
    b.ok = never.wait_for(r, us(30));  // armed first, expires last
    b.at = sc_core::sc_time_stamp();
  });
  k.spawn_task(1, "short_waits", [&](Runner& r) {
    a.ok = early.wait_for(r, us(10));  // completed at 2 us
    a.at = sc_core::sc_time_stamp();
    c.ok = late.wait_for(r, us(3));  // nobody completes it: gives up at 5 us
    c.at = sc_core::sc_time_stamp();
    d.ok = late.wait_for(r, us(4));  // completed at 7 us
    d.at = sc_core::sc_time_stamp();
  });
  k.spawn_task(1, "completer", [&](Runner& r) {
    sc_core::wait(us(2));
    early.complete(r);
    sc_core::wait(us(5));
    late.complete(r);
  });
  sc_core::sc_start(us(100));
  EXPECT_TRUE(a.ok);
  EXPECT_EQ(a.at, us(2));
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.at, us(5));
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.at, us(7));
  EXPECT_FALSE(b.ok);
  EXPECT_EQ(b.at, us(30));
}

// when_done reports the moment the CPU gets through the work charged so far, preemption
// included, without the thread syncing; with nothing owed it reports now.
TEST(CpuCore, WhenDoneReportsWhereTheCpuGetsWithoutASync) {
  Core core("core0", 0);
  Runner task(core, Ctx::task, "task"), irq(core, Ctx::hardirq, "irq");
  sc_time mark_a, mark_b, mark_now, code_time;
  sc_core::sc_spawn([&] {
    task.when_done([&](const sc_time& t) { mark_now = t; });
    task.charge("work_a", us(5));
    task.when_done([&](const sc_time& t) { mark_a = t; });
    task.charge("work_b", us(1));
    task.when_done([&](const sc_time& t) { mark_b = t; });
    code_time = sc_core::sc_time_stamp();  // the thread's code is still at 0
    task.sync();
  });
  sc_core::sc_spawn([&] {
    sc_core::wait(us(2));
    irq.run("handler", us(3));  // preempts work_a at 2 us for 3 us
  });
  sc_core::sc_start(us(20));
  EXPECT_EQ(mark_now, us(0));
  EXPECT_EQ(code_time, us(0));
  EXPECT_EQ(mark_a, us(8));
  EXPECT_EQ(mark_b, us(9));
}

// Linux's irqtime clock: what an interrupt does before account_hardirq_enter and after
// account_hardirq_exit runs at hardirq level but is accounted to the context it interrupted: the
// task it preempted, or idle (not busy time) on an idle core. Times and profile agree.
TEST(CpuCore, InterruptEdgesOutsideTheIrqClockCountAsTheInterruptedContext) {
  Core core("core0", 0);
  Runner task(core, Ctx::task, "task"), irq(core, Ctx::hardirq, "irq");
  sc_time task_done;
  std::vector<Ctx> interrupted;
  sc_core::sc_spawn([&] {
    task.run("work", us(10));
    task_done = sc_core::sc_time_stamp();
    task.block();
  });
  sc_core::sc_spawn([&] {
    for (const double at : {3.0, 30.0}) {  // the task's, then an idle core's
      sc_core::wait(us(at) - sc_core::sc_time_stamp());
      irq.outside_clock(true);
      interrupted.push_back(irq.accounted());
      irq.charge("irq_enter_rcu", us(1));
      irq.outside_clock(false);
      irq.charge("bam_dma_irq", us(2));
      irq.outside_clock(true);
      irq.charge("irq_exit_rcu", us(0.5));
      irq.outside_clock(false);
      irq.sync();
    }
  });
  sc_core::sc_start(us(40));
  EXPECT_EQ(interrupted, (std::vector<Ctx>{Ctx::task, Ctx::idle}));
  EXPECT_EQ(task_done, us(13.5));  // preempted for the whole 3.5 us
  const CpuTimes t = core.times();
  EXPECT_EQ(t.of(Ctx::hardirq), us(4));
  EXPECT_EQ(t.of(Ctx::task), us(10 + 1.5));
  EXPECT_EQ(t.of(Ctx::idle), us(1.5));           // the second interrupt's edges...
  EXPECT_EQ(t.idle, us(40 - 13.5 - 3.5 + 1.5));  // ...are idle time
  EXPECT_EQ(t.busy(), us(13.5 + 2));
  const auto prof = core.profile();
  EXPECT_EQ(prof.at({Ctx::task, "irq_enter_rcu"}), us(1));
  EXPECT_EQ(prof.at({Ctx::idle, "irq_exit_rcu"}), us(0.5));
  EXPECT_EQ(prof.at({Ctx::hardirq, "bam_dma_irq"}), us(4));
  EXPECT_EQ(prof.count({Ctx::hardirq, "irq_enter_rcu"}), 0u);
}

namespace {
// A test double of a device's interrupt line, raised and lowered by the test.
struct TestLine : model::IrqLine {
  bool high = false;
  sc_core::sc_event rise;
  bool level() const override { return high; }
  const sc_core::sc_event& rise_event() const override { return rise; }
  void raise() {
    high = true;
    rise.notify();
    rising_edge();
  }
};
}  // namespace

// An interrupt of a busy task whose handler raises a softirq and then waits on a register read:
// the softirq thread is already waiting when the exit runs, but the exit is still the task's
// time (Linux's softirq clock starts only in handle_softirqs), as is the softirq pass's own
// prologue and epilogue; the task was not idle, so no tick_irq_enter.
TEST(CpuCore, KernelAnInterruptsExitCountsAsWhatItInterruptedThoughItRaisedASoftirq) {
  Costs costs = one_ns_per_instruction(1);
  costs[Cost::irq_enter] = {true, 100, {}};
  costs[Cost::tick_irq_enter] = {true, 150, {}};
  costs[Cost::irq_entry] = {true, 100, {}};
  costs[Cost::irq_exit] = {true, 200, {}};
  costs[Cost::softirq_edge] = {true, 50, {}};
  costs[Cost::softirq_entry] = {true, 70, {}};
  Kernel k("kernel", costs);
  TestLine line;
  k.request_irq(line, 0, "test", [&](Runner& r) {
    line.high = false;
    k.tasklet_schedule(r, "test_tasklet", [](Runner& t) { t.charge("tasklet_work", us(1)); });
    r.run("readl", us(0.5));
  });
  k.spawn_task(0, "busy", [&](Runner& r) {
    r.run("work", us(20));
    r.block();
  });
  sc_core::sc_spawn([&] {
    sc_core::wait(us(5));
    line.raise();
  });
  sc_core::sc_start(us(40));
  const auto prof = k.core(0).profile();
  EXPECT_EQ(prof.at({Ctx::task, "irq_exit_rcu"}), us(0.2));
  EXPECT_EQ(prof.count({Ctx::softirq, "irq_exit_rcu"}), 0u);
  EXPECT_EQ(prof.at({Ctx::task, "irq_enter_rcu"}), us(0.1));
  EXPECT_EQ(prof.count({Ctx::task, "tick_irq_enter"}), 0u);
  EXPECT_EQ(prof.at({Ctx::task, "__do_softirq"}), us(0.05));
  EXPECT_EQ(prof.at({Ctx::softirq, "__do_softirq"}), us(0.07));
  EXPECT_EQ(k.core(0).times().of(Ctx::hardirq), us(0.1 + 0.5));
  EXPECT_EQ(k.core(0).times().of(Ctx::task), us(20 + 0.1 + 0.2 + 0.05));
}

// A task sleeping on another CPU is woken by an IPI: the waker pays try_to_wake_up, the sleeper's
// CPU takes the IPI after the GIC's latency and its wake-up from WFI, runs the handler at hardirq
// level (irq entry, sched_ttwu_pending, irq exit), and only then does the task run. A waiter on
// the waker's own CPU wakes at once, with no IPI. The entry before the hardirq clock (with the
// idle core's tick_irq_enter) and the exit after it count as idle.
TEST(CpuCore, KernelARemoteWakeUpGoesThroughAnIpiOnTheSleepersCpu) {
  Costs costs = one_ns_per_instruction(2);
  costs[Cost::try_to_wake_up_remote] = {true, 300, {}};
  costs[Cost::irq_enter] = {true, 50, {}};
  costs[Cost::tick_irq_enter] = {true, 150, {}};
  costs[Cost::irq_entry] = {true, 100, {}};
  costs[Cost::sched_ttwu_pending] = {true, 200, {}};
  costs[Cost::irq_exit] = {true, 100, {}};
  costs[Cost::context_switch] = {true, 500, {}};
  costs.gic_latency = us(0.5);
  costs.power.idle_states = {{"wfi", us(1), us(1)}};
  Kernel k("kernel", costs);
  Completion remote(k), local(k);
  sc_time remote_woke, local_woke;
  k.spawn_task(1, "sleeper", [&](Runner& r) {
    remote.wait(r);
    r.sync();
    remote_woke = sc_core::sc_time_stamp();
    r.block();
  });
  k.spawn_task(0, "waker", [&](Runner& r) {
    r.run("work", us(10));
    remote.complete(r);  // try_to_wake_up: 0.3 us, then the IPI goes out
    r.sync();
    r.block();
  });
  sc_core::sc_start(us(50));
  // Sent at 10.3 us; delivered 0.5 + 1 (WFI) later; 0.6 us at hardirq level; then the switch (0.5).
  EXPECT_EQ(remote_woke, us(10.3 + 0.5 + 1.0 + 0.6 + 0.5));
  EXPECT_EQ(k.ipis(), 1u);
  EXPECT_EQ(k.core(1).times().of(Ctx::hardirq), us(0.3));
  EXPECT_EQ(k.core(1).times().of(Ctx::idle), us(0.3));
  EXPECT_EQ(k.core(0).times().of(Ctx::hardirq), us(0));
  (void)local;
  (void)local_woke;
}

// Work charged with interrupts off is not preempted: a hardirq arriving meanwhile waits for it.
TEST(CpuCore, WorkWithInterruptsOffHoldsOffAHardirq) {
  Core core("core0", 0);
  Runner task(core, Ctx::task, "task"), irq(core, Ctx::hardirq, "irq");
  sc_time task_done, irq_done;
  sc_core::sc_spawn([&] {
    task.run("before", us(1));
    task.irqs_off(true);
    task.run("__schedule", us(2));  // 1..3 us
    task.irqs_off(false);
    task_done = sc_core::sc_time_stamp();
  });
  sc_core::sc_spawn([&] {
    sc_core::wait(us(2));
    irq.run("bam_dma_irq", us(0.5));
    irq_done = sc_core::sc_time_stamp();
  });
  sc_core::sc_start(us(10));
  EXPECT_EQ(task_done, us(3));
  EXPECT_EQ(irq_done, us(3.5));
  EXPECT_EQ(core.times().of(Ctx::hardirq), us(0.5));
  EXPECT_EQ(core.times().of(Ctx::task), us(3));
}

namespace {
// A switch out of 1 us, a local wake-up of 0.3 us and a switch back of 0.5 us, at 1 ns per instruction.
Costs sleep_and_wake_costs() {
  Costs costs = one_ns_per_instruction(1);
  costs[Cost::context_switch_out] = {true, 1000, {}};
  costs[Cost::try_to_wake_up] = {true, 300, {}};
  costs[Cost::context_switch] = {true, 500, {}};
  return costs;
}
}  // namespace

// __schedule runs with interrupts off: a completion from an interrupt of the sleeper's own CPU that
// arrives while the task switches out waits for the switch, then finds the task asleep, so the
// waker pays try_to_wake_up and the task the switch back (the task does not skip its sleep).
TEST(CpuCore, KernelCompletionDuringTheSwitchOutWakesASleeper) {
  Kernel k("kernel", sleep_and_wake_costs());
  Completion done(k);
  Runner irq(k.core(0), Ctx::hardirq, "irq");
  sc_time woke;
  k.spawn_task(0, "sleeper", [&](Runner& r) {
    r.run("work", us(1));
    done.wait(r);  // switches out over 1..2 us
    r.sync();
    woke = sc_core::sc_time_stamp();
    r.block();
  });
  sc_core::sc_spawn([&] {
    sc_core::wait(us(1.5));
    irq.run("bam_dma_irq", us(0.4));  // held off to 2 us: runs 2..2.4
    done.complete(irq);               // try_to_wake_up 2.4..2.7
    irq.sync();
  });
  sc_core::sc_start(us(20));
  EXPECT_EQ(woke, us(2.7 + 0.5));  // then the switch back
  EXPECT_EQ(k.core(0).times().of(Ctx::hardirq), us(0.7));
  EXPECT_EQ(k.core(0).times().of(Ctx::task), us(1 + 1 + 0.5));
}

// The caller's way to its sleep (crypto_wait_req up to __schedule) runs with interrupts on: a
// completion from an interrupt taken there finds the task still running, so it neither switches
// out nor is woken, and goes on once its own work is done.
TEST(CpuCore, KernelCompletionBeforeTheSwitchOutFindsTheCallerRunning) {
  Kernel k("kernel", sleep_and_wake_costs());
  Completion done(k);
  Runner irq(k.core(0), Ctx::hardirq, "irq");
  sc_time went_on;
  k.spawn_task(0, "caller", [&](Runner& r) {
    r.run("work", us(1));
    r.charge({"crypto_wait_req", us(1), true, -1, 1.0});  // 1..2 us, preempted at 1.5 us
    done.wait(r);
    r.sync();
    went_on = sc_core::sc_time_stamp();
    r.block();
  });
  sc_core::sc_spawn([&] {
    sc_core::wait(us(1.5));
    irq.run("bam_dma_irq", us(0.4));  // 1.5..1.9
    done.complete(irq);               // the task is running: nothing to wake
    irq.sync();
  });
  sc_core::sc_start(us(20));
  EXPECT_EQ(went_on, us(2.4));  // its remaining 0.5 us after the interrupt, no switch
  EXPECT_EQ(k.core(0).times().of(Ctx::hardirq), us(0.4));
  EXPECT_EQ(k.core(0).times().of(Ctx::task), us(2));
}
