// Sweeps: expansion of axes (lists, step and factor ranges, product and zip), bad input named by
// file and JSON path, the break-even interpolation, and resuming from a journal. The end-to-end
// cases fork one simulation per run, as `qcesim sweep` does; this process never elaborates.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "cli/sweep_command.h"
#include "model/config_error.h"
#include "studies/replay.h"
#include "studies/sweep.h"
#include "tests/process.h"

using namespace qcesim;
using nlohmann::json;

namespace {

using test::seed_path;

std::string write(const std::string& dir, const std::string& name, const json& j) {
  const std::string f = dir + "/" + name;
  std::ofstream(f) << j.dump(1);
  return f;
}

json base_sweep() {
  return {{"sweep", "t"},
          {"scenario", seed_path()},
          {"variants", {"sha256-lib", "sha256-qce-nolock"}},
          {"set", {{"workload.messages", 20}}},
          {"axes", {{{"path", "workload.message_bytes"}, {"values", {64, 4096}}}}}};
}

std::string load_error(const json& j) {
  const test::TempDir tmp("sweep");
  const std::string& dir = tmp.path();
  try {
    studies::Sweep::load(write(dir, "s.json", j));
  } catch (const model::ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Sweep, ProductOfAStepRangeAndAFactorRangeLastAxisFastest) {
  json j = base_sweep();
  j["axes"] = {{{"path", "qce.clock"}, {"range", {{"from", 100}, {"to", 200}, {"step", 50}}}},
               {{"path", "workload.message_bytes"}, {"range", {{"from", 1024}, {"to", 4096}, {"factor", 2}}}}};
  const test::TempDir tmp("sweep");
  const studies::Sweep s = studies::Sweep::load(write(tmp.path(), "s.json", j));
  const auto pts = s.points();
  ASSERT_EQ(pts.size(), 9u);
  EXPECT_EQ(pts[0].values, (std::vector<json>{100, 1024}));
  EXPECT_EQ(pts[1].values, (std::vector<json>{100, 2048}));
  EXPECT_EQ(pts[3].values, (std::vector<json>{150, 1024}));
  EXPECT_EQ(pts[8].values, (std::vector<json>{200, 4096}));
  EXPECT_EQ(s.sets_for(pts[8]).back(), "workload.message_bytes=4096");
  EXPECT_EQ(s.sets_for(pts[8])[1], "qce.clock=200");
}

// A sweep reads its scenario once: every point (and every run, forked from the launcher) is made
// from that text, so a file changed or replaced during a sweep changes neither its runs nor its
// journal's key.
TEST(Sweep, ItsScenarioIsReadOnceForEveryPoint) {
  const test::TempDir tmp("sweep");
  const std::string dir = test::make_scenario_dir("sweep-once");
  ASSERT_FALSE(dir.empty());
  json j = base_sweep();
  j["scenario"] = dir + "/seed.json";
  const studies::Sweep s = studies::Sweep::load(write(tmp.path(), "s.json", j));
  const std::string key = s.key();
  test::write_text(dir + "/seed.json", "{\"scenario\": \"other\"}");
  const studies::Scenario at = s.scenario_at(s.points().back());
  EXPECT_EQ(at.name, "sm8650-seed");
  EXPECT_EQ(at.workload.message_bytes, 4096u);
  EXPECT_EQ(at.workload.messages, 20u);
  EXPECT_EQ(s.key(), key);
  std::remove((dir + "/seed.json").c_str());  // and its profile is still the one beside it
  EXPECT_EQ(s.scenario_at(s.points().front()).profile_file, dir + "/sm8650.json");
  EXPECT_EQ(s.key(), key);
  test::remove_tree(dir);
}

TEST(Sweep, ZipPairsValuesAndNeedsEqualLengths) {
  json j = base_sweep();
  j["combine"] = "zip";
  j["axes"] = {{{"path", "qce.clock"}, {"values", {100, 200}}},
               {{"path", "workload.message_bytes"}, {"values", {64, 128}}}};
  const test::TempDir tmp("sweep");
  const auto pts = studies::Sweep::load(write(tmp.path(), "s.json", j)).points();
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_EQ(pts[1].values, (std::vector<json>{200, 128}));
  j["axes"][1]["values"] = {64};
  EXPECT_NE(load_error(j).find("/axes/1: expected 2 values"), std::string::npos) << load_error(j);
}

TEST(Sweep, BadInputNamesThePathTheExpectationAndTheFinding) {
  json j = base_sweep();
  j["axis"] = 1;
  EXPECT_NE(load_error(j).find("at /axis: expected one of sweep,"), std::string::npos) << load_error(j);
  j = base_sweep();
  j["axes"][0] = {{"path", "workload.message_bytes"}, {"range", {{"from", 64}, {"to", 4096}, {"factor", 1}}}};
  EXPECT_NE(load_error(j).find("at /axes/0/range/factor: expected a number above 1, found the number 1"),
            std::string::npos)
      << load_error(j);
  j = base_sweep();
  j["axes"][0] = {{"path", "qce.clock"}, {"values", {100000}}};  // outside the profile's range
  EXPECT_NE(load_error(j).find("at /axes: expected paths and values the scenario accepts"), std::string::npos)
      << load_error(j);
  j = base_sweep();
  j["analysis"] = {{"break_even", {{"host", "sha256-lib"}}}};
  j["axes"].push_back({{"path", "iommu.mode"}, {"values", {"strict", "lazy"}}});
  EXPECT_NE(load_error(j).find("at /analysis/break_even: expected a numeric last axis to run along (iommu.mode), found "
                               "the string \"strict\""),
            std::string::npos)
      << load_error(j);
}

// The crossing is interpolated linearly in x between the two points that bracket it: exact where
// both costs are a fixed part plus a part per byte (log x would put it at 10^3.75 = 5623 here).
TEST(Sweep, BreakEvenInterpolatesTheCrossingLinearly) {
  json j = base_sweep();
  // The host must be one of the sweep's variants (checked at load); the rows are made up.
  j["analysis"] = {{"break_even", {{"host", "sha256-lib"}, {"metrics", {"us_per_request"}}}}};
  const test::TempDir tmp("sweep");
  const studies::Sweep s = studies::Sweep::load(write(tmp.path(), "s.json", j));
  auto row = [](double x, const char* v, double us) {
    return json{{"values", {{"workload.message_bytes", x}}}, {"variant", v}, {"metrics", {{"us_per_request", us}}}};
  };
  // offload - host: +30 at 1000, -10 at 10000 -> t = 0.75 -> x = 1000 + 0.75 * 9000
  const char* cpu = "sha256-lib";
  const char* acc = "sha256-qce-nolock";
  const std::vector<json> rows = {row(1000, cpu, 10), row(1000, acc, 40), row(10000, cpu, 100), row(10000, acc, 90)};
  const json be = studies::break_even(s, rows);
  EXPECT_NEAR(be["variants"][acc]["us_per_request"]["x"].get<double>(), 7750.0, 1e-6);
  EXPECT_EQ(be["variants"][acc]["us_per_request"]["offload_wins"], "above");
}

// A journal holding a finished run (with a marker value) is resumed: that run is not redone,
// the others are, and the journal is removed once every run is in.
TEST(Sweep, ResumesFromTheJournalWithoutRedoingFinishedRuns) {
  const test::TempDir tmp("sweep");
  const std::string& dir = tmp.path();
  const std::string file = write(dir, "s.json", base_sweep());
  const std::string prefix = dir + "/out";
  const studies::Sweep s = studies::Sweep::load(file);
  // A finished run as the journal holds it (a result that reads back), its wall time the marker.
  studies::VariantResult done;
  done.name = "sha256-lib";
  done.wall_s = 123.0;
  done.cpu_s = done.task_s = 1.0;
  done.requests = done.issued = done.completed = 20;
  done.bytes = 1280;
  const json marker = done.to_json();
  {
    std::ofstream j(prefix + ".journal.jsonl");
    j << json{{"key", s.key()}, {"sweep", "t"}}.dump() << "\n";
    j << json{{"point", 0}, {"variant", "sha256-lib"}, {"result", marker}}.dump() << "\n";
    j << "{\"point\": 1, \"vari";  // cut short by the interruption: ignored
  }
  cli::SweepOptions opt;
  opt.file = file;
  opt.out = prefix;
  opt.jobs = 2;
  std::ostringstream out, err;
  ASSERT_EQ(cli::run_sweep(opt, out, err), 0) << err.str();
  EXPECT_NE(err.str().find("4 runs, 1 already done"), std::string::npos) << err.str();
  std::ifstream csv(prefix + ".csv");
  std::string line, all;
  int lines = 0;
  while (std::getline(csv, line)) {
    all += line + "\n";
    ++lines;
  }
  EXPECT_EQ(lines, 5) << all;
  EXPECT_NE(all.find("0,64,sha256-lib,123,"), std::string::npos) << all;
  EXPECT_NE(all.find("1,4096,sha256-qce-nolock,"), std::string::npos) << all;
  EXPECT_FALSE(std::filesystem::exists(prefix + ".journal.jsonl"));
  // A journal from another definition is refused, not silently mixed in.
  {
    std::ofstream j(prefix + ".journal.jsonl");
    j << json{{"key", "0000"}, {"sweep", "t"}}.dump() << "\n";
  }
  EXPECT_THROW(cli::run_sweep(opt, out, err), model::ConfigError);
}

namespace {

// A CSV's lines without its host_seconds column (host time differs from run to run).
std::string csv_without_host_time(const std::string& file) {
  std::ifstream in(file);
  std::string line, out;
  int drop = -1;
  bool header = true;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    if (header) {
      for (std::size_t i = 0; i < cells.size(); ++i)
        if (cells[i] == "host_seconds") drop = static_cast<int>(i);
      header = false;
    }
    for (std::size_t i = 0; i < cells.size(); ++i)
      if (static_cast<int>(i) != drop) out += cells[i] + ",";
    out += "\n";
  }
  return out;
}

}  // namespace

// Shards of a sweep (points p % N == I) merge into the outputs of the unsharded sweep; a missing,
// repeated or foreign shard is refused before anything is written.
TEST(Sweep, ShardsMergeIntoTheUnshardedOutputs) {
  const test::TempDir tmp("sweep");
  const std::string& dir = tmp.path();
  json def = base_sweep();
  def["axes"][0]["values"] = {64, 1024, 4096};
  const std::string file = write(dir, "s.json", def);
  auto options = [&] {
    cli::SweepOptions o;
    o.file = file;
    o.jobs = 2;
    return o;
  };
  cli::SweepOptions whole = options();
  whole.out = dir + "/whole";
  std::ostringstream whole_out, err;
  ASSERT_EQ(cli::run_sweep(whole, whole_out, err), 0) << err.str();
  for (int i = 0; i < 2; ++i) {
    cli::SweepOptions sh = options();
    sh.shards.shard = std::to_string(i) + "/2";
    sh.shards.shard_out = dir + "/shard-" + std::to_string(i) + ".json";
    std::ostringstream out;
    ASSERT_EQ(cli::run_sweep(sh, out, err), 0) << err.str();
    EXPECT_TRUE(out.str().empty());  // a shard prints no table
    EXPECT_FALSE(std::filesystem::exists(sh.shards.shard_out + ".journal.jsonl"));
  }
  EXPECT_EQ(json::parse(std::ifstream(dir + "/shard-0.json"))["results"].size(), 4u);  // points 0 and 2
  EXPECT_EQ(json::parse(std::ifstream(dir + "/shard-1.json"))["results"].size(), 2u);
  cli::SweepOptions merge = options();
  merge.out = dir + "/merged";
  merge.shards.merge = {dir + "/shard-0.json", dir + "/shard-1.json"};
  std::ostringstream merged_out;
  ASSERT_EQ(cli::run_sweep(merge, merged_out, err), 0) << err.str();
  EXPECT_EQ(merged_out.str(), whole_out.str());
  EXPECT_EQ(csv_without_host_time(dir + "/merged.csv"), csv_without_host_time(dir + "/whole.csv"));

  auto merge_error = [&](const std::vector<std::string>& files, const std::vector<std::string>& sets) {
    cli::SweepOptions m = options();
    m.out = dir + "/bad";
    m.shards.merge = files;
    m.sets = sets;
    std::ostringstream o, e;
    try {
      cli::run_sweep(m, o, e);
    } catch (const model::ConfigError& x) {
      EXPECT_FALSE(std::filesystem::exists(dir + "/bad.csv"));
      return std::string(x.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(merge_error({dir + "/shard-0.json"}, {}).find("expected all 2 shard files, found 1"), std::string::npos);
  EXPECT_NE(merge_error({dir + "/shard-0.json", dir + "/shard-0.json"}, {}).find("each once"), std::string::npos);
  EXPECT_NE(merge_error({dir + "/shard-0.json", dir + "/shard-1.json"}, {"workload.messages=10"})
                .find("at /key: expected a shard of this sweep definition"),
            std::string::npos);
  // A run whose results do not read back (a number turned into a string) is refused, naming it.
  json edited = json::parse(std::ifstream(dir + "/shard-1.json"));
  const std::string first = edited["results"].begin().key();
  edited["results"][first]["cpu_s"] = "fast";
  std::ofstream(dir + "/shard-1-edited.json") << edited.dump();
  const std::string bad_run = merge_error({dir + "/shard-0.json", dir + "/shard-1-edited.json"}, {});
  EXPECT_NE(
      bad_run.find("shard-1-edited.json: at /results: expected the run's results as qcesim writes them, found \"" +
                   first + "\""),
      std::string::npos)
      << bad_run;
  // Numbers a run cannot produce are refused as well, each naming what held and what was found.
  const json good = json::parse(std::ifstream(dir + "/shard-1.json"));
  auto tampered = [&](const std::function<void(json&)>& change) {
    json t = good;
    change(t["results"][first]);
    std::ofstream(dir + "/shard-1-edited.json") << t.dump();
    return merge_error({dir + "/shard-0.json", dir + "/shard-1-edited.json"}, {});
  };
  EXPECT_NE(tampered([](json& r) { r["wall_s"] = -1.0; }).find("wall_s: a time of at least 0, found -1"),
            std::string::npos);
  EXPECT_NE(tampered([](json& r) { r["requests"] = 0; }).find("requests: at least 1, found 0"), std::string::npos);
  EXPECT_NE(tampered([](json& r) { r["requests"] = -3; }).find("requests: a whole number, found the number -3"),
            std::string::npos)
      << tampered([](json& r) { r["requests"] = -3; });
  EXPECT_NE(tampered([](json& r) {
              r["completed"] = r["completed"].get<std::uint64_t>() - 1;
            }).find("issued = completed + failed + fallback"),
            std::string::npos);
  EXPECT_NE(tampered([](json& r) { r["cpu_s"] = r["cpu_s"].get<double>() * 2; }).find("cpu_s = task_s + kworker_s"),
            std::string::npos);
  EXPECT_NE(tampered([](json& r) { r["name"] = "sha256-lib-renamed"; }).find("the run of variant"), std::string::npos);

  // A run missing from the shard files (a lost task's) is an error; --partial merges what is
  // there and says so in the table, the CSV, the JSON and the chart's title.
  json lost = good;
  lost["results"].erase(first);
  std::ofstream(dir + "/shard-1-lost.json") << lost.dump();
  const std::string missing = merge_error({dir + "/shard-0.json", dir + "/shard-1-lost.json"}, {});
  EXPECT_NE(
      missing.find("--merge: expected every run of the sweep (6; --partial merges what is there and says so), found 1 "
                   "missing, the first " +
                   first),
      std::string::npos)
      << missing;
  cli::SweepOptions part = options();
  part.out = dir + "/part";
  part.partial = true;
  part.shards.merge = {dir + "/shard-0.json", dir + "/shard-1-lost.json"};
  std::ostringstream part_out;
  ASSERT_EQ(cli::run_sweep(part, part_out, err), 0) << err.str();
  EXPECT_EQ(part_out.str().rfind("partial merge: 1 of 6 runs missing (" + first + ")\n", 0), 0u) << part_out.str();
  std::ifstream csv(dir + "/part.csv");
  std::string line1;
  std::getline(csv, line1);
  EXPECT_EQ(line1, "# partial merge: 1 of 6 runs missing: " + first);
  const json pj = json::parse(std::ifstream(dir + "/part.json"));
  EXPECT_EQ(pj["partial"]["missing"], json::array({first}));
  EXPECT_EQ(pj["partial"]["runs"], 6);
  cli::SweepOptions no_merge = options();
  no_merge.partial = true;
  EXPECT_THROW(cli::run_sweep(no_merge, part_out, err), model::ConfigError);
}
