// Uncertainty and validation: the sampler against its intervals, and the two commands end to end
// (each run in its own processes, as the CLI does it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "model/profile.h"
#include "studies/sensitivity.h"
#include "studies/caller_path.h"
#include "studies/uncertainty.h"
#include "tests/process.h"

using nlohmann::json;
using qcesim::studies::sample_sets;
using qcesim::studies::UncertainParam;
namespace test = qcesim::test;

namespace {

double value_of(const std::string& set) { return std::stod(set.substr(set.find('=') + 1)); }

}  // namespace

// Same seed, same samples; the draws' 5th and 95th percentiles sit at the interval's ends
// (log-normal), a range clips, and whole-number units come out whole.
TEST(Uncertainty, SamplesAreReproducibleAndMatchTheirIntervals) {
  const std::vector<UncertainParam> ps = {{"a", 100, 400, 1, 1e6, false},
                                          {"b", -1, 1, -10, 10, false},
                                          {"c", 1, 1000, 5, 50, false},
                                          {"d", 2, 20, 0, 100, true}};
  EXPECT_EQ(sample_sets(ps, 7, 3), sample_sets(ps, 7, 3));
  EXPECT_NE(sample_sets(ps, 7, 3), sample_sets(ps, 8, 3));
  EXPECT_NE(sample_sets(ps, 7, 3), sample_sets(ps, 7, 4));
  // A parameter's draws are its own: one added to or left out of the profile changes no other's.
  const auto all = sample_sets(ps, 7, 3), some = sample_sets({ps[0], ps[2]}, 7, 3);
  EXPECT_EQ(some[0], all[0]);
  EXPECT_EQ(some[1], all[2]);
  std::vector<double> a, b;
  for (std::size_t i = 0; i < 4000; ++i) {
    const auto s = sample_sets(ps, 1, i);
    ASSERT_EQ(s.size(), 4u);
    EXPECT_EQ(s[0].rfind("a=", 0), 0u);
    a.push_back(value_of(s[0]));
    b.push_back(value_of(s[1]));
    const double c = value_of(s[2]), d = value_of(s[3]);
    EXPECT_GE(c, 5);
    EXPECT_LE(c, 50);
    EXPECT_EQ(d, static_cast<double>(static_cast<long>(d)));
  }
  // and independent of each other's (a and b differ in one letter of their names).
  double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) ma += std::log(a[i]) / 4000, mb += b[i] / 4000;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double x = std::log(a[i]) - ma, y = b[i] - mb;
    sab += x * y, saa += x * x, sbb += y * y;
  }
  EXPECT_LT(std::abs(sab / std::sqrt(saa * sbb)), 0.05);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_NEAR(a[200], 100, 8);    // 5th percentile
  EXPECT_NEAR(a[3800], 400, 30);  // 95th
  EXPECT_NEAR(a[2000], 200, 10);  // the geometric middle
  EXPECT_NEAR(b[200], -1, 0.08);  // a normal when the interval reaches zero
  EXPECT_NEAR(b[3800], 1, 0.08);
}

// The profile's varying parameters are those with an interval of some width.
TEST(Uncertainty, TheProfilesIntervalsAreWhatVaries) {
  const auto p = qcesim::model::Profile::load(std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650.json");
  const auto ps = qcesim::studies::uncertain_params(p);
  EXPECT_GT(ps.size(), 30u);
  bool tlb_sync = false, freq = false;
  for (const auto& u : ps) {
    tlb_sync = tlb_sync || u.name == "cost.arm_smmu_tlb_sync";
    freq = freq || u.name == "cpu.cortex-x4.freq";
    EXPECT_LT(u.lo, u.hi) << u.name;
  }
  EXPECT_TRUE(tlb_sync);
  EXPECT_FALSE(freq);  // a datasheet clock is held
}

// The 95 % points of Student's t the --seeds intervals use.
TEST(Uncertainty, SeedsStudentTValues) {
  EXPECT_DOUBLE_EQ(qcesim::studies::student_t975(1), 12.706);
  EXPECT_DOUBLE_EQ(qcesim::studies::student_t975(3), 3.182);
  EXPECT_DOUBLE_EQ(qcesim::studies::student_t975(9), 2.262);
  EXPECT_DOUBLE_EQ(qcesim::studies::student_t975(30), 2.042);
  EXPECT_DOUBLE_EQ(qcesim::studies::student_t975(200), 1.96);
}

// Morris trajectories: k + 1 points each, one parameter moving per step and every parameter
// exactly once per trajectory, the same from the same seed.
TEST(Uncertainty, SensitivityTrajectoriesMoveOneParameterAtATimeEachOnce) {
  const std::vector<UncertainParam> ps = {
      {"a", 100, 400, 1, 1e6, false}, {"b", -1, 1, -10, 10, false}, {"c", 1, 1000, 0, 1e4, false}};
  const auto pts = qcesim::studies::morris_points(ps, 5, 3);
  ASSERT_EQ(pts.size(), 5u * 4u);
  EXPECT_EQ(pts, qcesim::studies::morris_points(ps, 5, 3));
  EXPECT_NE(pts, qcesim::studies::morris_points(ps, 5, 4));
  for (std::size_t t = 0; t < 5; ++t) {
    std::vector<int> moved(3, 0);
    for (std::size_t s = 0; s < 3; ++s) {
      int changes = 0;
      for (std::size_t i = 0; i < 3; ++i)
        if (pts[t * 4 + s][i] != pts[t * 4 + s + 1][i]) {
          ++changes;
          ++moved[i];
        }
      EXPECT_EQ(changes, 1);
    }
    EXPECT_EQ(moved, std::vector<int>({1, 1, 1}));
  }
}

// A parameter added to the profile leaves every other parameter's start, direction and relative
// order in each trajectory as they were (keyed by name): the points without the new parameter's
// column, and without the one step where only it moves, are the old design's.
TEST(Uncertainty, SensitivityTrajectoriesKeepTheirStepsWhenAParameterIsAdded) {
  const std::vector<UncertainParam> ps = {
      {"a", 100, 400, 1, 1e6, false}, {"b", -1, 1, -10, 10, false}, {"c", 1, 1000, 0, 1e4, false}};
  std::vector<UncertainParam> more = ps;
  more.insert(more.begin() + 1, UncertainParam{"a2", 5, 50, 1, 100, false});
  const auto old_pts = qcesim::studies::morris_points(ps, 4, 9);
  const auto new_pts = qcesim::studies::morris_points(more, 4, 9);
  for (std::size_t t = 0; t < 4; ++t) {
    std::vector<std::vector<std::string>> kept;
    for (std::size_t s = 0; s < 5; ++s) {
      std::vector<std::string> row = new_pts[t * 5 + s];
      row.erase(row.begin() + 1);                                   // a2's column
      if (kept.empty() || kept.back() != row) kept.push_back(row);  // a2's own step changes nothing else
    }
    const std::vector<std::vector<std::string>> was(old_pts.begin() + static_cast<std::ptrdiff_t>(t * 4),
                                                    old_pts.begin() + static_cast<std::ptrdiff_t>(t * 4 + 4));
    EXPECT_EQ(kept, was) << "trajectory " << t;
  }
}

// What no run can feel stays out of the designs: with an in-kernel caller the user-space callers'
// items and the copy bandwidth; on the IPQ40xx the what-if Cortex-A53's figures; with a user-space
// caller the other callers' items. M1's synchronous AF_ALG caller (control messages once) varies
// its socket's items and the A7's copy bandwidth, not AIO's, the control messages' or cryptodev's.
TEST(Uncertainty, ParametersNoRunCanFeelAreLeftOutOfTheDesign) {
  auto names = [](const std::string& scenario) {
    qcesim::studies::UncertaintySpec spec;
    spec.scenario = std::string(QCESIM_SOURCE_DIR) + "/scenarios/" + scenario;
    std::set<std::string> n;
    for (const UncertainParam& u : qcesim::studies::design_for(spec).params) n.insert(u.name);
    return n;
  };
  const auto seed = names("sm8650-seed.json");
  const auto m1 = names("ipq40xx-m1-cbc128-256.json");
  for (const char* p :
       {"cost.af_alg_skcipher_send", "cost.svc_exception", "cost.cryptodev_pin_page", "cpu.cortex-x4.copy_bandwidth"})
    EXPECT_EQ(seed.count(p), 0u) << p;
  EXPECT_EQ(seed.count("cpu.cortex-x4.kernel_ipc"), 1u);
  EXPECT_EQ(seed.count("cost.arm_smmu_tlb_sync"), 1u);
  for (const char* p : {"cost.af_alg_skcipher_send", "cost.gup_page", "cost.svc_exception",
                        "cpu.cortex-a7.copy_bandwidth", "cpu.cortex-a7.kernel_ipc"})
    EXPECT_EQ(m1.count(p), 1u) << p;
  for (const char* p : {"cost.aio_complete", "cost.af_alg_skcipher_control", "cost.cryptodev_pin_page"})
    EXPECT_EQ(m1.count(p), 0u) << p;
  EXPECT_EQ(m1.count("cpu.cortex-a53.kernel_ipc"), 0u);
  const std::vector<std::string> a7 = {"cortex-a7"};
  qcesim::studies::Workload kernel;
  EXPECT_TRUE(qcesim::studies::param_can_matter("cpu.count_scale", kernel, a7));
  EXPECT_TRUE(qcesim::studies::param_can_matter("cpu.des_cycles_per_byte", kernel, a7));
  EXPECT_FALSE(qcesim::studies::param_can_matter("cpu.cortex-a53.freq", kernel, a7));
  EXPECT_FALSE(qcesim::studies::param_can_matter("cost.gup_page", kernel, a7));
  EXPECT_TRUE(qcesim::studies::param_can_matter("cost.kmalloc", kernel, a7));  // the drivers' too
  qcesim::studies::Workload aio;
  aio.algorithm = *qcesim::parse_alg_name("cbc(aes)");
  aio.caller = qcesim::studies::Workload::Caller::af_alg_aio;
  EXPECT_TRUE(qcesim::studies::param_can_matter("cost.aio_submit", aio, a7));
  EXPECT_TRUE(qcesim::studies::param_can_matter("cost.af_alg_skcipher_control", aio, a7));
  EXPECT_FALSE(qcesim::studies::param_can_matter("cost.cryptodev_crypt", aio, a7));
  EXPECT_FALSE(qcesim::studies::param_can_matter("cost.af_alg_hash_send", aio, a7));
  qcesim::studies::Workload dev = aio;
  dev.caller = qcesim::studies::Workload::Caller::cryptodev;
  EXPECT_TRUE(qcesim::studies::param_can_matter("cost.cryptodev_pin_page", dev, a7));
  EXPECT_TRUE(qcesim::studies::param_can_matter("cost.svc_exception", dev, a7));
  EXPECT_FALSE(qcesim::studies::param_can_matter("cost.af_alg_skcipher_send", dev, a7));
  EXPECT_FALSE(qcesim::studies::param_can_matter("cost.gup_page", dev, a7));
}

// A scenario restating a parameter for its own setting ({value, interval, provenance}): the value
// and provenance are in force, and with an interval of its own the parameter still varies (a plain
// value pins it). The shipped 2025 scenarios restate P1's caller time this way and take the rest of
// P1's fit as it is (qce.finish varies in its fitted interval).
TEST(Uncertainty, ARestatedParameterVariesInItsOwnInterval) {
  const std::string p2 = std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650-p2-4k.json";
  qcesim::studies::UncertaintySpec spec;
  spec.scenario = p2;
  const auto d = qcesim::studies::design_for(spec);
  auto varies = [](const qcesim::studies::Design& design, const std::string& name) {
    return std::find_if(design.params.begin(), design.params.end(),
                        [&name](const UncertainParam& u) { return u.name == name; });
  };
  const auto it = varies(d, "cost.caller_overhead");
  ASSERT_NE(it, d.params.end());
  EXPECT_DOUBLE_EQ(it->lo, 100);
  EXPECT_DOUBLE_EQ(it->hi, 38829);
  const auto prof = d.sc.profile_for(d.sc.variant("sha256-qce"));
  EXPECT_DOUBLE_EQ(prof.num("cost.caller_overhead"), 500);
  EXPECT_EQ(prof.param("cost.caller_overhead").provenance.rfind("estimate: a different harness", 0), 0u);
  EXPECT_NE(varies(d, "qce.finish"), d.params.end());
  // A plain value (--set, or an override without an interval) pins it.
  spec.sets = {"cost.caller_overhead=1000", R"(qce.finish={"value": 20000, "provenance": "estimate: x"})"};
  const auto pinned = qcesim::studies::design_for(spec);
  EXPECT_EQ(varies(pinned, "cost.caller_overhead"), pinned.params.end());
  EXPECT_EQ(varies(pinned, "qce.finish"), pinned.params.end());
  // Restated with an interval on the command line, it varies in that one.
  spec.sets = {R"(qce.finish={"value": 20000, "interval": [15000, 30000], "provenance": "estimate: x"})"};
  const auto restated = qcesim::studies::design_for(spec);
  const auto f = varies(restated, "qce.finish");
  ASSERT_NE(f, restated.params.end());
  EXPECT_DOUBLE_EQ(f->lo, 15000);
  EXPECT_DOUBLE_EQ(f->hi, 30000);
}

namespace {

// The empirical correlation of two series.
double correlation(const std::vector<double>& x, const std::vector<double>& y) {
  double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
  const double n = static_cast<double>(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) mx += x[i] / n, my += y[i] / n;
  for (std::size_t i = 0; i < x.size(); ++i)
    sxy += (x[i] - mx) * (y[i] - my), sxx += (x[i] - mx) * (x[i] - mx), syy += (y[i] - my) * (y[i] - my);
  return sxy / std::sqrt(sxx * syy);
}

}  // namespace

// A profile's correlated group is drawn jointly: the draws' correlations in log space are the
// group's, each member's 5th and 95th percentiles stay at its interval's ends, a parameter
// outside the group stays independent, and a member left out of the design leaves the others
// their marginal: the sub-matrix's correlations (the first member's draws are its own draws
// whatever the group).
TEST(Uncertainty, ACorrelatedGroupIsDrawnJointly) {
  auto param = [](double lo, double hi) {
    return json{{"value", std::sqrt(lo * hi)},
                {"unit", "ns"},
                {"range", {1, 1e6}},
                {"interval", {lo, hi}},
                {"provenance", "estimate: a test's"}};
  };
  const json j = {
      {"profile", "t"},
      {"parameters", {{"a", param(100, 400)}, {"b", param(10, 1000)}, {"c", param(50, 60)}, {"d", param(5, 50)}}},
      {"correlations",
       {{{"parameters", {"a", "b", "d"}},
         {"correlation", {{1, -0.8, 0.3}, {-0.8, 1, -0.5}, {0.3, -0.5, 1}}},
         {"provenance", "calibrated: a test's"}}}}};
  const auto p = qcesim::model::Profile::parse(j, "t.json");
  auto ps = qcesim::studies::uncertain_params(p);
  const auto independent = ps;
  qcesim::studies::correlate(ps, p);
  ASSERT_EQ(ps.size(), 4u);         // a, b, c, d
  EXPECT_EQ(ps[0].mix.size(), 1u);  // a: its own draw
  EXPECT_EQ(ps[1].mix.size(), 2u);  // b: a's and its own
  EXPECT_TRUE(ps[2].mix.empty());
  EXPECT_EQ(ps[3].mix.size(), 3u);
  auto logs = [](const std::vector<UncertainParam>& design, std::size_t n) {
    std::vector<std::vector<double>> v(design.size());
    for (std::size_t i = 0; i < n; ++i) {
      const auto s = sample_sets(design, 5, i);
      for (std::size_t q = 0; q < s.size(); ++q) v[q].push_back(std::log(value_of(s[q])));
    }
    return v;
  };
  const auto x = logs(ps, 4000);
  for (std::size_t i = 0; i < 50; ++i) EXPECT_EQ(sample_sets(ps, 5, i)[0], sample_sets(independent, 5, i)[0]);
  EXPECT_NEAR(correlation(x[0], x[1]), -0.8, 0.03);
  EXPECT_NEAR(correlation(x[0], x[3]), 0.3, 0.04);
  EXPECT_NEAR(correlation(x[1], x[3]), -0.5, 0.04);
  EXPECT_NEAR(correlation(x[0], x[2]), 0, 0.05);
  EXPECT_NEAR(correlation(x[1], x[2]), 0, 0.05);
  for (std::size_t q : {1u, 3u}) {  // the members' marginals are their intervals still
    std::vector<double> v = x[q];
    std::sort(v.begin(), v.end());
    EXPECT_NEAR(std::exp(v[200]), independent[q].lo, 0.15 * independent[q].lo) << q;
    EXPECT_NEAR(std::exp(v[3800]), independent[q].hi, 0.15 * independent[q].hi) << q;
  }
  // Without b in the design, a and d keep their own correlation (0.3), and c stays alone.
  std::vector<UncertainParam> no_b = {independent[0], independent[2], independent[3]};
  qcesim::studies::correlate(no_b, p);
  EXPECT_TRUE(no_b[1].mix.empty());
  const auto y = logs(no_b, 4000);
  EXPECT_NEAR(correlation(y[0], y[2]), 0.3, 0.04);
  // Without a and b, d is drawn on its own.
  std::vector<UncertainParam> only_d = {independent[2], independent[3]};
  qcesim::studies::correlate(only_d, p);
  EXPECT_TRUE(only_d[1].mix.empty());
  EXPECT_EQ(sample_sets(only_d, 5, 9), sample_sets({independent[2], independent[3]}, 5, 9));
}

// The shipped SM8650 profile draws P1's four fitted parameters together in the seed's design,
// with the profile's correlations exactly (the mixes are a Cholesky factor L of them: L L^T is the
// matrix); a scenario restating one of them with an interval of its own (the 2025 scenarios'
// caller time) draws it on its own and the other three with their sub-matrix.
TEST(Uncertainty, P1sFittedParametersAreDrawnTogether) {
  const auto prof =
      qcesim::model::Profile::load(std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650.json").correlations();
  ASSERT_EQ(prof.size(), 1u);
  const qcesim::model::Correlation& g = prof[0];
  auto check = [&g](const std::string& scenario, const std::vector<std::string>& expected) {
    qcesim::studies::UncertaintySpec spec;
    spec.scenario = std::string(QCESIM_SOURCE_DIR) + "/scenarios/" + scenario;
    std::map<std::string, std::map<std::string, double>> row;  // member -> the draws it mixes
    for (const UncertainParam& u : qcesim::studies::design_for(spec).params)
      for (const auto& [name, w] : u.mix) row[u.name][name] = w;
    std::vector<std::string> members;
    for (const auto& [name, _] : row) members.push_back(name);
    EXPECT_EQ(members, expected) << scenario;
    auto at = [&g](const std::string& n) {
      return static_cast<std::size_t>(std::find(g.names.begin(), g.names.end(), n) - g.names.begin());
    };
    for (const std::string& a : members)
      for (const std::string& b : members) {
        double llt = 0;  // (L L^T)[a][b]
        for (const auto& [name, w] : row[a]) llt += w * (row[b].count(name) ? row[b].at(name) : 0.0);
        EXPECT_NEAR(llt, g.matrix[at(a)][at(b)], 1e-9) << scenario << " " << a << " " << b;
      }
  };
  check("sm8650-seed.json", {"bam.ce_fetch", "cost.caller_overhead", "cost.readl", "qce.finish"});
  check("sm8650-p2-4k.json", {"bam.ce_fetch", "cost.readl", "qce.finish"});
  check("ipq40xx-m1-cbc128-256.json", {});
}

// Pinning is per variant. In the hypotheses study H1's variants draw P1's four fitted parameters
// from the profile's posterior (jointly), H2's from that hypothesis' own fit (its variants restate
// them with intervals of their own, out of the profile's group, jointly by the variant's own
// correlations, and alike in every H2 variant), and what H2 holds (a command element at its source's 0.2 us) stays out
// of H2's draws only. A restated parameter's sampled value reaches its variant's profile and no other's; what two
// variants share they draw alike, sample by sample (--compare's pairs).
TEST(Uncertainty, EachVariantDrawsWhatItDoesNotHold) {
  qcesim::studies::UncertaintySpec spec;
  spec.scenario = std::string(QCESIM_SOURCE_DIR) + "/scenarios/study-hypotheses.json";
  const auto d = qcesim::studies::design_for(spec);
  ASSERT_EQ(d.drawn.size(), d.variants.size());
  const auto index = [&d](const std::string& variant) {
    const auto it = std::find(d.variants.begin(), d.variants.end(), variant);
    EXPECT_NE(it, d.variants.end()) << variant;
    return static_cast<std::size_t>(it - d.variants.begin());
  };
  auto find = [](const std::vector<UncertainParam>& ps, const std::string& name) -> const UncertainParam* {
    const auto it = std::find_if(ps.begin(), ps.end(), [&name](const UncertainParam& u) { return u.name == name; });
    return it == ps.end() ? nullptr : &*it;
  };
  auto drawn = [&](const std::string& variant, const std::string& name) { return find(d.drawn[index(variant)], name); };
  const UncertainParam* h1 = drawn("h1-nolock", "cost.readl");
  const UncertainParam* h2 = drawn("h2-nolock", "cost.readl");
  ASSERT_TRUE(h1 && h2);
  EXPECT_DOUBLE_EQ(h1->lo, 420.3);  // the profile's posterior interval
  EXPECT_EQ(h1->mix.size(), 2u);    // the group's second member: the caller's draw and its own
  EXPECT_DOUBLE_EQ(h2->lo, 421.3);
  EXPECT_DOUBLE_EQ(h2->hi, 1866.4);
  ASSERT_EQ(h2->mix.size(), 2u);              // the second member of H2's own group: the caller's and its own
  EXPECT_NE(h2->mix[1].first, "cost.readl");  // a draw of its own, independent of the profile's group's
  EXPECT_NE(h2->mix[0].first, h1->mix[0].first);
  EXPECT_EQ(drawn("h2-nolock", "bam.ce_fetch"), nullptr);
  EXPECT_NE(drawn("h1-nolock", "bam.ce_fetch"), nullptr);
  EXPECT_NE(drawn("h3-nolock", "bam.ce_fetch"), nullptr);
  ASSERT_NE(drawn("h2-nolock", "iommu.tlb_miss"), nullptr);
  EXPECT_DOUBLE_EQ(drawn("h2-nolock", "iommu.tlb_miss")->hi, 4102);
  ASSERT_NE(drawn("h1-nolock", "iommu.tlb_miss"), nullptr);
  EXPECT_DOUBLE_EQ(drawn("h1-nolock", "iommu.tlb_miss")->hi, 1000);
  // The same restatement, the same draws: H2's variants pair, H1's and H3's shared ones too.
  EXPECT_EQ(sample_sets(d.drawn[index("h2-nolock")], 1, 3), sample_sets(d.drawn[index("h2-lock")], 1, 3));
  const auto sync = [](const std::vector<std::string>& v) {
    const auto it = std::find_if(v.begin(), v.end(),
                                 [](const std::string& x) { return x.rfind("cost.arm_smmu_tlb_sync=", 0) == 0; });
    return it == v.end() ? std::string("none") : *it;
  };
  EXPECT_NE(sync(sample_sets(d.drawn[index("h1-nolock")], 1, 3)), "none");
  EXPECT_EQ(sync(sample_sets(d.drawn[index("h1-nolock")], 1, 3)), sync(sample_sets(d.drawn[index("h3-nolock")], 1, 3)));

  // A sampled value of what H2 restates lands in H2's overrides, in its profile, and nowhere else.
  const auto sets = sample_sets(d.drawn[index("h2-nolock")], 1, 3);
  const auto readl =
      std::find_if(sets.begin(), sets.end(), [](const std::string& x) { return x.rfind("cost.readl=", 0) == 0; });
  ASSERT_NE(readl, sets.end());
  const auto routed = qcesim::studies::variant_sets(d.sc, d.sc.variant("h2-nolock"), sets);
  EXPECT_NE(std::find(routed.begin(), routed.end(), "variants.4.overrides." + *readl), routed.end());
  const auto s = qcesim::studies::Scenario::load(spec.scenario, routed, qcesim::studies::InputKind::any, false);
  EXPECT_NEAR(s.profile_for(s.variant("h2-nolock")).num("cost.readl"), value_of(*readl), 1e-6 * value_of(*readl));
  EXPECT_DOUBLE_EQ(s.profile_for(s.variant("h1-nolock")).num("cost.readl"), 886.7);
  // Routed or not, a value the variant holds wins over the sample (H2's command element).
  const auto held = qcesim::studies::variant_sets(d.sc, d.sc.variant("h2-nolock"), {"bam.ce_fetch=777"});
  EXPECT_EQ(held, std::vector<std::string>{"bam.ce_fetch=777"});
  const auto s2 = qcesim::studies::Scenario::load(spec.scenario, held, qcesim::studies::InputKind::any, false);
  EXPECT_DOUBLE_EQ(s2.profile_for(s2.variant("h2-nolock")).num("bam.ce_fetch"), 200);
  EXPECT_DOUBLE_EQ(s2.profile_for(s2.variant("h1-nolock")).num("bam.ce_fetch"), 777);

  // A restatement without an interval holds the parameter: not drawn, not routed.
  qcesim::studies::UncertaintySpec quiet = spec;
  quiet.sets = {R"(variants.0.overrides={"cost.readl": {"value": 900, "provenance": "estimate: a test's"}})"};
  const auto q = qcesim::studies::design_for(quiet);
  EXPECT_EQ(find(q.drawn[0], "cost.readl"), nullptr);
  EXPECT_NE(find(q.drawn[1], "cost.readl"), nullptr);
  EXPECT_EQ(qcesim::studies::variant_sets(q.sc, q.sc.variants[0], {"cost.readl=1"}),
            std::vector<std::string>{"cost.readl=1"});
  // A value for the whole scenario (--set) holds it where no variant restates it; a variant's own
  // restatement with an interval still decides for that variant, as it does in its profile.
  qcesim::studies::UncertaintySpec pinned = spec;
  pinned.sets = {"cost.readl=500"};
  const auto p = qcesim::studies::design_for(pinned);
  EXPECT_EQ(find(p.drawn[0], "cost.readl"), nullptr);
  ASSERT_NE(find(p.drawn[4], "cost.readl"), nullptr);
  EXPECT_DOUBLE_EQ(find(p.drawn[4], "cost.readl")->hi, 1866.4);

  // Sensitivity's points for a variant move only what it draws, each over its own interval.
  const qcesim::studies::MorrisDesign morris(d.params, 2, 1);
  const auto all = morris.point(5);
  const auto h2_point = morris.point(5, d.drawn[index("h2-nolock")]);
  EXPECT_EQ(all.size(), d.params.size());
  EXPECT_EQ(h2_point.size(), d.drawn[index("h2-nolock")].size());
  EXPECT_EQ(std::count_if(h2_point.begin(), h2_point.end(),
                          [](const std::string& x) { return x.rfind("bam.ce_fetch=", 0) == 0; }),
            0);
  const auto level_of = [](const std::vector<std::string>& v, const std::string& name, const UncertainParam& u) {
    const auto it =
        std::find_if(v.begin(), v.end(), [&name](const std::string& x) { return x.rfind(name + "=", 0) == 0; });
    return it == v.end() ? -1.0 : std::log(value_of(*it) / u.lo) / std::log(u.hi / u.lo);
  };
  const UncertainParam* shared_readl = find(d.params, "cost.readl");
  ASSERT_NE(shared_readl, nullptr);
  EXPECT_NEAR(level_of(all, "cost.readl", *shared_readl), level_of(h2_point, "cost.readl", *h2), 1e-6);
}

// A variant restating a fit of its own draws it with that fit's correlations (the variant's
// `correlations`): in the hypotheses study each of H2, H3 and H4 draws its four fitted parameters
// jointly, the mixes a Cholesky factor of its own matrix, the draws' correlations in log space
// that matrix's, and its variants alike. A sample's values reach the variant's overrides as plain
// values, which pin them: the group ends there and the run's profile loads.
TEST(Uncertainty, AVariantsOwnFitIsDrawnWithItsOwnCorrelations) {
  qcesim::studies::UncertaintySpec spec;
  spec.scenario = std::string(QCESIM_SOURCE_DIR) + "/scenarios/study-hypotheses.json";
  const auto d = qcesim::studies::design_for(spec);
  for (const std::string h : {"h2", "h3", "h4"}) {
    const std::size_t v =
        static_cast<std::size_t>(std::find(d.variants.begin(), d.variants.end(), h + "-nolock") - d.variants.begin());
    ASSERT_LT(v, d.variants.size()) << h;
    const qcesim::studies::Variant& variant = d.sc.variant(h + "-nolock");
    ASSERT_TRUE(variant.correlations.is_array()) << h;
    const auto& group = variant.correlations[0];
    const auto names = group["parameters"].get<std::vector<std::string>>();
    const auto matrix = group["correlation"].get<std::vector<std::vector<double>>>();
    std::map<std::string, std::map<std::string, double>> row;
    std::vector<std::size_t> column;  // each member's place among the variant's draws
    for (const std::string& n : names) {
      const auto it =
          std::find_if(d.drawn[v].begin(), d.drawn[v].end(), [&n](const UncertainParam& u) { return u.name == n; });
      ASSERT_NE(it, d.drawn[v].end()) << h << " " << n;
      EXPECT_TRUE(it->variant_group) << h << " " << n;
      for (const auto& [key, w] : it->mix) {
        EXPECT_EQ(key.rfind("restated/", 0), 0u) << key;
        row[n][key] = w;
      }
      column.push_back(static_cast<std::size_t>(it - d.drawn[v].begin()));
    }
    for (std::size_t a = 0; a < names.size(); ++a)
      for (std::size_t b = 0; b < names.size(); ++b) {
        double llt = 0;
        for (const auto& [key, w] : row[names[a]]) llt += w * (row[names[b]].count(key) ? row[names[b]].at(key) : 0.0);
        EXPECT_NEAR(llt, matrix[a][b], 1e-9) << h << " " << names[a] << " " << names[b];
      }
    // Sampled: the strongest pair's correlation (caller and finish, about -0.45) shows, and the
    // locking variant draws the same values sample by sample.
    const std::size_t lock =
        static_cast<std::size_t>(std::find(d.variants.begin(), d.variants.end(), h + "-lock") - d.variants.begin());
    std::vector<double> caller, finish;
    for (std::size_t i = 0; i < 3000; ++i) {
      const auto s = sample_sets(d.drawn[v], 2, i);
      caller.push_back(std::log(value_of(s[column[0]])));
      finish.push_back(std::log(value_of(s[column[2]])));
      if (i < 20) {
        const auto l = sample_sets(d.drawn[lock], 2, i);
        for (const std::size_t c : column) EXPECT_NE(std::find(l.begin(), l.end(), s[c]), l.end()) << h << " " << s[c];
      }
    }
    EXPECT_EQ(names[0], "cost.caller_overhead");
    EXPECT_EQ(names[2], "qce.finish");
    EXPECT_NEAR(correlation(caller, finish), matrix[0][2], 0.05) << h;
    // A whole sample routed to the variant: every member pinned, the group gone, the profile built.
    const auto routed = qcesim::studies::variant_sets(d.sc, variant, sample_sets(d.drawn[v], 2, 7));
    const auto s = qcesim::studies::Scenario::load(spec.scenario, routed, qcesim::studies::InputKind::any, false);
    const auto p = s.profile_for(s.variant(h + "-nolock"));
    EXPECT_EQ(d.sc.profile_for(variant).correlations().back().provenance, group["provenance"]) << h;
    for (const auto& g : p.correlations()) EXPECT_NE(g.provenance, group["provenance"]) << h;
    EXPECT_NEAR(p.num("qce.finish"), value_of(sample_sets(d.drawn[v], 2, 7)[column[2]]), 1e-3) << h;
  }
}

// A variant's group among the members its runs can feel (the caller's copy bandwidth is never
// timed for a kernel caller): the mixes are the sub-matrix's factor. Two variants restating the
// same values with the same correlations, listed in another order, draw alike; a group at the
// scenario's level is drawn jointly in every variant that does not restate its members.
TEST(Uncertainty, AVariantGroupsPresentMembersDrawAlikeInAnyOrder) {
  const std::string readl = R"({"value": 900, "interval": [500, 1500], "provenance": "estimate: a fit"})";
  const std::string caller = R"({"value": 20000, "interval": [15000, 30000], "provenance": "estimate: a fit"})";
  const std::string copy = R"({"value": 18000, "interval": [14000, 25000], "provenance": "estimate: a fit"})";
  qcesim::studies::UncertaintySpec spec;
  spec.scenario = std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650-seed.json";
  for (const char* v : {"1", "2"}) {
    const std::string at = std::string("variants.") + v + ".overrides.";
    spec.sets.push_back(at + "cost.readl=" + readl);
    spec.sets.push_back(at + "cost.caller_overhead=" + caller);
    spec.sets.push_back(at + "cpu.cortex-x4.copy_bandwidth=" + copy);
  }
  spec.sets.push_back(R"(variants.1.correlations=[{"parameters": ["cost.readl", "cpu.cortex-x4.copy_bandwidth",
      "cost.caller_overhead"], "correlation": [[1, 0.2, -0.6], [0.2, 1, 0.1], [-0.6, 0.1, 1]],
      "provenance": "calibrated: a test's fit"}])");
  spec.sets.push_back(R"(variants.2.correlations=[{"parameters": ["cost.caller_overhead", "cost.readl",
      "cpu.cortex-x4.copy_bandwidth"], "correlation": [[1, -0.6, 0.1], [-0.6, 1, 0.2], [0.1, 0.2, 1]],
      "provenance": "calibrated: a test's fit"}])");
  const auto d = qcesim::studies::design_for(spec);
  auto mix_of = [&d](std::size_t v, const std::string& name) {
    for (const UncertainParam& u : d.drawn[v])
      if (u.name == name) return u;
    ADD_FAILURE() << name << " not drawn in variant " << v;
    return UncertainParam{};
  };
  for (std::size_t v : {1u, 2u}) {
    EXPECT_TRUE(std::none_of(d.drawn[v].begin(), d.drawn[v].end(),
                             [](const UncertainParam& u) { return u.name == "cpu.cortex-x4.copy_bandwidth"; }));
    const UncertainParam r = mix_of(v, "cost.readl"), c = mix_of(v, "cost.caller_overhead");
    EXPECT_TRUE(r.variant_group && c.variant_group);
    auto dot = [](const UncertainParam& a, const UncertainParam& b) {
      double x = 0;
      for (const auto& [key, w] : a.mix)
        for (const auto& [key2, w2] : b.mix)
          if (key == key2) x += w * w2;
      return x;
    };
    EXPECT_NEAR(dot(r, c), -0.6, 1e-9) << v;
    EXPECT_NEAR(dot(r, r), 1, 1e-9) << v;
    EXPECT_NEAR(dot(c, c), 1, 1e-9) << v;
  }
  for (std::size_t i = 0; i < 30; ++i) {
    const auto a = sample_sets(d.drawn[1], 4, i), b = sample_sets(d.drawn[2], 4, i);
    for (const std::string& x : a) {
      if (x.rfind("cost.readl=", 0) == 0 || x.rfind("cost.caller_overhead=", 0) == 0) {
        EXPECT_NE(std::find(b.begin(), b.end(), x), b.end()) << x;
      }
    }
  }

  // At the scenario's level: the shared profile's group, in the design's own parameters.
  qcesim::studies::UncertaintySpec top;
  top.scenario = spec.scenario;
  top.sets = {"cost.readl=" + readl, "cost.caller_overhead=" + caller,
              R"(correlations=[{"parameters": ["cost.readl", "cost.caller_overhead"], "correlation": [[1, 0.7],
      [0.7, 1]], "provenance": "calibrated: a test's fit"}])"};
  const auto t = qcesim::studies::design_for(top);
  std::map<std::string, std::map<std::string, double>> row;
  for (const UncertainParam& u : t.params)
    if (u.name == "cost.readl" || u.name == "cost.caller_overhead")
      for (const auto& [key, w] : u.mix) row[u.name][key] = w;
  double rc = 0;
  for (const auto& [key, w] : row["cost.readl"])
    rc += w * (row["cost.caller_overhead"].count(key) ? row["cost.caller_overhead"][key] : 0.0);
  EXPECT_NEAR(rc, 0.7, 1e-9);
}
