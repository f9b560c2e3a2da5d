// The timed model: the calibrated seed replay at reduced scale, one request's timeline
// against a hand-derived sum, descriptor and interrupt counts per request, determinism.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cli/run_command.h"
#include "studies/replay.h"
#include "drivers/crypto/qce/sha.h"
#include "tests/emu_helpers.h"
#include "tests/process.h"

using namespace qcesim;
using sc_core::sc_time;
using sc_core::SC_US;

namespace {

using test::seed_path;

studies::VariantResult scaled_seed(const std::string& variant, std::uint64_t messages = 500) {
  const auto sc = studies::Scenario::load(seed_path(), {"workload.messages=" + std::to_string(messages)});
  return studies::run_variant(sc, sc.variant(variant), false);
}

// Seed runs of 300 messages, each in its own process: run i the variant and --set edits point(i) gives.
std::vector<studies::VariantResult> seed_runs(
    std::size_t n, const std::function<std::pair<std::string, std::vector<std::string>>(std::size_t)>& point,
    bool timing_only) {
  const auto raw = studies::fork_each(
      n, 2,
      [&](std::size_t i) {
        auto [variant, sets] = point(i);
        sets.insert(sets.begin(), "workload.messages=300");
        const auto sc = studies::Scenario::load(seed_path(), sets);
        return studies::run_variant(sc, sc.variant(variant), timing_only).to_json();
      },
      [](std::size_t, const nlohmann::json&) {});
  std::vector<studies::VariantResult> out;
  for (const auto& j : raw) out.push_back(studies::VariantResult::from_json(j));
  return out;
}

// A run's CPU time in one kernel function (every context).
double function_seconds(const studies::VariantResult& r, const std::string& name) {
  double s = 0;
  for (const auto& f : r.profile)
    if (f.function == name) s += f.seconds;
  return s;
}

void expect_within(const studies::VariantResult& r, const char* key, double sim, double tol) {
  const double m = r.measured.at(key);
  if (m == 0) {
    EXPECT_LT(sim, 0.005 * static_cast<double>(r.requests) / 50000.0) << r.name << " " << key;
  } else {
    EXPECT_NEAR(sim / m, 1.0, tol) << r.name << " " << key << ": simulated " << sim << " measured " << m;
  }
}

// Sourced mechanisms with 4 parameters fitted to P1 (docs/calibration.md): within 10 %, but for
// the two numbers the model misses by mechanism, held at their documented errors (the locking
// run's LOCK and UNLOCK both unmapped in hardirq: +38 %; mainline's hardirq -14 % and softirq -32 %)
// so a change shows.
void expect_seed_match(const std::string& variant, double hardirq_error = 0, double softirq_error = 0) {
  const auto r = scaled_seed(variant);
  EXPECT_EQ(r.requests, 500u);
  EXPECT_EQ(r.digest_mismatches, 0u);
  expect_within(r, "wall_s", r.wall_s, 0.10);
  expect_within(r, "cpu_s", r.cpu_s, 0.10);
  expect_within(r, "hardirq_s", r.hardirq_s / (1 + hardirq_error), 0.10);
  expect_within(r, "softirq_s", r.softirq_s / (1 + softirq_error), 0.10);
  // Accounting adds up: every context's time plus idle is the wall time on each CPU the run
  // used (the CPU path one, the engine's two: the task's X4 and the interrupt's A520).
  const double cpus = std::round((r.cpu_s + r.idle_s) / r.wall_s);
  EXPECT_EQ(cpus, variant == "sha256-lib" ? 1.0 : 2.0);
  EXPECT_NEAR(r.cpu_s + r.idle_s, cpus * r.wall_s, 1e-9);
  EXPECT_NEAR(r.task_s + r.kworker_s + r.hardirq_s + r.softirq_s, r.cpu_s, 1e-12);
}

}  // namespace

TEST(Replay, SeedReplaySha256Lib) { expect_seed_match("sha256-lib"); }
TEST(Replay, SeedReplaySha256QceLock) { expect_seed_match("sha256-qce-lock", 0.38, 0); }
TEST(Replay, SeedReplaySha256QceNolock) { expect_seed_match("sha256-qce-nolock", -0.14, -0.32); }

// Per request: 1 + 1 hardware descriptors without locking, 24 + 1 with; the series adds one
// pipe event. Mainline takes two hardirqs (rx EOT, tx EOT); with the series the UNLOCK's INT
// comes about 3 us after the tx EOT, a few ns before that interrupt's handler reads IRQ_SRCS_EE,
// so it is seen there: two as well (docs/calibration.md).
TEST(Replay, SeedReplayDescriptorsPerRequestLockVsNolock) {
  const auto sc = studies::Scenario::load(seed_path(), {"workload.messages=100"});
  const auto raw = studies::fork_each(
      2, 2, [&](std::size_t i) { return studies::run_variant(sc, sc.variants[i + 1], true).to_json(); },
      [](std::size_t, const nlohmann::json&) {});
  const auto lock = studies::VariantResult::from_json(raw[0]);
  const auto nolock = studies::VariantResult::from_json(raw[1]);
  EXPECT_EQ(lock.name, "sha256-qce-lock");
  EXPECT_EQ(lock.bam_descriptors, 100u * 25u);
  EXPECT_EQ(nolock.bam_descriptors, 100u * 2u);
  EXPECT_EQ(nolock.irqs, 100u * 2u);
  EXPECT_EQ(lock.irqs, 100u * 2u);  // Trace.ExplainStatesTheUnlocksRaceWithItsMargin
}

// The cache lines each context takes from the other core per request (lines.<item>, each a
// cpu.line_transfer): a nanosecond more per line adds the count's nanoseconds, context by
// context (docs/calibration.md: mainline 23 in hardirq, 6 of them the IPI's on the X4, 8 in
// softirq, 11 in the kworker and the task; the series' descriptors a line larger, its 21
// command elements' scatterlist and page-table lines).
TEST(Replay, LinesMovedBetweenCoresPerRequest) {
  const auto raw = studies::fork_each(
      4, 2,
      [&](std::size_t i) {
        auto s = studies::Scenario::load(
            seed_path(), {"workload.messages=200", i % 2 ? "cpu.line_transfer=71" : "cpu.line_transfer=70"});
        return studies::run_variant(s, s.variants[1 + i / 2], true).to_json();
      },
      [](std::size_t, const nlohmann::json&) {});
  std::vector<studies::VariantResult> r;
  for (const auto& j : raw) r.push_back(studies::VariantResult::from_json(j));
  auto lines = [&](std::size_t v, double studies::VariantResult::*ctx) {
    return (r[2 * v + 1].*ctx - r[2 * v].*ctx) / 200 * 1e9;  // ns per request at 1 ns a line
  };
  using V = studies::VariantResult;
  EXPECT_EQ(r[0].name, "sha256-qce-lock");
  EXPECT_EQ(r[0].irqs, r[1].irqs);  // the same path at both costs
  EXPECT_NEAR(lines(1, &V::hardirq_s), 23.0, 0.1);
  EXPECT_NEAR(lines(1, &V::softirq_s), 7.7, 0.1);
  EXPECT_NEAR(lines(1, &V::kworker_s), 11.0, 0.1);
  EXPECT_NEAR(lines(0, &V::hardirq_s), 43.7, 0.2);
  EXPECT_NEAR(lines(0, &V::softirq_s), 21.5, 0.2);
}

// Issue 24's first design alternative: the series with its command elements in coherent buffers
// mapped once (ce_buffers "coherent", downstream qce50's way). The same descriptors and interrupts
// and right digests; the per-request mappings of the ~21 command elements and the two lock elements
// are gone, so the strict IOMMU's TLB invalidations fall from one per mapped page (the list's
// elements, the lock elements, the data and the result) to the data's and the result's, and the
// request is shorter.
TEST(Replay, CoherentCommandElementsMapNothingPerRequest) {
  const auto series = studies::Scenario::load(seed_path(), {"workload.messages=200"});
  const auto coherent =
      studies::Scenario::load(seed_path(), {"workload.messages=200", "variants.1.ce_buffers=coherent"});
  const auto raw = studies::fork_each(
      2, 2,
      [&](std::size_t i) {
        const auto& sc = i == 0 ? series : coherent;
        return studies::run_variant(sc, sc.variant("sha256-qce-lock"), false).to_json();
      },
      [](std::size_t, const nlohmann::json&) {});
  const auto a = studies::VariantResult::from_json(raw[0]), b = studies::VariantResult::from_json(raw[1]);
  const auto cpu_of = [](const studies::VariantResult& r, const std::string& fn) {
    double s = 0;
    for (const auto& f : r.profile)
      if (f.function == fn) s += f.seconds;
    return s;
  };
  EXPECT_EQ(b.digest_mismatches, 0u);
  EXPECT_EQ(b.bam_descriptors, a.bam_descriptors);
  EXPECT_EQ(b.irqs, a.irqs);
  const double inv_a = cpu_of(a, "arm_smmu_tlb_inv_range_s1"), inv_b = cpu_of(b, "arm_smmu_tlb_inv_range_s1");
  EXPECT_GT(inv_a, 0.0);
  EXPECT_LT(inv_b, inv_a * 0.2) << inv_a << " " << inv_b;  // 2 pages per request instead of about 25
  EXPECT_LT(b.wall_s, a.wall_s);
  EXPECT_LT(b.cpu_s, a.cpu_s);
}

// Two runs of the same variant, each in its own process, give the same results.
TEST(Replay, SeedReplayDeterministic) {
  const auto sc = studies::Scenario::load(seed_path(), {"workload.messages=200"});
  const auto raw = studies::fork_each(
      2, 2, [&](std::size_t) { return studies::run_variant(sc, sc.variant("sha256-qce-lock"), false).to_json(); },
      [](std::size_t, const nlohmann::json&) {});
  auto a = raw[0], b = raw[1];
  a.erase("host_seconds");
  b.erase("host_seconds");
  EXPECT_EQ(a.dump(), b.dump());
}

// --timing-only skips the bytes and gives the same timing.
TEST(Replay, SeedReplayTimingOnlyGivesIdenticalTiming) {
  const auto sc = studies::Scenario::load(seed_path(), {"workload.messages=200"});
  const auto raw = studies::fork_each(
      2, 2, [&](std::size_t i) { return studies::run_variant(sc, sc.variant("sha256-qce-nolock"), i == 1).to_json(); },
      [](std::size_t, const nlohmann::json&) {});
  for (const char* k : {"wall_s", "cpu_s", "hardirq_s", "softirq_s", "task_s", "kworker_s", "irqs", "bam_descriptors"})
    EXPECT_EQ(raw[0][k], raw[1][k]) << k;
  EXPECT_EQ(raw[0]["latency_us"], raw[1]["latency_us"]);
}

// The hash-ahead helper changes the host time only: the same JSON with and without it (every
// request simulated, so that every one goes through the helper).
TEST(Replay, SeedReplayHashAheadGivesIdenticalResults) {
  const auto sc = studies::Scenario::load(seed_path(), {"workload.messages=300", "sim.fast_forward=0"});
  const auto raw = studies::fork_each(
      2, 2,
      [&](std::size_t i) { return studies::run_variant(sc, sc.variant("sha256-qce-lock"), false, i == 1).to_json(); },
      [](std::size_t, const nlohmann::json&) {});
  auto a = raw[0], b = raw[1];
  EXPECT_EQ(a["hash_ahead_hits"], 0);
  EXPECT_EQ(b["hash_ahead_hits"], 300);  // every request's 4096 bytes came from the helper
  for (auto* j : {&a, &b}) {
    j->erase("host_seconds");
    j->erase("hash_ahead_hits");
  }
  EXPECT_EQ(a["digest_mismatches"], 0);
  EXPECT_EQ(a.dump(), b.dump());
}

// One mainline request with only writel costing CPU time (1 us each) and known hardware times:
// the task programs 2 doorbells and 21 registers (GO lands at 22 us: the rx doorbell went out
// at 0, each later write waits for the ones before), the engine streams 64 bursts and hashes
// 64 data blocks plus one padding block, finishes, the dump goes out in 2 bursts, the GIC
// delivers, the hardirq clears the tx pipe's status (one writel), and everything else is free.
TEST(Replay, TimedRequestMainlineLatencyIsTheHandDerivedSum) {
  soc::EmulatorConfig cfg;
  cfg.soc.costs[cpu::Cost::writel].wait = sc_time(1, SC_US);
  cfg.soc.costs.gic_latency = sc_time(0.5, SC_US);
  cfg.soc.bam.desc_fetch = sc_time(1, SC_US);
  cfg.soc.bam.burst = sc_time(0.1, SC_US);
  cfg.soc.qce.block_sha256 = sc_time(1, SC_US);
  cfg.soc.qce.finish = sc_time(2, SC_US);
  soc::Emulator emu(cfg);
  sc_time latency, task_cpu;
  emu.run([&](soc::Emulator& e) {
    std::vector<std::uint8_t> msg(4096, 0x42);
    cpu::DmaBuf b = test::load(e.host(), msg);
    qce::QceAhash h(e.qce(), e.task(), HashAlg::sha256);
    h.digest(b.addr, 4096);  // first request: pipe initialisation writes happen here
    const sc_time t0 = sc_core::sc_time_stamp();
    const auto cpu0 = e.kernel().core(0).times().busy();
    const auto d = h.digest(b.addr, 4096);
    latency = sc_core::sc_time_stamp() - t0;
    task_cpu = e.kernel().core(0).times().busy() - cpu0;
    EXPECT_EQ(test::hex(d), test::hex(test::openssl_digest(HashAlg::sha256, msg)));
  });
  // 22 (GO) + 0.1 (first burst) + 65 blocks + 2 (finish) + 0.2 (dump bursts) + 0.5 (GIC)
  // + 1 (P_IRQ_CLR in the tx hardirq, before its softirq can run)
  EXPECT_EQ(latency, sc_time(90.8, SC_US));
  // 2 doorbells, 21 registers, 2 P_IRQ_CLR writes in the hardirqs.
  EXPECT_EQ(task_cpu, sc_time(25, SC_US));
}

// With two requests in flight the caller prepares the next one while the engine works, but QCE
// still runs one at a time: the wall time drops by the caller's share, the CPU time does not.
TEST(Replay, SeedReplayQueueDepthTwoOverlapsTheCallerNotTheEngine) {
  const auto raw = studies::fork_each(
      2, 2,
      [&](std::size_t i) {
        const auto sc = studies::Scenario::load(
            seed_path(), {"workload.messages=300", "workload.queue_depth=" + std::to_string(i + 1)});
        return studies::run_variant(sc, sc.variant("sha256-qce-nolock"), true).to_json();
      },
      [](std::size_t, const nlohmann::json&) {});
  const auto q1 = studies::VariantResult::from_json(raw[0]);
  const auto q2 = studies::VariantResult::from_json(raw[1]);
  EXPECT_LT(q2.wall_s, q1.wall_s * 0.97);
  EXPECT_GT(q2.wall_s, q1.wall_s * 0.60);  // the caller's share, about a quarter of a request, overlaps
  EXPECT_NEAR(q2.cpu_s / q1.cpu_s, 1.0, 0.05);
  EXPECT_GT(q2.lat_mean_us, q1.lat_mean_us * 1.3);  // each request also waits for the one before
}

// workload.hash_calls init_update_final (AF_ALG before 6.5, cryptodev): qce_ahash_update sends
// the message but its last block, qce_ahash_final that block from rctx->tmpbuf with the update's
// partial digest; the caller sleeps on each. Two engine requests per message, each with its two
// interrupts, the digests still right, the caller's own share (cost.caller_overhead) once per
// message; a message of one block is only buffered by the update: one request, as a digest.
TEST(Replay, InitUpdateFinalIsTwoEngineRequestsPerMessageWithRightDigests) {
  const auto runs = seed_runs(
      4,
      [](std::size_t i) {
        std::vector<std::string> sets;
        if (i % 2) sets.emplace_back("workload.hash_calls=init_update_final");
        if (i >= 2) sets.emplace_back("workload.message_bytes=64");
        return std::make_pair(std::string("sha256-qce-nolock"), sets);
      },
      false);
  const auto& [digest, calls, digest64, calls64] = std::tie(runs[0], runs[1], runs[2], runs[3]);
  for (const auto* r : {&digest, &calls, &digest64, &calls64}) {
    EXPECT_EQ(r->requests, 300u);
    EXPECT_EQ(r->digest_mismatches, 0u);
  }
  EXPECT_EQ(digest.irqs, 600u);
  EXPECT_EQ(calls.irqs, 1200u);
  EXPECT_EQ(calls64.irqs, digest64.irqs);
  const auto& fn = function_seconds;
  EXPECT_DOUBLE_EQ(fn(calls, "caller"), fn(digest, "caller"));
  EXPECT_EQ(fn(calls, "crypto_ahash_digest"), 0.0);
  EXPECT_GT(fn(calls, "qce_ahash_update"), 0.0);
  EXPECT_GT(fn(calls, "qce_ahash_final"), 0.0);
  // A second round trip: more than a third again in wall and CPU time, less than twice.
  EXPECT_GT(calls.wall_s, digest.wall_s * 1.3);
  EXPECT_LT(calls.wall_s, digest.wall_s * 2.0);
  EXPECT_GT(calls.cpu_s, digest.cpu_s * 1.3);
  // One block: the two calls' instructions instead of the digest's, and nothing else.
  EXPECT_NEAR(calls64.wall_s / digest64.wall_s, 1.0, 0.02);
  EXPECT_GT(calls64.task_s, digest64.task_s);
}

// The 2020 driver (v5.6/v5.7) held no block back: its update sends a 4096-byte message whole and
// its final, with rctx->buflen 0 and no hash_zero, returns without writing the result. One engine
// request per message, every digest wrong; a message that does not end on a block is two
// requests and right, as later.
TEST(Replay, The2020DriversInitUpdateFinalLeavesAMessageEndingOnABlockUnwritten) {
  const auto runs = seed_runs(
      3,
      [](std::size_t i) {
        std::vector<std::string> sets = {"workload.hash_calls=init_update_final", "driver.era=2020"};
        if (i == 1) sets.emplace_back("workload.message_bytes=4000");
        if (i == 2) sets.back() = "driver.era=2021";
        return std::make_pair(std::string("sha256-qce-nolock"), sets);
      },
      false);
  const auto& [aligned, unaligned, fixed] = std::tie(runs[0], runs[1], runs[2]);
  EXPECT_EQ(aligned.requests, 300u);
  EXPECT_EQ(aligned.digest_mismatches, 300u);
  EXPECT_EQ(aligned.irqs, 600u);  // the update's two interrupts, nothing for the final
  EXPECT_EQ(unaligned.digest_mismatches, 0u);
  EXPECT_EQ(unaligned.irqs, 1200u);
  EXPECT_EQ(fixed.digest_mismatches, 0u);
  EXPECT_EQ(fixed.irqs, 1200u);
  EXPECT_LT(aligned.wall_s, fixed.wall_s * 0.8);
}

// workload.caller af_alg: afalg-bench's loop, a send and a read system call per message around the
// crypto call. On the CPU path the run's CPU time grows by exactly those four items per message
// (two SVC exceptions, two entry/exit paths, the socket's send and read); on the engine's path the
// same items, at the same cost on the caller's X4, come before each request.
TEST(Replay, AfAlgCallerPaysTheSystemCallsPerMessageOnBothPaths) {
  const auto runs = seed_runs(
      4,
      [](std::size_t i) {
        std::vector<std::string> sets;
        if (i % 2) sets.emplace_back("workload.caller=af_alg");
        return std::make_pair(std::string(i < 2 ? "sha256-lib" : "sha256-qce-nolock"), sets);
      },
      true);
  const auto& fn = function_seconds;
  const auto syscalls = [&](const studies::VariantResult& r) {
    return fn(r, "el0_svc") + fn(r, "el0_svc_common") + fn(r, "hash_sendmsg") + fn(r, "hash_recvmsg");
  };
  const auto& [lib, lib_af, qce, qce_af] = std::tie(runs[0], runs[1], runs[2], runs[3]);
  EXPECT_EQ(syscalls(lib), 0.0);
  EXPECT_EQ(syscalls(qce), 0.0);
  const double per_message = syscalls(lib_af) / 300;
  // 2 x 250 cycles at 3.3 GHz and 2 x 200 + 700 + 500 instructions at the X4's kernel IPC.
  EXPECT_GT(per_message, 0.4e-6);
  EXPECT_LT(per_message, 1.0e-6);
  EXPECT_NEAR(lib_af.cpu_s - lib.cpu_s, syscalls(lib_af), 1e-9);
  EXPECT_NEAR(syscalls(qce_af) / 300, per_message, 1e-12);
  EXPECT_NEAR(fn(qce_af, "caller"), fn(qce, "caller"), 1e-12);  // cost.caller_overhead stays
  EXPECT_GT(qce_af.wall_s - qce.wall_s, 0.8 * syscalls(qce_af));
}

// Another EE on the engine (scenarios/study-trustzone.json, shortened): without locking its
// register writes corrupt Linux's requests; with it, no wrong digests and Linux waits for the
// lock; with STATUS taken from the dump, nothing fails on either side.
namespace {
studies::VariantResult trustzone_variant(const char* name) {
  const auto sc = studies::Scenario::load(std::string(QCESIM_SOURCE_DIR) + "/scenarios/study-trustzone.json",
                                          {"workload.messages=1500"});
  return studies::run_variant(sc, sc.variant(name), false);
}
}  // namespace

TEST(Replay, TrustZoneRaceWithoutLockingNoneWithIt) {
  const auto nolock = trustzone_variant("mainline-no-lock");
  // Corrupted: wrong digests, or failed requests when the engine flags the clash (which of the
  // two depends on where in Linux's request TrustZone's writes land).
  EXPECT_GT(nolock.digest_mismatches + nolock.failed_requests, 0u);
  EXPECT_GT(nolock.live_state_writes, 0u);
  EXPECT_EQ(nolock.requests, 1500u);  // failed ones are counted, the run goes on
  ASSERT_FALSE(nolock.tz.is_null());
  EXPECT_GT(nolock.tz["jobs"].get<int>(), 0);
  EXPECT_DOUBLE_EQ(nolock.lock_wait_s, 0.0);
}

TEST(Replay, TrustZoneLockedSeriesGivesNoWrongDigestAndWaitsForTheLock) {
  const auto lock = trustzone_variant("series-lock-dump-status");
  EXPECT_EQ(lock.digest_mismatches, 0u);
  EXPECT_EQ(lock.failed_requests, 0u);
  EXPECT_EQ(lock.live_state_writes, 0u);
  EXPECT_GT(lock.lock_wait_s, 0.0);
  EXPECT_GT(lock.tz["jobs"].get<int>(), 100);
  EXPECT_EQ(lock.tz["completed"], lock.tz["jobs"]);
  EXPECT_EQ(lock.tz["digest_mismatches"].get<int>(), 0);
}

// Completion what-ifs (one variant per test: one elaboration per process): one interrupt per
// request without the data pipe's, none when polling, where the caller's CPU is busy for the
// whole request and no softirq or kworker runs.
namespace {
studies::VariantResult completion_variant(const char* name) {
  const auto sc = studies::Scenario::load(
      std::string(QCESIM_SOURCE_DIR) + "/scenarios/study-irq-coalescing-polling.json", {"workload.messages=200"});
  auto r = studies::run_variant(sc, sc.variant(name), false);
  EXPECT_EQ(r.digest_mismatches, 0u);
  EXPECT_EQ(r.requests, 200u);
  return r;
}
}  // namespace

TEST(Replay, CompletionWithoutTheDataPipesInterruptOneHardirqPerRequest) {
  const auto one = completion_variant("irq-one-per-request");
  EXPECT_EQ(one.irqs, 200u);
  // Mainline's 9.52 us of hardirq per request less one BAM interrupt's entry, handler and reads
  // (about 4.2 us); the wake-up IPI's hardirq on the X4 stays.
  EXPECT_NEAR(one.hardirq_s / 200 * 1e6, 5.28, 0.2);
}

TEST(Replay, CompletionPollingTakesNoInterruptAndKeepsTheCpuBusy) {
  const auto poll = completion_variant("poll-1us");
  EXPECT_EQ(poll.irqs, 0u);
  EXPECT_EQ(poll.hardirq_s + poll.softirq_s + poll.kworker_s, 0.0);
  EXPECT_NEAR(poll.cpu_s, poll.wall_s, 0.01 * poll.wall_s);  // the poller never sleeps
  EXPECT_LT(poll.wall_s / 200 * 1e6, 95.0);                  // mainline with interrupts: 99.4 us
}

// The 2025 measurements on the same profile, out of sample: everything fitted to P1 as it is
// (qce.finish included) but the caller's time, which is P1's harness and is restated for this
// benchmark's: single-request QCE at 4 KiB within 15%, as issue 3 asks.
TEST(Replay, Measurements2025P2QceAt4KiBWithin15Percent) {
  const auto sc = studies::Scenario::load(std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650-p2-4k.json",
                                          {"workload.messages=500"});
  const auto r = studies::run_variant(sc, sc.variant("sha256-qce"), true);
  EXPECT_NEAR(r.wall_s / r.measured.at("wall_s"), 1.0, 0.15);
  EXPECT_NEAR(r.wall_s / r.measured.at("wall_s"), 1.015, 0.03);  // +1.5% at 500 messages
}
