// Uncertainty, sensitivity, seeds and validation end to end through the built binary: the commands
// (each run in its own processes, as the CLI does it), their shards and merges.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "model/profile.h"
#include "studies/sensitivity.h"
#include "studies/uncertainty.h"
#include "tests/process.h"

using nlohmann::json;
namespace test = qcesim::test;

namespace {

class UncertaintyCli : public ::testing::Test {
 protected:
  void SetUp() override { dir = test::make_scenario_dir("uncertainty"); }
  void TearDown() override { test::remove_tree(dir); }
  test::ProcessResult qcesim(const std::vector<std::string>& args) { return test::run_qcesim(args, dir); }
  std::string dir;
};

}  // namespace

// --uncertainty: a band per output around the nominal run, the same with the same seed, and
// P1's numbers compared with it.
TEST_F(UncertaintyCli, RunReportsBandsReproducibly) {
  const std::vector<std::string> args = {
      "run",       "seed.json",         "--uncertainty", "6",     "--set", "workload.messages=40",
      "--variant", "sha256-qce-nolock", "--json",        "u.json"};
  const auto r1 = qcesim(args);
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  const json j1 = json::parse(test::slurp(dir + "/u.json"));
  const auto r2 = qcesim(args);
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  EXPECT_EQ(r1.out, r2.out);
  EXPECT_NE(r1.out.find("90 % interval"), std::string::npos);
  const json& wall = j1["variants"][0]["quantities"]["wall_s"];
  EXPECT_LE(wall["p05"].get<double>(), wall["median"].get<double>());
  EXPECT_LE(wall["median"].get<double>(), wall["p95"].get<double>());
  EXPECT_LT(wall["p05"].get<double>(), wall["p95"].get<double>());  // the costs do vary
  EXPECT_NEAR(wall["measured"].get<double>(), 4.85 * 40 / 50000, 1e-9);
  EXPECT_GT(j1["parameters"].size(), 30u);
  const auto bad = qcesim({"run", "seed.json", "--uncertainty", "1"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--uncertainty: expected a whole number from 2 to 10000, found \"1\""), std::string::npos)
      << bad.err;
}

// validate: every measured number of the folder's scenarios, marked in sample when a profile
// parameter was set from that scenario (its provenance names it).
TEST_F(UncertaintyCli, ValidateMarksInSampleFromProvenance) {
  const auto r = qcesim({"validate", ".", "--samples", "4", "--messages", "30", "--json", "v.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json rows = json::parse(test::slurp(dir + "/v.json"))["rows"];
  ASSERT_EQ(rows.size(), 10u);  // P1: 2 for the CE path (its irq times are zero), 4 + 4 for QCE
  for (const json& row : rows) {
    EXPECT_EQ(row["scenario"], "sm8650-seed");
    EXPECT_TRUE(row["in_sample"].get<bool>());
    EXPECT_NE(std::find(row["fitted_from_it"].begin(), row["fitted_from_it"].end(), "qce.finish"),
              row["fitted_from_it"].end());
  }
  EXPECT_NE(r.out.find("measured numbers inside the 90 % interval"), std::string::npos);
  const auto none = qcesim({"validate", dir + "/no-such-folder"});
  EXPECT_EQ(none.exit_code, 2);
}

// In sample by each variant's own values: a variant that holds a fitted parameter at a plain value
// (here the fit's own value, so that nothing else changes) does not run with the fit, and its rows
// do not name it; the other variants' rows still do.
TEST_F(UncertaintyCli, ValidateMarksInSampleByEachVariantsOwnValues) {
  json seed = json::parse(test::slurp(dir + "/seed.json"));
  for (json& v : seed["variants"])
    if (v["name"] == "sha256-qce-lock") v["overrides"]["qce.finish"] = 20110;
  test::write_text(dir + "/seed.json", seed.dump(1));
  const auto r = qcesim({"validate", ".", "--samples", "4", "--messages", "30", "--json", "v.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json rows = json::parse(test::slurp(dir + "/v.json"))["rows"];
  ASSERT_EQ(rows.size(), 10u);
  for (const json& row : rows) {
    const auto& names = row["fitted_from_it"];
    const bool names_finish = std::find(names.begin(), names.end(), "qce.finish") != names.end();
    EXPECT_EQ(names_finish, row["variant"] != "sha256-qce-lock") << row.dump();
    EXPECT_TRUE(row["in_sample"].get<bool>()) << row.dump();  // the other three fitted values
  }
}

// validate runs only the variants with a measurement: a what-if beside them (no `measured`) and
// a scenario whose only block is empty add no run and no row.
TEST_F(UncertaintyCli, ValidateRunsOnlyMeasuredVariants) {
  json seed = json::parse(test::slurp(dir + "/seed.json"));
  seed["variants"].push_back(
      {{"name", "lock-lazy"}, {"engine", "qce"}, {"reg_io", "bam"}, {"overrides", {{"iommu.mode", "lazy"}}}});
  test::write_text(dir + "/seed.json", seed.dump(1));
  json empty = json::parse(test::slurp(dir + "/seed.json"));
  empty["scenario"] = "empty-measured";
  empty["variants"] = json::array({{{"name", "nolock"}, {"engine", "qce"}, {"measured", json::object()}}});
  test::write_text(dir + "/empty.json", empty.dump(1));
  const auto r = qcesim({"validate", ".", "--samples", "4", "--messages", "30", "--json", "v.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json rows = json::parse(test::slurp(dir + "/v.json"))["rows"];
  EXPECT_EQ(rows.size(), 10u);
  for (const json& row : rows) EXPECT_NE(row["variant"], "lock-lazy");
  EXPECT_NE(r.err.find("sm8650-seed (30 x 4096 B), 3 variant(s)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("empty-measured ("), std::string::npos) << r.err;
}

// A measured interrupt count per request is checked like the times: a validate row with its own
// band (the sampled runs' counts), and a line under `run`'s table; a count the model cannot take
// (one per mainline request: the rx and tx EOTs come 23 us apart) falls outside.
TEST_F(UncertaintyCli, ValidateChecksTheInterruptCountPerRequest) {
  json seed = json::parse(test::slurp(dir + "/seed.json"));
  seed["variants"][1]["measured"]["irqs_per_request"] = 2;
  seed["variants"][2]["measured"]["irqs_per_request"] = 1;
  test::write_text(dir + "/seed.json", seed.dump(1));
  const auto r = qcesim({"validate", ".", "--samples", "4", "--messages", "30", "--json", "v.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json rows = json::parse(test::slurp(dir + "/v.json"))["rows"];
  ASSERT_EQ(rows.size(), 12u);  // the ten times and two counts
  std::map<std::string, json> irqs;
  for (const json& row : rows)
    if (row["quantity"] == "irqs_per_request") irqs[row["variant"].get<std::string>()] = row;
  ASSERT_EQ(irqs.size(), 2u);
  // H1: the UNLOCK's INT a few ns before the tx EOT's handler reads IRQ_SRCS_EE, seen in that call.
  EXPECT_NEAR(irqs["sha256-qce-lock"]["predicted"].get<double>(), 2, 0.05);
  EXPECT_TRUE(irqs["sha256-qce-lock"]["inside"].get<bool>());
  EXPECT_NEAR(irqs["sha256-qce-nolock"]["predicted"].get<double>(), 2, 0.05);
  EXPECT_NEAR(irqs["sha256-qce-nolock"]["p95"].get<double>(), 2, 0.05);
  EXPECT_FALSE(irqs["sha256-qce-nolock"]["inside"].get<bool>());
  EXPECT_DOUBLE_EQ(irqs["sha256-qce-nolock"]["measured"].get<double>(), 1);  // not scaled to 30 messages
  EXPECT_NE(r.out.find("irqs_per_request"), std::string::npos) << r.out;
  const auto run = qcesim({"run", "seed.json", "--variant", "sha256-qce-nolock", "--set", "workload.messages=20"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("interrupts per request: 2.00 simulated, 1.00 measured: the model takes a different path"),
            std::string::npos)
      << run.out;
  // run --uncertainty's table judges a count as validate does: 2.4 against mainline's [2, 2] is
  // within half an interrupt.
  seed["variants"][2]["measured"]["irqs_per_request"] = 2.4;
  test::write_text(dir + "/seed.json", seed.dump(1));
  const auto u = qcesim(
      {"run", "seed.json", "--uncertainty", "4", "--set", "workload.messages=30", "--variant", "sha256-qce-nolock"});
  ASSERT_EQ(u.exit_code, 0) << u.err;
  EXPECT_TRUE(std::regex_search(u.out, std::regex(R"(interrupts/request +2 +\[2, 2\] +2.4 +yes)"))) << u.out;
  // run --seeds gives what a board measured its row too, the measurement beside the mean (a time
  // scaled to the run's 30 of 50000 messages, as the others); a variant that measured neither has
  // no such row.
  seed["variants"][2]["measured"]["task_s"] = 0.031;
  test::write_text(dir + "/seed.json", seed.dump(1));
  const auto sd = qcesim({"run", "seed.json", "--seeds", "3", "--set", "workload.messages=30", "--variant",
                          "sha256-qce-nolock", "--variant", "sha256-lib", "--json", "s.json"});
  ASSERT_EQ(sd.exit_code, 0) << sd.err;
  EXPECT_TRUE(std::regex_search(sd.out, std::regex(R"(sha256-qce-nolock +interrupts/request +2 +\[2, 2\] +2.4)")))
      << sd.out;
  EXPECT_TRUE(std::regex_search(sd.out, std::regex(R"(sha256-qce-nolock +task \[s\] +[0-9.e-]+ +\[.*\] +1.86e-05)")))
      << sd.out;
  EXPECT_FALSE(std::regex_search(sd.out, std::regex(R"(sha256-lib +(task|interrupts/request))"))) << sd.out;
  const json sq = json::parse(test::slurp(dir + "/s.json"))["variants"];
  ASSERT_EQ(sq.size(), 2u);
  const json& nolock = sq[0]["name"] == "sha256-qce-nolock" ? sq[0] : sq[1];
  EXPECT_NEAR(nolock["quantities"]["task_s"]["measured"].get<double>(), 0.031 * 30 / 50000, 1e-12);
  EXPECT_NEAR(nolock["quantities"]["irqs_per_request"]["mean"].get<double>(), 2, 0.05);
}

// validate --soc: one SoC's rows, the same as in the whole table; a SoC the folder has no
// scenario for is refused before anything runs, naming the ones it has.
TEST_F(UncertaintyCli, ValidateShowsOneSocsRowsAsTheWholeTableHasThem) {
  for (const char* f : {"ipq40xx.json", "ipq40xx-m2-cbc128-16.json"})
    std::filesystem::copy_file(test::scenario_source(f), dir + "/" + f);
  const std::vector<std::string> args = {"validate", ".", "--samples", "3", "--messages", "30", "--jobs", "2"};
  const auto all = qcesim(test::plus_args(args, {"--json", "all.json"}));
  ASSERT_EQ(all.exit_code, 0) << all.err;
  // The folder after --soc stays the folder (one value per --soc).
  const auto one = qcesim(
      {"validate", "--soc", "ipq40xx", ".", "--samples", "3", "--messages", "30", "--jobs", "2", "--json", "one.json"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const auto p1 = qcesim(test::plus_args(args, {"--soc", "sm8650", "--json", "p1.json"}));
  ASSERT_EQ(p1.exit_code, 0) << p1.err;
  const json all_rows = json::parse(test::slurp(dir + "/all.json"))["rows"];
  const json one_rows = json::parse(test::slurp(dir + "/one.json"))["rows"];
  ASSERT_EQ(all_rows.size(), 12u);  // the seed's 10 and the IPQ4018's two wall times (soft, qce)
  ASSERT_EQ(one_rows.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(one_rows[k]["scenario"], "ipq40xx-m2-cbc128-16");
    EXPECT_EQ(one_rows[k], all_rows[k]) << k;  // the same samples: the same band
  }
  // The seed's rows: in sample as in the whole table, the same bands, in the same order.
  const json p1_rows = json::parse(test::slurp(dir + "/p1.json"))["rows"];
  ASSERT_EQ(p1_rows.size(), 10u);
  for (std::size_t k = 0; k < 10; ++k) EXPECT_EQ(p1_rows[k], all_rows[k + 2]) << k;
  EXPECT_TRUE(p1_rows[0]["in_sample"].get<bool>());
  EXPECT_EQ(one.out.find("sm8650"), std::string::npos) << one.out;
  const auto bad = qcesim(test::plus_args(args, {"--soc", "sm8750"}));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--soc: expected the name of a SoC the folder's scenarios are for (ipq40xx, sm8650), "
                         "found \"sm8750\""),
            std::string::npos)
      << bad.err;
  EXPECT_EQ(bad.err.find("runs"), std::string::npos) << "ran before refusing: " << bad.err;
}

// End to end: the hardirq time's most influential parameter is one the hardirq path charges.
TEST_F(UncertaintyCli, SensitivityRanksTheHardirqPathsOwnItemsForHardirqTime) {
  const auto r = qcesim({"sensitivity", "seed.json", "--set", "workload.messages=30", "--variant", "sha256-qce-nolock",
                         "--trajectories", "3", "--json", "s.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(test::slurp(dir + "/s.json"));
  const json& hard = j["variants"][0]["quantities"]["hardirq_s"];
  ASSERT_FALSE(hard.empty());
  const std::string top = hard[0]["parameter"];
  // cpu.count_scale: the shared factor on process_channel_irqs and the other unsourced items.
  const std::vector<std::string> hardirq_items = {
      "cost.process_channel_irqs", "cost.readl",  "cost.irq_entry", "cost.irq_exit",
      "cost.tasklet_schedule",     "cost.writel", "cpu.count_scale"};
  EXPECT_NE(std::find(hardirq_items.begin(), hardirq_items.end(), top), hardirq_items.end()) << top;
  // Parameters the hardirq path never charges have no effect on it; the ones it charges only
  // ever add to it, so every effect is positive (mu = mu*), whatever the values' digit counts.
  std::size_t charged = 0;
  for (const json& e : hard) {
    if (e["parameter"] == "cost.crypto_ahash_digest") {
      EXPECT_EQ(e["mu_star"].get<double>(), 0.0);
    }
    const std::string p = e["parameter"];
    if (std::find(hardirq_items.begin(), hardirq_items.end(), p) != hardirq_items.end() &&
        e["mu_star"].get<double>() > 0) {
      ++charged;
      EXPECT_NEAR(e["mu"].get<double>(), e["mu_star"].get<double>(), 1e-9 * e["mu_star"].get<double>()) << p;
    }
  }
  EXPECT_GE(charged, 3u);
  EXPECT_NE(r.out.find("mu*"), std::string::npos);
}

// --seeds: the TrustZone race as a count with an interval, the same table from the same seeds.
TEST_F(UncertaintyCli, SeedsGiveTheRaceWithAConfidenceInterval) {
  test::write_text(dir + "/tz.json", test::slurp(test::scenario_source("study-trustzone.json")));
  const std::vector<std::string> args = {
      "run",       "tz.json",          "--seeds", "4",     "--set", "workload.messages=600",
      "--variant", "mainline-no-lock", "--json",  "t.json"};
  const auto r1 = qcesim(args);
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  EXPECT_EQ(r1.out, qcesim(args).out);
  const json q = json::parse(test::slurp(dir + "/t.json"))["variants"][0]["quantities"];
  const double bad = q["failed_requests"]["mean"].get<double>() + q["digest_mismatches"]["mean"].get<double>();
  EXPECT_GT(bad, 0);
  EXPECT_LE(q["wall_s"]["ci95"][0].get<double>(), q["wall_s"]["mean"].get<double>());
  EXPECT_LT(q["wall_s"]["ci95"][0].get<double>(), q["wall_s"]["ci95"][1].get<double>());  // the runs differ
  EXPECT_EQ(qcesim({"run", "tz.json", "--seeds", "1"}).exit_code, 2);
  const auto both = qcesim({"run", "tz.json", "--seeds", "3", "--set", "sim.seed=2"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("no sim.seed with --seeds"), std::string::npos) << both.err;
}

// The hypotheses for P1's locking run differ where a board can tell them apart: booted with
// iommu.passthrough=1, slow page walks (H2) lose most of the series' wall time, slow command
// elements (H1) keep it; H1 takes two interrupts per request with locking (the UNLOCK's INT
// seen by the tx EOT's handler).
TEST_F(UncertaintyCli, HypothesesDifferWithThePassthroughBoot) {
  test::write_text(dir + "/h.json", test::slurp(test::scenario_source("study-hypotheses.json")));
  const auto r =
      qcesim({"run", "h.json", "--timing-only", "--set", "workload.messages=50", "--variant", "h1-lock-passthrough",
              "--variant", "h2-lock-passthrough", "--variant", "h1-lock", "--json", "h.out.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json v = json::parse(test::slurp(dir + "/h.out.json"))["variants"];
  const double h1 = v[0]["latency_us"]["p50"].get<double>(), h2 = v[1]["latency_us"]["p50"].get<double>();
  EXPECT_LT(h2, 0.75 * h1);  // 23 command elements at 2.1 us stay; 26 walks at 2.2 us go
  EXPECT_EQ(v[2]["irqs"].get<int>(), 100);
}

// Sharding: N shards under xargs (scripts/shards.sh local), merged, print exactly the unsharded
// table; a shard of another command, or a missing one, is refused naming the file.
TEST_F(UncertaintyCli, ShardsUnderXargsMergeToTheUnshardedResult) {
  const std::vector<std::string> base = {"run", "seed.json", "--uncertainty", "6", "--set", "workload.messages=30"};
  const auto whole = qcesim(base);
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const std::string cmd = "cd " + dir + " && " + QCESIM_SOURCE_DIR + "/scripts/shards.sh local 3 2 out -- " +
                          QCESIM_BINARY + " run seed.json --uncertainty 6 --set workload.messages=30 > /dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  EXPECT_EQ(test::slurp(dir + "/out/result.txt"), whole.out);

  auto other = base;
  other[5] = "workload.messages=31";
  const auto wrong = qcesim([&] {
    auto a = other;
    for (const char* f : {"out/shard-0.json", "out/shard-1.json", "out/shard-2.json"})
      a.insert(a.end(), {"--merge", f});
    return a;
  }());
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find("out/shard-0.json: at /fingerprint"), std::string::npos) << wrong.err;
  auto two = base;
  two.insert(two.end(), {"--merge", "out/shard-0.json", "out/shard-1.json"});
  const auto missing = qcesim(two);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("all 3 shard files"), std::string::npos) << missing.err;

  // A shard file edited by someone else: its fields are checked before anything is read from them.
  json doc = json::parse(test::slurp(dir + "/out/shard-1.json"));
  auto merge_with = [&](const json& bad) {
    test::write_text(dir + "/bad.json", bad.dump());
    auto a = base;
    a.insert(a.end(), {"--merge", "out/shard-0.json", "bad.json", "out/shard-2.json"});
    return qcesim(a);
  };
  json bad_of = doc;
  bad_of["of"] = "three";
  auto r = merge_with(bad_of);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.json: at /of: expected a whole number"), std::string::npos) << r.err;
  json bad_run = doc;
  bad_run["results"].begin().value()[0] = {{"name", 3}};
  r = merge_with(bad_run);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("expected a run's results as qcesim writes them"), std::string::npos) << r.err;
}

TEST_F(UncertaintyCli, SensitivityShardsMergeToTheUnshardedResult) {
  const std::vector<std::string> base = {"sensitivity", "seed.json",         "--set",          "workload.messages=20",
                                         "--variant",   "sha256-qce-nolock", "--trajectories", "2"};
  const auto whole = qcesim(base);
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  for (const char* i : {"0", "1"}) {
    auto a = base;
    a.insert(a.end(), {"--shard", std::string(i) + "/2", "--shard-out", std::string("t") + i + ".json"});
    ASSERT_EQ(qcesim(a).exit_code, 0);
  }
  auto m = base;
  m.insert(m.end(), {"--merge", "t0.json", "t1.json"});
  const auto merged = qcesim(m);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(merged.out, whole.out);
}
