// The replay's fast-forward's parts (studies/fast_forward.h): a state digest relative to now, the
// skipped requests' checks split over two threads, time beyond SystemC's range, progress.
// test_fast_forward_equivalence.cpp compares it with simulating every request.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "model/state_hash.h"
#include "studies/processes.h"
#include "studies/replay.h"
#include "tests/process.h"

using namespace qcesim;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

// A state with a pending instant and a duration, digested at `now`.
std::uint64_t digest_at(const sc_time& now, const sc_time& pending, const sc_time& span) {
  model::StateHash h(now);
  h.add(std::uint64_t{7});
  h.add_at(pending);
  h.add_span(span);
  return h.value();
}

}  // namespace

TEST(FastForward, StateHashTheSameStateLaterHasTheSameDigest) {
  const sc_time ten(10, SC_NS), five(5, SC_NS);
  EXPECT_EQ(digest_at(sc_time(100, SC_NS), sc_time(110, SC_NS), five),
            digest_at(sc_time(900, SC_NS), sc_time(910, SC_NS), five));
  // An instant as far in the past is another state; so is another duration.
  EXPECT_NE(digest_at(sc_time(100, SC_NS), sc_time(110, SC_NS), five),
            digest_at(sc_time(100, SC_NS), sc_time(90, SC_NS), five));
  EXPECT_NE(digest_at(sc_time(100, SC_NS), sc_time(110, SC_NS), five),
            digest_at(sc_time(100, SC_NS), sc_time(110, SC_NS), ten));
  model::StateHash a(ten), b(ten);
  a.add(std::uint64_t{1});
  a.add(std::uint64_t{2});
  b.add(std::uint64_t{2});
  b.add(std::uint64_t{1});
  EXPECT_NE(a.value(), b.value()) << "order matters";
}

// The skipped requests' checks split over two threads: every request checked once, the wrong
// ones summed, a failure in either half passed on.
TEST(FastForward, ChecksTwoHalvesCheckEveryRequestOnce) {
  for (bool helper : {false, true}) {
    std::vector<int> seen(1000, 0);
    const std::uint64_t wrong =
        studies::FastForward::check_in_halves(3, 997, helper, [&](std::uint64_t from, std::uint64_t n) {
          std::uint64_t bad = 0;
          for (std::uint64_t id = from; id < from + n; ++id) {
            ++seen[id];
            bad += id % 7 == 0;
          }
          return bad;
        });
    EXPECT_EQ(wrong, 142u) << helper;  // 7, 14, ..., 994
    EXPECT_EQ(std::count(seen.begin() + 3, seen.end(), 1), 997) << helper;
    EXPECT_EQ(seen[0] + seen[1] + seen[2], 0);
    EXPECT_THROW(studies::FastForward::check_in_halves(0, 500, helper,
                                                       [](std::uint64_t from, std::uint64_t n) -> std::uint64_t {
                                                         if (from + n > 250) throw std::runtime_error("second half");
                                                         return 0;
                                                       }),
                 std::runtime_error)
        << helper;
  }
}

// A run whose repeated cycles would carry simulated time past SystemC's 64-bit range fails with
// that said (simulating every request would run out of time too, after days of host time).
TEST(FastForward, ChecksBeyondSystemCsTimeRangeIsAnError) {
  const auto raw = studies::fork_each(
      1, 1,
      [](std::size_t) {
        const auto sc = studies::Scenario::load(test::scenario_source("sm8650-seed.json"),
                                                {"workload.messages=100000000000", "workload.message_bytes=1048576"});
        return studies::run_variant(sc, sc.variant("sha256-qce-nolock"), true).to_json();
      },
      [](std::size_t, const nlohmann::json&) {});
  ASSERT_TRUE(raw[0].contains("error")) << raw[0].dump();
  EXPECT_NE(raw[0]["error"].get<std::string>().find("more than SystemC's time range"), std::string::npos)
      << raw[0].dump();
}

// Progress tells the truth with the fast-forward on and off: the requests simulated or repeated,
// then (real data, fast-forward on) the skipped requests' outputs being checked, each phase's
// count rising to the total, with a time left once the phase has a rate (each phase's own).
TEST(FastForward, ChecksProgressCoversEveryPhaseUpToTheTotal) {
  for (const char* ff : {"sim.fast_forward=1", "sim.fast_forward=0"}) {
    const auto raw = studies::fork_each(
        1, 1,
        [ff](std::size_t) {
          const auto sc =
              studies::Scenario::load(test::scenario_source("sm8650-seed.json"), {"workload.messages=3000", ff});
          nlohmann::json seen = nlohmann::json::array();
          studies::ReplayProgress p;
          p.every_s = 0;  // every clock reading reports
          p.report = [&seen](std::uint64_t done, std::uint64_t total, double s, double left, const char* phase) {
            seen.push_back({{"done", done}, {"total", total}, {"s", s}, {"left", left}, {"phase", phase}});
          };
          (void)studies::run_variant(sc, sc.variant("sha256-qce-nolock"), false, false, &p);
          return nlohmann::json{{"reports", seen}};
        },
        [](std::size_t, const nlohmann::json&) {});
    ASSERT_FALSE(raw[0].contains("error")) << raw[0].dump();
    const auto& reports = raw[0]["reports"];
    ASSERT_GE(reports.size(), 3u) << ff;
    std::map<std::string, std::uint64_t> last;
    for (const auto& r : reports) {
      const std::string phase = r["phase"];
      EXPECT_EQ(r["total"], 3000u);
      EXPECT_LE(r["done"].get<std::uint64_t>(), 3000u);
      EXPECT_GE(r["done"].get<std::uint64_t>(), last[phase]) << phase << " went backwards";
      last[phase] = r["done"];
    }
    // The clock is read every 256 requests, so each phase's last report is within 256 of its end.
    EXPECT_GE(last["requests"], 3000u - 256u) << "the repeated cycles are reported up to the total";
    if (std::string(ff) == "sim.fast_forward=1") {
      EXPECT_GE(last["skipped requests' outputs checked"], 3000u - 256u) << reports.dump();
    } else {
      EXPECT_EQ(last.count("skipped requests' outputs checked"), 0u);
    }
    EXPECT_TRUE(std::any_of(reports.begin(), reports.end(),
                            [](const auto& r) { return r["left"].template get<double>() >= 0; }));
  }
}
