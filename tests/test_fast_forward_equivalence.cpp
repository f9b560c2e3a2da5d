// The replay's fast-forward against simulating every request (studies/fast_forward.h): on every
// shipped scenario and on configurations that stress its state (governors, idle states, lazy IOMMU
// flushes, queue depth, a second core, polling, size patterns, fallbacks, AEADs) the same results
// with and without it, down to the last bit of every output but host time.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "studies/processes.h"
#include "studies/replay.h"
#include "tests/process.h"

using namespace qcesim;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

struct Case {
  const char* scenario;
  const char* variant;
  std::vector<std::string> sets;
  bool skips;  // the configuration settles into a cycle within the run
  // At least this many skips: an ondemand governor that has not settled bounds each skip by its
  // next look (studies/fast_forward.h).
  std::uint64_t stretches = 1;
};

std::ostream& operator<<(std::ostream& os, const Case& c) {
  os << c.scenario << " " << c.variant;
  for (const auto& s : c.sets) os << " " << s;
  return os;
}

class FastForwardEquivalence : public testing::TestWithParam<Case> {};

}  // namespace

// Two processes (one elaboration each): the replay with and without the fast-forward.
TEST_P(FastForwardEquivalence, SameResultsAsSimulatingEveryRequest) {
  const Case& c = GetParam();
  std::vector<std::string> sets = c.sets;
  const bool timing_only = std::find(sets.begin(), sets.end(), "real-data") == sets.end();
  sets.erase(std::remove(sets.begin(), sets.end(), "real-data"), sets.end());
  const auto raw = studies::fork_each(
      2, 2,
      [&](std::size_t i) {
        std::vector<std::string> s = sets;
        s.push_back(i == 0 ? "sim.fast_forward=1" : "sim.fast_forward=0");
        const auto sc = studies::Scenario::load(test::scenario_source(c.scenario), s);
        // With real data the fast-forward run also has a helper thread (hash-ahead, and half of
        // the skipped requests' checks).
        return studies::run_variant(sc, sc.variant(c.variant), timing_only, !timing_only && i == 0).to_json();
      },
      [](std::size_t, const nlohmann::json&) {});
  nlohmann::json ff = raw[0], full = raw[1];
  ASSERT_TRUE(ff.contains("wall_s") && full.contains("wall_s")) << ff.dump() << full.dump();
  ASSERT_FALSE(full.contains("fast_forward"));
  if (c.skips) {
    ASSERT_TRUE(ff.contains("fast_forward")) << "no cycle found";
    EXPECT_GT(ff["fast_forward"]["skipped"].get<std::uint64_t>(), 0u);
    EXPECT_GE(ff["fast_forward"]["stretches"].get<std::uint64_t>(), c.stretches);
  } else {
    EXPECT_FALSE(ff.contains("fast_forward")) << ff["fast_forward"].dump();
  }
  for (auto* j : {&ff, &full})
    for (const char* k : {"host_seconds", "hash_ahead_hits", "fast_forward"}) j->erase(k);
  EXPECT_EQ(ff.dump(1), full.dump(1));
}

INSTANTIATE_TEST_SUITE_P(
    ShippedScenarios, FastForwardEquivalence,
    testing::Values(Case{"sm8650-seed.json", "sha256-lib", {"workload.messages=700"}, true},
                    Case{"sm8650-seed.json", "sha256-qce-nolock", {"workload.messages=700"}, true},
                    Case{"sm8650-seed.json", "sha256-qce-lock", {"workload.messages=700", "real-data"}, true},
                    Case{"sm8650-p2-4k.json", "sha256-qce", {"workload.messages=700"}, true},
                    Case{"sm8650-regio.json", "qce-cmd-nolock", {"workload.messages=700"}, true},
                    Case{"sm8650-xts-4k.json", "xts-qce-lock", {"workload.messages=700", "real-data"}, true},
                    Case{"sm8650-xts-4k.json", "xts-cpu", {"workload.messages=700", "real-data"}, true},
                    Case{"sm8650-cipher.json", "qce-nolock", {"workload.messages=700", "real-data"}, true},
                    Case{"sm8650-cipher.json", "qce-lock", {"workload.messages=700"}, true},
                    Case{"sm8650-cipher.json", "cpu", {"workload.messages=700"}, true},
                    Case{"study-ipsec-mix.json", "esp-qce-lock", {"workload.messages=700", "real-data"}, true},
                    Case{"study-ipsec-mix.json", "esp-cpu", {"workload.messages=700"}, true},
                    Case{"ipq40xx-cipher.json", "qce", {"workload.messages=700", "real-data"}, true},
                    Case{"ipq40xx-sha256.json", "sha256-qce", {"workload.messages=700"}, true},
                    Case{"study-irq-coalescing-polling.json", "poll-1us", {"workload.messages=700"}, true},
                    Case{
                        "study-irq-coalescing-polling.json", "series-lock-poll-1us", {"workload.messages=700"}, true}));

INSTANTIATE_TEST_SUITE_P(
    StressedState, FastForwardEquivalence,
    testing::Values(
        // Lazy IOMMU: the flush queue makes a cycle of 256 requests.
        Case{"sm8650-seed.json", "sha256-qce-lock", {"workload.messages=1500", "iommu.mode=lazy"}, true},
        // A second core takes the interrupt, three requests in flight.
        Case{"sm8650-seed.json",
             "sha256-qce-lock",
             {"workload.messages=1200", "cpu.irq_cpu=0", "workload.queue_depth=3"},
             true},
        Case{"sm8650-seed.json", "sha256-qce-nolock", {"workload.messages=700", "cpu.irq_cpu=7"}, true},
        // Two engine requests per message, the caller between them; two messages in flight.
        Case{"sm8650-seed.json",
             "sha256-qce-lock",
             {"workload.messages=900", "workload.hash_calls=init_update_final", "workload.queue_depth=2"},
             true},
        Case{"sm8650-xts-4k.json", "xts-qce-nolock", {"workload.messages=900", "workload.queue_depth=16"}, true},
        // User-space callers: an AIO read's completion in the done tasklet and its result
        // collected after the wake-up (the slot's pending after-work is state); user pages. (M1's
        // own engine reads synchronously; OpenSSL's AIO engine is set here.)
        Case{"ipq40xx-m1-cbc128-256.json",
             "qce",
             {"workload.messages=700", "workload.caller=af_alg_aio", "workload.af_alg_control=each", "real-data"},
             true},
        Case{"ipq40xx-m3-cbc256-8192.json", "qce", {"workload.messages=700"}, true},
        Case{"sm8650-m5-cbc128-enc.json", "qce", {"workload.messages=300"}, true},
        // Only the shallowest idle state, and the deep ones reachable (long idle periods).
        Case{"sm8650-seed.json", "sha256-qce-nolock", {"workload.messages=700", "cpuidle.off=1"}, true},
        Case{"sm8650-seed.json",
             "sha256-qce-nolock",
             {"workload.messages=700", "workload.message_bytes=32768", "cpuidle.cpu_sleep.target_residency=100"},
             true},
        // schedutil: PELT and the rate limit against the requests take thousands of requests to
        // come round exactly (a cycle of 2240 found after 12735 here); not within 700.
        Case{"sm8650-seed.json", "sha256-qce-nolock", {"workload.messages=700", "cpu.governor=schedutil"}, false},
        Case{"sm8650-seed.json",
             "sha256-qce-nolock",
             {"workload.messages=20000", "cpu.governor=schedutil", "cpu.irq_cpu=0"},
             true},
        Case{"sm8650-xts-4k.json",
             "xts-qce-lock",
             {"workload.messages=700", "cpu.governor=schedutil", "workload.queue_depth=4"},
             false},
        // ondemand (the IPQ40xx's): skipped up to its first look, between its first and second,
        // after it has settled. Held near a threshold it never settles (the clock flips between
        // two OPPs, p50 and p99 apart); on SM8650 neither, for both policies (irq on CPU0), two
        // requests in flight: a skip between every two looks.
        Case{"ipq40xx-m2-cbc128-16.json", "qce", {"workload.messages=2000"}, true, 3},
        // Every request to the driver's software fallback, in the caller's task (its time passes
        // request by request, so the state repeats).
        Case{"ipq40xx-m2-cbc128-16.json", "soft", {"workload.messages=2000", "real-data"}, true, 2},
        Case{"ipq40xx-m2-cbc128-8192.json",
             "qce",
             {"workload.messages=4000", "cpu.ondemand.up_threshold=0.6"},
             true,
             10},
        Case{"sm8650-seed.json",
             "sha256-qce-lock",
             {"workload.messages=3000", "cpu.governor=ondemand", "cpu.irq_cpu=0", "workload.queue_depth=2"},
             true,
             10}));

// The cycle the fast-forward looks for is the pool's timing period, not its 64 messages: one
// request for a pool of alike messages (found after a few requests when timing only, and only
// once every message has been through the simulated path with real data), a size mix's pattern
// when the sizes differ (the pool's period by length, on the CPU path too).
TEST(FastForwardCycle, IsOneRequestForAlikeMessagesAndTheSizePatternForAMix) {
  const auto raw = studies::fork_each(
      4, 2,
      [](std::size_t i) {
        const bool mix = i >= 2;
        const auto sc = studies::Scenario::load(
            test::scenario_source(mix ? "study-ipsec-mix.json" : "sm8650-seed.json"), {"workload.messages=700"});
        const bool real = i == 1;
        return studies::run_variant(sc, sc.variant(mix ? (i == 2 ? "esp-qce-nolock" : "esp-cpu") : "sha256-qce-nolock"),
                                    !real, false)
            .to_json();
      },
      [](std::size_t, const nlohmann::json&) {});
  for (const auto& j : raw) ASSERT_TRUE(j.contains("fast_forward")) << j.dump();
  EXPECT_EQ(raw[0]["fast_forward"]["period"], 1);
  EXPECT_LT(raw[0]["fast_forward"]["found_at"].get<int>(), 32);  // timing only: at once
  EXPECT_EQ(raw[1]["fast_forward"]["period"], 1);
  EXPECT_GE(raw[1]["fast_forward"]["found_at"].get<int>(), 64);  // real data: the pool went through once
  EXPECT_GT(raw[2]["fast_forward"]["period"].get<int>(), 1);     // the mix's sizes come round
  EXPECT_EQ(raw[2]["fast_forward"]["period"], raw[3]["fast_forward"]["period"]);
}
