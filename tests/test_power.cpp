// The dma-mapping layer's mechanisms, the cpuidle and cpufreq governors, against the sources'
// numbers and hand-computed expectations. One elaboration per process: one core per test.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <gtest/gtest.h>

#include <string>

#include "cpu/core.h"
#include "cpu/costs.h"
#include "cpu/dma_iommu.h"
#include "cpu/power.h"
#include "model/profile.h"

using namespace qcesim::cpu;
using qcesim::model::Profile;
using sc_core::SC_MS;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;

namespace {

Profile sm8650() { return Profile::load(std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650.json"); }
Profile ipq40xx() { return Profile::load(std::string(QCESIM_SOURCE_DIR) + "/scenarios/ipq40xx.json"); }
// The IPQ40xx's Cortex-A7 governors (ondemand over 48/200/500/716 MHz).
CpuPower a7_power() {
  const Costs k = costs_from_profile(ipq40xx());
  return core_power(k, k.cpus.at(k.task_cpu));
}

SgShape one_buffer(std::uint64_t addr, std::uint64_t len) {
  SgShape s;
  s.add(addr, len);
  return s;
}

double us_of(const sc_time& t) { return t.to_seconds() * 1e6; }

// The task CPU's core, timing the cost items as the profile's CPU would.
void on_task_cpu(Core& core, const Costs& k) { core.set_item_times(item_times(k, k.cpus.at(k.task_cpu))); }
sc_time on_task_cpu(const Costs& k, Cost c) { return k.on(c, k.cpus.at(k.task_cpu)); }

}  // namespace

// The profile's items put together by the mechanism give back what the source measured as a
// whole: dma_map_single / dma_unmap_single of 4 KiB through Qualcomm's apps_smmu, non-coherent,
// strict: 0.6 / 3.9 us (kernel-costs.md section 5.1). The source ran on Snapdragon X's Oryon and
// this on the X4: the unmap is nearly all waits (10 %), the map a third work (25 %).
TEST(Power, DmaIommuStrict4KiBMapAndUnmapAddUpToTheMeasuredTotals) {
  const Costs k = costs_from_profile(sm8650());
  Core core("core0", 0);
  on_task_cpu(core, k);
  Runner r(core, Ctx::task, "t");
  DmaIommu dma(k, k.iommu);
  const SgShape page = one_buffer(0x80001000, 4096);
  EXPECT_EQ(page.pages, 1u);
  EXPECT_EQ(page.lines, 64u);
  dma.map_sg(r, page, DmaDir::to_device);
  EXPECT_NEAR(us_of(r.debt()), 0.6, 0.15);
  const sc_time mapped = r.debt();
  dma.unmap_sg(r, page, DmaDir::from_device);
  EXPECT_NEAR(us_of(r.debt() - mapped), 3.9, 0.39);
  EXPECT_EQ(dma.stats().tlb_syncs, 1u);
  EXPECT_EQ(dma.stats().tlb_invalidations, 1u);
}

// iommu-dma gives each scatterlist entry its own IOVA page: the locking series' command
// elements (n x 16 bytes in one buffer) cost n cache syncs with a DSB each, n io-pgtable map
// calls and n page-table entries to map, n invalidations and one sync to unmap.
TEST(Power, DmaIommuEveryScatterlistEntryTakesItsOwnPageButOneSyncPerCall) {
  const Costs k = costs_from_profile(sm8650());
  Core core("core0", 0);
  on_task_cpu(core, k);
  Runner r(core, Ctx::softirq, "s");
  DmaIommu dma(k, k.iommu);
  SgShape ces;
  for (unsigned i = 0; i < 12; ++i) ces.add(0x80002000 + 16 * i, 16);
  EXPECT_EQ(ces.pages, 12u);
  EXPECT_EQ(ces.lines, 12u);
  // Each call's work and the lines it takes from the other core (the scatterlist entries, the
  // page-table lines: lines.<item>).
  auto t = [&k](Cost c) { return on_task_cpu(k, c) + k.moved(c); };
  ASSERT_GT(k.moved(Cost::dma_unmap_sg_entry), sc_core::SC_ZERO_TIME);
  dma.map_sg(r, ces, DmaDir::to_device);
  const sc_time map_want = t(Cost::dma_map_sg) + 12.0 * t(Cost::dma_map_sg_entry) + 12.0 * t(Cost::dcache_clean_poc) +
                           12.0 * t(Cost::dsb_poc) + t(Cost::alloc_iova_fast) + 12.0 * t(Cost::arm_lpae_map_pages) +
                           12.0 * t(Cost::arm_lpae_init_pte) + 12.0 * t(Cost::dsb_st);
  EXPECT_EQ(r.debt(), map_want);
  EXPECT_EQ(dma.stats().map_calls, 12u);
  EXPECT_EQ(dma.stats().dsbs, 12u);
  const sc_time mapped = r.debt();
  dma.unmap_sg(r, ces, DmaDir::to_device);  // to the device only: no invalidation of the lines
  const sc_time want = t(Cost::dma_unmap_sg) + 12.0 * t(Cost::dma_unmap_sg_entry) +
                       12.0 * t(Cost::arm_lpae_unmap_pages) + 12.0 * t(Cost::arm_smmu_tlb_inv) +
                       t(Cost::arm_smmu_tlb_sync) + t(Cost::free_iova_fast);
  EXPECT_EQ(r.debt() - mapped, want);
  EXPECT_EQ(dma.stats().tlb_invalidations, 12u);
  EXPECT_EQ(dma.stats().tlb_syncs, 1u);
  EXPECT_EQ(dma.stats().dsbs, 12u);  // none on unmap: nothing to invalidate
}

// Lazy mode: no invalidation per unmap; the 256th queued IOVA flushes the queue with one
// invalidation and one sync. Passthrough: cache maintenance only. Coherent: not even that.
TEST(Power, DmaIommuLazyFlushesOncePerQueuePassthroughAndCoherentSkipTheirParts) {
  Profile p = sm8650();
  p.set_text("iommu.mode", "lazy", "t", "/");
  const Costs lazy = costs_from_profile(p);
  Core core("core0", 0);
  on_task_cpu(core, lazy);
  Runner r(core, Ctx::softirq, "s");
  DmaIommu dma(lazy, lazy.iommu);
  const SgShape page = one_buffer(0x80001000, 4096);
  for (unsigned i = 0; i < 255; ++i) dma.unmap_sg(r, page, DmaDir::from_device);
  EXPECT_EQ(dma.stats().tlb_syncs, 0u);
  dma.unmap_sg(r, page, DmaDir::from_device);
  EXPECT_EQ(dma.stats().tlb_syncs, 1u);
  EXPECT_EQ(dma.stats().fq_flushes, 1u);

  p.set_text("iommu.mode", "passthrough", "t", "/");
  const Costs pt = costs_from_profile(p);
  Runner r2(core, Ctx::task, "t2");
  DmaIommu direct(pt, pt.iommu);
  direct.map_sg(r2, page, DmaDir::to_device);
  EXPECT_EQ(r2.debt(), on_task_cpu(pt, Cost::dma_map_sg) + on_task_cpu(pt, Cost::dma_map_sg_entry) +
                           on_task_cpu(pt, Cost::dcache_clean_poc) * 64.0 + on_task_cpu(pt, Cost::dsb_poc));

  p.set("iommu.coherent", 1, "t", "/");
  const Costs coh = costs_from_profile(p);
  Runner r3(core, Ctx::task, "t3");
  DmaIommu coherent(coh, coh.iommu);
  coherent.map_sg(r3, page, DmaDir::to_device);
  EXPECT_EQ(r3.debt(), on_task_cpu(coh, Cost::dma_map_sg) + on_task_cpu(coh, Cost::dma_map_sg_entry));

  // A non-coherent table walker: each map call cleans its entries' line and waits on a DSB.
  Profile nc = sm8650();
  nc.set("iommu.coherent_walk", 0, "t", "/");
  const Costs ncw = costs_from_profile(nc), cw = costs_from_profile(sm8650());
  Runner r4(core, Ctx::task, "t4"), r5(core, Ctx::task, "t5");
  DmaIommu walk_nc(ncw, ncw.iommu), walk_c(cw, cw.iommu);
  walk_nc.map_sg(r4, page, DmaDir::to_device);
  walk_c.map_sg(r5, page, DmaDir::to_device);
  EXPECT_EQ(r4.debt() - r5.debt(), on_task_cpu(ncw, Cost::dcache_clean_poc) + on_task_cpu(ncw, Cost::dsb_poc));
}

namespace {
// A task that works `work` then sleeps `gap`, n times, on a core with the profile's governors.
struct Duty {
  Core core{"core0", 0};
  Runner task{core, Ctx::task, "task"};
  sc_time idle_exit_at_last_wake;
  void run(const CpuPower& p, const sc_time& work, const sc_time& gap, unsigned n) {
    core.set_power(p);
    sc_core::sc_spawn([=] {
      for (unsigned i = 0; i < n; ++i) {
        task.charge(Charge{"work", work, true});
        task.sync();
        task.block();
        sc_core::wait(gap);
        idle_exit_at_last_wake = core.idle_exit_latency();
      }
    });
    sc_core::sc_start();
  }
};
}  // namespace

// menu-like choice: 40 us gaps (a request on the engine) keep the core in WFI, whose 1 us is
// what an interrupt then waits; 20 ms gaps reach the DT's power-collapse states.
// The device side: every page of a new mapping is an IOTLB miss for the BAM, the pages the device
// reads for a consumer pipe and those it writes for a producer, in strict and lazy modes; none
// without translation.
TEST(Power, DmaIommuNewMappingsAreTheDevicesIotlbMisses) {
  Profile p = sm8650();
  for (const char* mode : {"strict", "lazy", "passthrough", "none"}) {
    p.set_text("iommu.mode", mode, "t", "/");
    const Costs k = costs_from_profile(p);
    Core core("core0", 0);
    Runner r(core, Ctx::task, "t");
    DmaIommu dma(k, k.iommu);
    SgShape ces;
    for (unsigned i = 0; i < 5; ++i) ces.add(0x80002000 + 16 * i, 16);
    dma.map_sg(r, ces, DmaDir::to_device);
    dma.map_sg(r, one_buffer(0x80004000, 8192), DmaDir::bidirectional);
    dma.map_sg(r, one_buffer(0x80008000, 128), DmaDir::from_device);
    const bool translated = std::string(mode) == "strict" || std::string(mode) == "lazy";
    EXPECT_EQ(dma.take_fresh_pages(true), translated ? 7u : 0u) << mode;
    EXPECT_EQ(dma.take_fresh_pages(false), translated ? 1u : 0u) << mode;
    EXPECT_EQ(dma.take_fresh_pages(true), 0u) << mode;  // taken once
  }
}

TEST(Power, CpuidleShortGapsStayInWfiLongGapsGoDeeper) {
  const CpuPower p = costs_from_profile(sm8650()).power;
  ASSERT_EQ(p.idle_states.size(), 3u);
  EXPECT_EQ(p.idle_states[0].name, "wfi");
  Duty d;
  d.run(p, sc_time(10, SC_US), sc_time(40, SC_US), 20);
  EXPECT_EQ(d.idle_exit_at_last_wake, sc_time(1, SC_US));
  EXPECT_EQ(d.core.idle_entries()[1] + d.core.idle_entries()[2], 0u);
}

TEST(Power, CpuidleLongGapsReachTheClusterStateAndCpuidleOffKeepsWfi) {
  Profile prof = sm8650();
  const CpuPower p = costs_from_profile(prof).power;
  Duty d;
  d.run(p, sc_time(10, SC_US), sc_time(20, SC_MS), 20);
  EXPECT_EQ(d.idle_exit_at_last_wake, sc_time(2350, SC_US));  // CLUSTER_SLEEP_0, 9144 us residency
  prof.set("cpuidle.off", 1, "t", "/");
  EXPECT_EQ(costs_from_profile(prof).power.idle_states.size(), 1u);
}

// schedutil: a core that is always busy climbs to f_max; one that is nearly always idle sits at
// f_min, and its CPU-bound work takes f_max / f_min times as long.
TEST(Power, SchedutilBusyCoreRunsAtMaxIdleCoreAtMin) {
  Profile prof = sm8650();
  prof.set_text("cpu.governor", "schedutil", "t", "/");
  const Costs k = costs_from_profile(prof);
  const CpuPower p = core_power(k, k.cpus.at(k.task_cpu));
  Duty busy;
  busy.run(p, sc_time(1, SC_MS), sc_core::SC_ZERO_TIME, 400);
  EXPECT_NEAR(busy.core.slowdown(), 1.0, 0.05);
  EXPECT_GT(busy.core.mean_busy_freq(), 0.5 * p.freq_max);
}

TEST(Power, SchedutilNearlyIdleCoreSitsAtTheLowestFrequency) {
  Profile prof = sm8650();
  prof.set_text("cpu.governor", "schedutil", "t", "/");
  const Costs k = costs_from_profile(prof);
  const CpuPower p = core_power(k, k.cpus.at(k.task_cpu));
  Duty idle;
  idle.run(p, sc_time(5, SC_US), sc_time(10, SC_MS), 30);
  EXPECT_DOUBLE_EQ(idle.core.slowdown(), p.freq_max / p.freq_min);
}

// schedutil from a benchmark's steady state, not from an idle core's ramp: 30 us of work at
// f_max every 10 us of sleep settles where f = 1.25 f_max util and util = W / (W f_max / f + G),
// i.e. f = 0.25 f_max W / G = 0.75 f_max. Over 190 ms it comes down from f_max to 0.79 f_max,
// and runs at 0.82 f_max on average; from a zero history it would climb from its floor and
// average 0.27 f_max (a Python model of both, 2026-12-05).
TEST(Power, SchedutilStartsFromTheWorkloadsSteadyState) {
  Profile prof = sm8650();
  prof.set_text("cpu.governor", "schedutil", "t", "/");
  const Costs k = costs_from_profile(prof);
  const CpuPower p = core_power(k, k.cpus.at(k.task_cpu));
  ASSERT_LT(p.freq_min, 0.5 * p.freq_max);
  Duty d;
  d.run(p, sc_time(30, SC_US), sc_time(10, SC_US), 4000);
  EXPECT_NEAR(1 / d.core.slowdown(), 0.75, 0.05);
  EXPECT_GT(d.core.mean_busy_freq(), 0.7 * p.freq_max);
}

// cpufreq's table lookups: RELATION_L the lowest OPP at or above, RELATION_C the nearest with a
// tie to the lower; ondemand on the IPQ40xx's 48/200/500/716 MHz table (f = 48 + 668 load MHz).
TEST(Power, OndemandPicksTheNearestOppAndJumpsToMaxAboveItsThreshold) {
  const std::vector<double> opps{0.048, 0.2, 0.5, 0.716};
  EXPECT_DOUBLE_EQ(resolve_opp(opps, 0.3, true), 0.5);
  EXPECT_DOUBLE_EQ(resolve_opp(opps, 0.3, false), 0.2);
  EXPECT_DOUBLE_EQ(resolve_opp({0.25, 0.5, 1.0}, 0.375, false), 0.25);  // an exact tie goes to the lower
  EXPECT_DOUBLE_EQ(resolve_opp(opps, 0.9, false), 0.716);
  EXPECT_DOUBLE_EQ(resolve_opp({}, 0.3, false), 0.3);
  const CpuPower p = a7_power();
  ASSERT_EQ(p.governor, Governor::ondemand);
  EXPECT_DOUBLE_EQ(ondemand_target(p, 0.0), 0.048);
  EXPECT_DOUBLE_EQ(ondemand_target(p, 0.3), 0.2);    // 248 MHz
  EXPECT_DOUBLE_EQ(ondemand_target(p, 0.6), 0.5);    // 449 MHz
  EXPECT_DOUBLE_EQ(ondemand_target(p, 0.9), 0.716);  // 649 MHz, nearer 716 than 500
  EXPECT_DOUBLE_EQ(ondemand_target(p, 0.96), 0.716);
}

// 10 us of work at 716 MHz every 10 us of sleep is a 50 % load: 382 MHz, nearest 500; at 500 MHz
// the work takes 14.3 us, a 59 % load, 442 MHz: it stays at 500 MHz, work 1.43 times as long.
TEST(Power, OndemandHoldsAHalfBusyA7At500MHz) {
  const CpuPower p = a7_power();
  Duty d;
  d.run(p, sc_time(10, SC_US), sc_time(10, SC_US), 5000);
  EXPECT_DOUBLE_EQ(d.core.slowdown(), 0.716 / 0.5);
  EXPECT_NEAR(d.core.mean_busy_freq(), 0.5, 0.02);
}

// One cpufreq policy for both cores (the IPQ40xx's four A7s share one): an idle core runs at
// the clock its half-busy sibling's load sets, 500 MHz, not at the 48 MHz its own would give.
TEST(Power, OndemandSetsTheIdleSiblingsClockFromTheBusyCore) {
  const CpuPower p = a7_power();
  Duty d;
  Core sibling{"core1", 1};
  sibling.set_power(p);
  sibling.join_policy(d.core);
  d.run(p, sc_time(10, SC_US), sc_time(10, SC_US), 5000);
  EXPECT_DOUBLE_EQ(d.core.slowdown(), 0.716 / 0.5);
  EXPECT_DOUBLE_EQ(sibling.slowdown(), 0.716 / 0.5);
}

// The busiest core decides: a half-busy core (alone, 500 MHz) shares its policy with one that is
// always busy, so both run at 716 MHz; the half-busy core's own looks must take its sibling's load.
TEST(Power, OndemandTakesTheBusiestCoresLoad) {
  const CpuPower p = a7_power();
  Duty d;
  Core busy{"core1", 1};
  busy.set_power(p);
  busy.join_policy(d.core);
  Runner spin(busy, Ctx::task, "spin");
  sc_core::sc_spawn([&] {
    for (int i = 0; i < 100; ++i) {
      spin.charge(Charge{"spin", sc_time(1, SC_MS), true});
      spin.sync();
    }
  });
  d.run(p, sc_time(10, SC_US), sc_time(10, SC_US), 5000);
  EXPECT_DOUBLE_EQ(d.core.slowdown(), 1.0);
  EXPECT_DOUBLE_EQ(busy.slowdown(), 1.0);
}

// Service-time variation: log-normal factors with mean 1 and the asked coefficient of variation,
// the same sequence from the same seed, none with seed 0.
TEST(Power, VariationDrawsHaveMeanOneAndTheirCvAndRepeatWithTheSeed) {
  Core a("a", 0), b("b", 0), off("off", 0);
  a.set_variation(0.2, 5);
  b.set_variation(0.2, 5);
  off.set_variation(0.2, 0);
  double sum = 0, sq = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const double x = a.variation();
    EXPECT_EQ(x, b.variation());
    sum += x;
    sq += x * x;
  }
  const double mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
  EXPECT_NEAR(mean, 1.0, 0.01);
  EXPECT_NEAR(sd, 0.2, 0.01);
  Runner r(off, Ctx::task, "t");
  r.charge(Charge{"f", sc_time(1, SC_US), true});
  EXPECT_EQ(r.debt(), sc_time(1, SC_US));  // seed 0: at the mean, exactly
}
