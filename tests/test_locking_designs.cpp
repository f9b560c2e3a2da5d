// The locking design alternatives (issue 24, docs/locking-designs.md), each run through the
// whole platform with real bytes: what each changes in descriptors, interrupts and lock pairs,
// and whether the TrustZone race still finds a way in.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli/compare_table.h"
#include "cli/run_command.h"
#include "model/config_error.h"
#include "studies/mechanisms.h"
#include "studies/processes.h"
#include "studies/replay.h"
#include "studies/sensitivity.h"
#include "studies/uncertainty.h"
#include "cpu/costs.h"

namespace qcesim {
namespace {

std::string study_path() { return std::string(QCESIM_SOURCE_DIR) + "/scenarios/study-locking-designs.json"; }

// The named variants of the study, each in its own process, with the scenario changed by `sets`.
std::vector<studies::VariantResult> run_designs(const std::vector<std::string>& names,
                                                const std::vector<std::string>& sets) {
  const auto sc = studies::Scenario::load(study_path(), sets);
  const auto raw = studies::fork_each(
      names.size(), 2, [&](std::size_t i) { return studies::run_variant(sc, sc.variant(names[i]), false).to_json(); },
      [](std::size_t, const nlohmann::json&) {});
  std::vector<studies::VariantResult> out;
  for (const auto& j : raw) {
    EXPECT_FALSE(j.contains("error")) << j.dump();
    out.push_back(studies::VariantResult::from_json(j));
  }
  return out;
}

// Register writes by MMIO inside one lock pair: four hardware descriptors per request (LOCK, the
// data, UNLOCK on rx; the dump on tx) instead of the series' 25, two interrupts (the UNLOCK's INT
// seen with the tx EOT's), one lock pair per request, right digests, and far less time than the
// series.
TEST(LockingDesigns, MmioInsideOneLockPair) {
  const auto r = run_designs({"mainline", "series", "mmio-lock"}, {"workload.messages=300"});
  const auto &mainline = r[0], &series = r[1], &mmio = r[2];
  EXPECT_EQ(mmio.digest_mismatches, 0u);
  EXPECT_EQ(mmio.bam_descriptors, 4u * 300);
  EXPECT_EQ(series.bam_descriptors, 25u * 300);
  EXPECT_EQ(mmio.irqs, 2u * 300);
  EXPECT_EQ(mmio.lock_pairs, 300u);
  EXPECT_EQ(mainline.lock_pairs, 0u);
  EXPECT_GT(mmio.wall_s, mainline.wall_s);  // the lock's round trip and its interrupt
  EXPECT_LT(mmio.wall_s, 0.6 * series.wall_s);
  EXPECT_GT(mmio.mech_polling_s, 0.0);  // the CPU waited for the LOCK
  EXPECT_EQ(series.mech_polling_s, 0.0);
}

// Lock flags on the request's own descriptors: no dummy LOCK, the UNLOCK a CONFIG reset after the
// data: 24 hardware descriptors per request instead of 25, still one lock pair and the series'
// interrupts, right digests, and less time than the series (no LOCK element to map, fetch and run).
TEST(LockingDesigns, InlineLockFlagsReplaceTheDummyDescriptors) {
  const auto r = run_designs({"series", "series-inline"}, {"workload.messages=300"});
  const auto &series = r[0], &inl = r[1];
  EXPECT_EQ(inl.digest_mismatches, 0u);
  EXPECT_EQ(inl.bam_descriptors, 24u * 300);
  EXPECT_EQ(inl.lock_pairs, 300u);
  EXPECT_EQ(inl.irqs, series.irqs);
  EXPECT_LT(inl.wall_s, series.wall_s);
  EXPECT_LT(inl.cpu_s, series.cpu_s);
}

// An UNLOCK that asks for no interrupt (downstream qce50's way): two interrupts per request, as
// the series takes on this profile (its UNLOCK's INT a few ns ahead of the tx EOT's handler), the
// UNLOCK reclaimed by terminate_all after a pipe reset, so its unmap moves from hardirq to
// softirq; the lock pairs and the digests are the series'.
TEST(LockingDesigns, QuietUnlockIsReclaimedByTerminateAllInSoftirq) {
  const auto r = run_designs({"series", "series-quiet-unlock"}, {"workload.messages=300"});
  const auto &series = r[0], &quiet = r[1];
  EXPECT_EQ(quiet.digest_mismatches, 0u);
  EXPECT_EQ(series.irqs, 2u * 300);
  EXPECT_EQ(quiet.irqs, 2u * 300);
  EXPECT_EQ(quiet.lock_pairs, 300u);
  EXPECT_EQ(quiet.bam_descriptors, series.bam_descriptors);
  EXPECT_LT(quiet.hardirq_s, series.hardirq_s - 300 * 3e-6);  // an unmap less (TLBIVAL and sync: 3.6 us)
  EXPECT_GT(quiet.softirq_s, series.softirq_s + 300 * 3e-6);  // the unmap and the pipe reset
}

// One lock pair around a batch: at queue depth 1 there is never a request queued behind, so a
// pair per request as the series; at depth 4 the batches share pairs (at most 8 requests each).
TEST(LockingDesigns, LockBatchSharesPairsOnlyWhenRequestsQueue) {
  const auto d1 = run_designs({"series-coherent-dump-batch8"}, {"workload.messages=200"});
  EXPECT_EQ(d1[0].lock_pairs, 200u);
  const auto d4 = run_designs({"series-coherent-dump", "series-coherent-dump-batch8"},
                              {"workload.messages=400", "workload.queue_depth=4"});
  EXPECT_EQ(d4[0].lock_pairs, 400u);
  EXPECT_EQ(d4[1].digest_mismatches, 0u);
  EXPECT_GE(d4[1].lock_pairs, 400u / 8);
  EXPECT_LT(d4[1].lock_pairs, 400u / 2);
  EXPECT_LT(d4[1].bam_descriptors, d4[0].bam_descriptors);
  // The UNLOCKs a batch saves took no interrupt of their own (seen with the tx EOT's): no fewer.
  EXPECT_EQ(d4[1].irqs, d4[0].irqs);
}

// Polling at load: at queue depth 1 no request is ever queued behind the one starting, so the
// same run as with interrupts; at depth 4 the requests that start with others behind them are
// polled for (no interrupt of theirs), the digests stay right, and the CPU pays for the polling.
TEST(LockingDesigns, AdaptiveCompletionPollsOnlyWhileRequestsQueue) {
  const auto d1 = run_designs({"series-coherent-dump", "series-coherent-dump-adaptive"}, {"workload.messages=200"});
  EXPECT_EQ(d1[1].irqs, d1[0].irqs);
  EXPECT_DOUBLE_EQ(d1[1].wall_s, d1[0].wall_s);
  const auto d4 = run_designs({"series-coherent-dump", "series-coherent-dump-adaptive"},
                              {"workload.messages=400", "workload.queue_depth=4"});
  EXPECT_EQ(d4[1].digest_mismatches, 0u);
  EXPECT_EQ(d4[1].completed, 400u);
  EXPECT_LT(d4[1].irqs, d4[0].irqs / 2);
  EXPECT_GT(d4[1].mech_polling_s, 0.0);
  EXPECT_EQ(d4[0].mech_polling_s, 0.0);
}

// Polling at load where the done path is the pre-2024 tasklet (softirq: no context to spin in)
// stays with interrupts, and a hung engine under polling at load fails its requests by the poll's
// own deadline (the watchdog's work would be queued behind the polling kworker) and the run goes on.
TEST(LockingDesigns, AdaptiveCompletionSurvivesTaskletErasAndHangs) {
  const auto era = run_designs({"series-coherent-dump-adaptive"},
                               {"workload.messages=300", "workload.queue_depth=4", "overrides.driver.era=2021"});
  EXPECT_EQ(era[0].completed, 300u);
  EXPECT_EQ(era[0].digest_mismatches, 0u);
  const auto hang = run_designs({"series-coherent-dump-adaptive"},
                                {"workload.messages=400", "workload.queue_depth=4", "faults.engine_hang=0.02"});
  EXPECT_EQ(hang[0].issued, hang[0].completed + hang[0].failed + hang[0].fallback);
  EXPECT_GT(hang[0].failed, 0u);
  EXPECT_GT(hang[0].completed, 300u);
  EXPECT_EQ(hang[0].digest_mismatches, 0u);
}

// Lock only while shared: with no other EE the handshake never asks for the lock (mainline's
// descriptors and interrupts); with one, Linux locks while it is active and both sides' digests
// stay right, no request fails.
TEST(LockingDesigns, LockWhenSharedLocksOnlyWhileTheOtherEeIsActive) {
  const auto alone = run_designs({"mmio-shared"}, {"workload.messages=200"});
  EXPECT_EQ(alone[0].lock_pairs, 0u);
  EXPECT_EQ(alone[0].bam_descriptors, 2u * 200);
  const auto shared =
      run_designs({"mmio-shared", "series-shared"}, {"workload.messages=1500", "workload.tz.rate_per_s=500"});
  for (const auto& r : shared) {
    SCOPED_TRACE(r.name);
    EXPECT_EQ(r.digest_mismatches, 0u);
    EXPECT_EQ(r.failed_requests, 0u);
    EXPECT_GT(r.lock_pairs, 0u);
    EXPECT_LT(r.lock_pairs, r.requests);  // unlocked between the other EE's bursts
    EXPECT_GT(r.tz.at("share_switches").get<std::uint64_t>(), 0u);
    EXPECT_EQ(r.tz.at("digest_mismatches").get<std::uint64_t>(), 0u);
    EXPECT_EQ(r.tz.at("timeouts").get<std::uint64_t>(), 0u);
    // Every job but one still under way when Linux's last request ended.
    EXPECT_GE(r.tz.at("completed").get<std::uint64_t>() + 1, r.tz.at("jobs").get<std::uint64_t>());
  }
}

// The designs that keep the lock and take STATUS from the dump are safe by construction: no
// wrong digest, no failed request, no timeout on either side at a high TrustZone rate; mainline
// in the same run is not.
TEST(LockingDesigns, SafeDesignsPassTheTrustZoneRace) {
  const auto r = run_designs({"mainline", "mmio-lock-dump", "series-coherent-dump", "series-inline-coherent-dump"},
                             {"workload.messages=1500", "workload.tz.rate_per_s=5000"});
  EXPECT_GT(r[0].digest_mismatches + r[0].failed_requests, 0u);
  for (std::size_t i = 1; i < r.size(); ++i) {
    SCOPED_TRACE(r[i].name);
    EXPECT_EQ(r[i].digest_mismatches, 0u);
    EXPECT_EQ(r[i].failed_requests, 0u);
    EXPECT_EQ(r[i].tz.at("digest_mismatches").get<std::uint64_t>(), 0u);
    EXPECT_EQ(r[i].tz.at("timeouts").get<std::uint64_t>(), 0u);
    EXPECT_GT(r[i].lock_wait_s, 0.0);  // the two EEs did contend
  }
}

// Every cost item's kernel function belongs to a mechanism, and a run's CPU time is the sum of
// its mechanisms'.
TEST(LockingDesigns, MechanismsCoverEveryCostItemAndAddUpToTheCpuTime) {
  for (const auto& item : cpu::kCostItems)
    EXPECT_NE(studies::mechanism_of(item.label), studies::Mechanism::other) << item.label;
  EXPECT_EQ(studies::mechanism_of("no_such_function"), studies::Mechanism::other);
  const auto r = run_designs({"series", "series-coherent-dump-poll"}, {"workload.messages=200"});
  for (const auto& v : r) {
    double sum = 0;
#define QCESIM_MECHANISM_SUM(A, name, ...) sum += v.mech_##name##_s;
    QCESIM_MECHANISMS(QCESIM_MECHANISM_SUM, _)
#undef QCESIM_MECHANISM_SUM
    EXPECT_NEAR(sum, v.cpu_s, 1e-9 * v.cpu_s + 1e-12) << v.name;
    EXPECT_EQ(v.mech_other_s, 0.0) << v.name;
  }
  // The coherent command elements' saving is in the TLB and the maps, none of it in interrupts.
  const std::string table = cli::format_compare(r, "series");
  EXPECT_NE(table.find("difference to series"), std::string::npos) << table;
  EXPECT_NE(table.find("tlb"), std::string::npos) << table;
}

// --uncertainty with --compare: the differences are taken sample by sample (both variants draw
// the same parameter values), so the series' lead over mainline shows in every sample and its
// nominal difference is the two nominal runs' difference.
TEST(LockingDesigns, UncertaintyComparesPairedSamples) {
  studies::UncertaintySpec spec;
  spec.scenario = study_path();
  spec.sets = {"workload.messages=200"};
  spec.variants = {"mainline", "series", "mmio-shared"};
  spec.samples = 6;
  spec.jobs = 2;
  spec.compare = "mainline";
  std::ostringstream progress;
  const studies::UncertaintyResult r = studies::run_uncertainty(spec, progress);
  ASSERT_EQ(r.diffs.size(), 2u);
  EXPECT_EQ(r.diffs[0].name, "series");
  const studies::DiffBand& wall = r.diffs[0].quantity.at("wall_s");
  EXPECT_EQ(wall.n, 6u);
  EXPECT_EQ(wall.lower, 0.0);  // slower than mainline in every sample
  EXPECT_GT(wall.p05, 0.0);
  const double nominal = r.variants[1].quantity.at("wall_s").nominal - r.variants[0].quantity.at("wall_s").nominal;
  EXPECT_DOUBLE_EQ(wall.nominal, nominal);
  // mmio-shared with no other EE is mainline plus a handshake: never faster.
  EXPECT_EQ(r.diffs[1].quantity.at("wall_s").lower, 0.0);
  EXPECT_LT(r.diffs[1].quantity.at("wall_s").p95, 0.01 * r.variants[0].quantity.at("wall_s").nominal);
  const std::string table = studies::uncertainty_table(r);
  EXPECT_NE(table.find("difference to mainline, sample by sample"), std::string::npos) << table;
  EXPECT_TRUE(studies::uncertainty_json(r, spec).contains("compare"));
}

// sensitivity --compare: the effects on a difference between two designs, named "X - NAME";
// the wall difference between MMIO inside one lock pair and command elements moves with the BAM's
// command-element timing, which only the command-element design uses.
TEST(LockingDesigns, SensitivityRanksTheParametersOfADifference) {
  studies::SensitivitySpec spec;
  spec.base.scenario = study_path();
  spec.base.sets = {"workload.messages=200"};
  spec.base.variants = {"series-inline-coherent-dump", "mmio-lock-dump"};
  spec.base.compare = "series-inline-coherent-dump";
  spec.base.jobs = 2;
  spec.trajectories = 2;
  std::ostringstream progress;
  const studies::SensitivityResult r = studies::run_sensitivity(spec, progress);
  ASSERT_EQ(r.variants.size(), 1u);
  EXPECT_EQ(r.variants[0].first, "mmio-lock-dump - series-inline-coherent-dump");
  const auto& wall = r.variants[0].second.at("wall_s");
  ASSERT_FALSE(wall.empty());
  EXPECT_EQ(wall.front().param.rfind("bam.", 0), 0u) << wall.front().param;
  EXPECT_GT(wall.front().mu_star, 0.0);
}

// --compare names a variant the run simulates, checked before any run.
TEST(LockingDesigns, CompareNamesAVariantOfTheRun) {
  cli::RunOptions o;
  o.scenario = study_path();
  o.variants = {"mainline"};
  o.compare = "series";
  std::ostringstream out, err;
  try {
    cli::run_scenario(o, out, err);
    ADD_FAILURE() << "no error";
  } catch (const model::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("a variant the run simulates"), std::string::npos) << e.what();
  }
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace qcesim
