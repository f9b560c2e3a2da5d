// The result record declared once (studies/result_fields.h): the JSON a run writes has exactly
// the table's numbers and reads back equal; the sweep's metrics and CSV columns, the fast-forward's
// cycle counters and the merge's checks follow the table; docs/run.md's and docs/sweep.md's tables
// are the generated ones (QCESIM_UPDATE_DOCS=1 rewrites them).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "studies/replay.h"
#include "studies/result_fields.h"
#include "studies/shard_files.h"
#include "studies/sweep.h"

using namespace qcesim;
using nlohmann::json;

namespace {

std::string source(const std::string& rel) { return std::string(QCESIM_SOURCE_DIR) + "/" + rel; }

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The doc's generated section between <!-- TAG: ... --> and <!-- /TAG -->: checked against
// `table`, or rewritten with QCESIM_UPDATE_DOCS=1.
void check_section(const std::string& doc, const std::string& tag, const std::string& table) {
  const std::string path = source(doc), text = slurp(path);
  const std::string open = "<!-- " + tag + ":", close = "<!-- /" + tag + " -->";
  const auto a = text.find(open);
  ASSERT_NE(a, std::string::npos) << doc << " has no " << open;
  const auto body = text.find('\n', a) + 1, b = text.find(close, body);
  ASSERT_NE(b, std::string::npos) << doc << " has no " << close;
  if (const char* u = std::getenv("QCESIM_UPDATE_DOCS"); u && std::string(u) == "1") {
    std::ofstream(path) << text.substr(0, body) + table + text.substr(b);
    return;
  }
  EXPECT_EQ(text.substr(body, b - body), table)
      << doc << "'s " << tag << " table is not the one studies/result_fields.h makes: run "
      << "QCESIM_UPDATE_DOCS=1 ctest -R ResultFields";
}

// A result with every number distinct and non-zero, as a run would fill it.
studies::VariantResult numbered() {
  studies::VariantResult r;
  r.name = "v";
  r.tz = json{{"lock", true}, {"jobs", 3}};
  double x = 1;
#define QCESIM_TEST_FILL(member, ...) r.member = static_cast<decltype(r.member)>(x++);
#define QCESIM_TEST_SKIP(...)
  QCESIM_RESULT_FIELDS(QCESIM_TEST_FILL, QCESIM_TEST_SKIP, QCESIM_TEST_SKIP, QCESIM_TEST_SKIP)
#undef QCESIM_TEST_FILL
#undef QCESIM_TEST_SKIP
  return r;
}

}  // namespace

TEST(ResultFields, DocsTablesAreTheGeneratedOnes) {
  check_section("docs/run.md", "result-fields", studies::result_fields_markdown());
  check_section("docs/sweep.md", "sweep-metrics", studies::sweep_metrics_markdown());
}

// Every stored number is written under its key and read back; nothing else numeric is written
// but the objects the table names.
TEST(ResultFields, JsonHasEveryFieldAndReadsBack) {
  const studies::VariantResult r = numbered();
  const json j = r.to_json();
  std::set<std::string> keys;
  for (const auto& f : studies::result_fields()) {
    const std::string k = f.key;
    const auto dot = k.find('.');
    const json& v = dot == std::string::npos ? j.at(k) : j.at(k.substr(0, dot)).at(k.substr(dot + 1));
    EXPECT_TRUE(v.is_number()) << k;
    EXPECT_GT(v.get<double>(), 0) << k;
    keys.insert(k.substr(0, dot));
  }
  for (const auto& [k, v] : j.items())
    if (v.is_number()) {
      EXPECT_TRUE(keys.count(k)) << k << " is a number outside the table";
    }
  const json back = studies::VariantResult::from_json(j).to_json();
  EXPECT_EQ(back, j);
  // Read back from another process's file: a count that is not whole is refused by the merge.
  json bad = j;
  bad["irqs"] = 2.5;
  EXPECT_NE(studies::run_result_problem(bad, false, ""), "");
  bad = j;
  bad["latency_us"]["p99"] = -1.0;
  EXPECT_NE(studies::run_result_problem(bad, false, "").find("latency_us/p99"), std::string::npos);
}

// The sweep's metrics: the table's kMetric numbers in order, the derived ones computed, the
// other EE's; every one has a label in words; `software` (a cipher run's driver fallbacks) is one.
TEST(ResultFields, SweepMetricsComeFromTheTable) {
  const auto& names = studies::sweep_metric_names();
  EXPECT_EQ(names.front(), "wall_s");
  EXPECT_NE(std::find(names.begin(), names.end(), "software"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "tz.lock_wait_s"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "hash_ahead_hits"), names.end());  // host speed only
  for (const auto& n : names) EXPECT_NE(studies::sweep_metric_label(n), n) << n;
  studies::VariantResult r = numbered();
  r.requests = 4;
  r.wall_s = 2;
  r.cpu_s = 1;
  r.bytes = 8000000;
  const json m = studies::sweep_metrics(r.to_json());
  EXPECT_DOUBLE_EQ(m.at("us_per_request").get<double>(), 0.5e6);
  EXPECT_DOUBLE_EQ(m.at("cpu_us_per_request").get<double>(), 0.25e6);
  EXPECT_DOUBLE_EQ(m.at("mb_per_s").get<double>(), 4.0);
  EXPECT_EQ(m.at("tz.jobs"), 3);
  EXPECT_EQ(m.at("latency_us.p99"), r.lat_p99_us);
  EXPECT_EQ(m.at("software"), r.software);
  EXPECT_FALSE(m.contains("tz.lock"));  // a flag, not a number
}
