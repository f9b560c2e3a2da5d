// The HTML report's pieces: the charts (ticks that hold the data, titles that wrap rather than
// clip, µs, grouped bars for a text axis, every string escaped), the timeline of one request
// (its spans add up to the request's CPU time, its phases tile the window), and the page (every
// section, the exact values behind the numbers, no markup from the input, no script).
#include <gtest/gtest.h>

#include <regex>

#include "cli/markup.h"
#include "cli/report_command.h"
#include "cli/report_html.h"
#include "cli/report_timeline.h"
#include "cli/svg_chart.h"
#include "model/trace.h"
#include "studies/explain.h"
#include "studies/replay.h"
#include "studies/sweep.h"

using namespace qcesim;
using nlohmann::json;

namespace {

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// The numbers an SVG's text elements hold, in order.
std::vector<std::string> texts(const std::string& svg) {
  std::vector<std::string> out;
  const std::regex text(R"(<text[^>]*>([^<]*)</text>)");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

}  // namespace

TEST(Report, MarkupEscapesEveryCharacterThatOpensMarkup) {
  EXPECT_EQ(cli::xml_text("<a href=\"x\">&'\n"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39; ");
  EXPECT_EQ(cli::svg_num(1.0 / 3), "0.33");
  EXPECT_EQ(cli::svg_num(-0.001), "0");
  EXPECT_EQ(cli::svg_num(std::nan("")), "0");
}

TEST(Report, BarChartTicksHoldTheLargestBarAndLabelsAreEscaped) {
  cli::BarChart c;
  c.title = "t <b>";
  c.axis = "µs per request";
  c.rows = {"a<script>", "b"};
  c.series = {"task", "hardirq"};
  c.values = {{60, 44.6}, {10, 2}};  // 104.6: the axis must reach 120, not stop at 100
  const std::string svg = cli::bar_chart_svg(c);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_NE(svg.find("a&lt;script&gt;"), std::string::npos);
  EXPECT_NE(svg.find("µs per request"), std::string::npos);
  double largest_tick = 0;
  for (const std::string& t : texts(svg))
    if (std::regex_match(t, std::regex("[0-9.]+"))) largest_tick = std::max(largest_tick, std::stod(t));
  EXPECT_GE(largest_tick, 104.6);
  EXPECT_LE(largest_tick, 140);
}

TEST(Report, LineChartWrapsALongTitleAndDrawsATextAxisAsGroupedBars) {
  cli::LineChart c;
  c.title = std::string(300, 'x') + " " + std::string(40, 'y') + " " + std::string(40, 'z');
  c.x_title = "mode";
  c.y_title = studies::sweep_metric_label("cpu_us_per_request");
  EXPECT_EQ(c.y_title, "CPU time per request [µs]");
  c.categories = {"strict", "lazy", "passthrough"};
  c.series = {{"qce-mmio", {{0, 55}, {1, 48}, {2, 47}}}, {"qce-cmd-lock", {{0, 105}, {1, 63}, {2, 58}}}};
  const std::string svg = cli::line_chart_svg(c);
  EXPECT_EQ(count(svg, "<path"), 0u);                 // no line through categories
  EXPECT_EQ(count(svg, "</title></rect>"), 6u);       // a bar per (series, category), each with its value
  EXPECT_GE(count(svg, "font-weight=\"bold\""), 2u);  // the title in more than one line
  for (const std::string& t : texts(svg)) EXPECT_LE(t.size(), 140u) << t;
}

TEST(Report, LogAxisTicksStayInsideTheDataAndUseSiPrefixes) {
  cli::LineChart c;
  c.title = "t";
  c.x_title = "message size [bytes]";
  c.y_title = "µs";
  c.log_x = c.log_y = true;
  c.series = {{"a", {{16, 0.13}, {1048576, 437}}}};
  c.markers = {{960827, "a crosses at 960827"}};
  const std::string svg = cli::line_chart_svg(c);
  const std::vector<std::string> t = texts(svg);
  EXPECT_NE(std::find(t.begin(), t.end(), "1M"), t.end());
  EXPECT_NE(std::find(t.begin(), t.end(), "10k"), t.end());
  EXPECT_EQ(std::find(t.begin(), t.end(), "10M"), t.end());  // no decade beyond the data's
  EXPECT_NE(std::find(t.begin(), t.end(), "a crosses at 960827"), t.end());
}

TEST(Report, TimelineOfOneRequestAddsUpToItsCpuTimeAndItsPhasesTileTheWindow) {
  const studies::Scenario sc =
      studies::Scenario::load(std::string(QCESIM_SOURCE_DIR) + "/scenarios/sm8650-seed.json", {"workload.messages=8"});
  const std::int64_t request = 5;
  model::Tracer tracer(request, request + 2);
  (void)studies::run_variant(sc, sc.variant("sha256-qce-lock"), true);
  const json tl = cli::timeline_json(tracer, request);
  ASSERT_GT(tl["spans"].size(), 50u);
  const double dur = tl["duration_us"];
  EXPECT_GT(dur, 150);  // a locked request takes about 210 us
  EXPECT_LT(dur, 300);
  double cpu = 0;
  std::set<std::string> kinds;
  for (const json& s : tl["spans"]) {
    const json& t = tl["tracks"][s["lane"].get<std::size_t>()];
    kinds.insert(t["kind"]);
    EXPECT_GE(s["start_us"].get<double>(), -1e-9);
    EXPECT_LE(s["end_us"].get<double>(), dur + 1e-9);
    if (t["kind"] == "cpu" && s["own"].get<bool>()) cpu += s["end_us"].get<double>() - s["start_us"].get<double>();
  }
  EXPECT_TRUE(kinds.count("cpu") && kinds.count("bam") && kinds.count("qce"));
  EXPECT_GT(cpu, 80);  // the locked variant's CPU per request is about 105 us
  EXPECT_LT(cpu, 130);
  const json& ph = tl["phases"];
  ASSERT_EQ(ph.size(), 3u);
  EXPECT_DOUBLE_EQ(ph[0]["start_us"].get<double>(), 0.0);
  for (std::size_t k = 1; k < ph.size(); ++k)
    EXPECT_DOUBLE_EQ(ph[k]["start_us"].get<double>(), ph[k - 1]["end_us"].get<double>());
  EXPECT_DOUBLE_EQ(ph.back()["end_us"].get<double>(), dur);
  // The lock's owner lane: held by this EE (value 0) at some point in the window.
  bool held = false;
  for (const json& c : tl["counters"]) held = held || c["value"].get<double>() == 0;
  EXPECT_TRUE(held);
  const std::string svg = cli::timeline_svg(tl, "request 5");
  EXPECT_NE(svg.find("BAM and engine at work"), std::string::npos);
  EXPECT_NE(svg.find("µs from the request's submission"), std::string::npos);
}

TEST(Report, PageHasEverySectionTheExactValuesAndNoMarkupFromItsInput) {
  json v = {{"name", "a"},
            {"requests", 10},
            {"wall_s", 0.001234567},
            {"cpu_s", 0.0005},
            {"hardirq_s", 0.0001},
            {"softirq_s", 0.0001},
            {"task_s", 0.0003},
            {"kworker_s", 0.0},
            {"ksoftirqd_s", 0.0},
            {"irqs", 30},
            {"bam_descriptors", 250},
            {"lock_pairs", 10},
            {"latency_us", {{"p50", 123.4}}},
            {"measured", {{"wall_s", 0.0012}}},
            {"cpu_by_mechanism", {{"tlb", 0.0002}, {"interrupts", 0.0003}}},
            {"profile", json::array({{{"context", "softirq"}, {"function", "<img src=x>"}, {"cpu_s", 0.0002}}})}};
  json b = v;
  b["name"] = "b";
  b["lock_pairs"] = 0;
  b["wall_s"] = 0.0005;
  json doc = {{"scenario", "s"},
              {"file", "s.json"},
              {"about", "</p><script>alert(1)</script>"},
              {"version", "qcesim test"},
              {"sets", json::array({"workload.about=<style>"})},
              {"request", 5},
              {"compare", "b"},
              {"workload", {{"messages", 10}, {"message_bytes", 4096}, {"algorithm", "sha256"}, {"queue_depth", 1}}},
              {"variants", {v, b}},
              {"timelines", json::object()},
              {"uncertainty", nullptr},
              {"sensitivity", nullptr}};
  const std::string html = cli::scenario_report_html(doc);
  for (const char* id : {"summary", "results", "timeline", "where", "lock", "explain", "sensitivity"})
    EXPECT_NE(html.find(std::string("<section id=\"") + id + "\""), std::string::npos) << id;
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<style>\""), std::string::npos);
  EXPECT_NE(html.find("data-field=\"wall_s\" data-value=\"0.001234567\">0.001</span>"), std::string::npos);
  EXPECT_NE(html.find("+2.9 %"), std::string::npos);  // 0.001235 against 0.0012
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
  EXPECT_NE(html.find("a &minus; b"), std::string::npos);
  // No board measurement of the task time or the interrupts: no columns for them.
  EXPECT_EQ(html.find("task [s]"), std::string::npos);
  EXPECT_EQ(html.find("measured.irqs_per_request"), std::string::npos);

  // A board's scenario (qcesim ingest) measured the process's own CPU time and the interrupts per
  // request for variant a: both get their measured cells; 3 is 3 interrupts per request against
  // the run's 30 / 10 = 3, b measured neither.
  doc["variants"][0]["measured"]["task_s"] = 0.0004;
  doc["variants"][0]["measured"]["irqs_per_request"] = 3;
  const std::string board = cli::scenario_report_html(doc);
  EXPECT_NE(board.find("<th colspan=\"3\">task [s]</th>"), std::string::npos);
  EXPECT_NE(board.find("<th colspan=\"2\">interrupts per request</th>"), std::string::npos);
  EXPECT_NE(board.find("data-field=\"measured.task_s\" data-value=\"0.0004\""), std::string::npos);
  EXPECT_NE(board.find("-25.0 %"), std::string::npos);  // task 0.0003 against 0.0004
  EXPECT_NE(board.find("data-field=\"measured.irqs_per_request\" data-value=\"3\" class=\"err-good\">3.00 ✓</td>"),
            std::string::npos);
  doc["variants"][0]["measured"]["irqs_per_request"] = 2;
  EXPECT_NE(cli::scenario_report_html(doc).find(
                "data-field=\"measured.irqs_per_request\" data-value=\"2\" class=\"err-bad\">2.00 ≠</td>"),
            std::string::npos);
}

// The request narrated when none is named: where the replay's cycle begins (at least the 10th),
// without a cycle the 100th, never past the last.
TEST(Report, SteadyRequestIsWhereTheCycleBeginsElseTheHundredth) {
  studies::FastForwardInfo none;
  EXPECT_EQ(studies::steady_request(none, 50000), 100);
  EXPECT_EQ(studies::steady_request(none, 8), 7);
  EXPECT_EQ(studies::steady_request(none, 1), 0);
  studies::FastForwardInfo cycle;
  cycle.skipped = 49536;
  cycle.period = 64;
  cycle.found_at = 375;
  EXPECT_EQ(studies::steady_request(cycle, 50000), 375);
  EXPECT_EQ(studies::steady_request(cycle, 300), 299);
  EXPECT_EQ(studies::steady_request(cycle, 50000, 2), 376);  // ce_interleave 2 traces even requests
  EXPECT_EQ(studies::steady_request(cycle, 300, 2), 298);
  cycle.found_at = 3;
  EXPECT_EQ(studies::steady_request(cycle, 50000), 10);
  cycle.found_at = 20000;  // beyond what explain's probe replays: as if there were none
  EXPECT_FALSE(studies::found_steady_cycle(cycle));
  EXPECT_EQ(studies::steady_request(cycle, 50000), 100);
}

TEST(Report, SensitivityShowsEachVariantsOwnParameterValues) {
  const json effect = {{"parameter", "iommu.mode"}, {"mu_star", 0.2}, {"mu", 0.2}, {"sigma", 0.0}};
  json doc = {{"scenario", "s"},
              {"workload", {{"messages", 1}, {"message_bytes", 16}, {"algorithm", "sha256"}, {"queue_depth", 1}}},
              {"request", 0},
              {"variants", json::array()},
              {"timelines", json::object()},
              {"sensitivity",
               {{"parameters", 1},
                {"runs", 4},
                {"variants",
                 {{{"name", "a"}, {"quantities", {{"wall_s", {effect}}}}},
                  {{"name", "b"}, {"quantities", {{"wall_s", {effect}}}}}}}}},
              {"parameters",
               {{"a", {{"iommu.mode", {{"value", "strict"}, {"unit", "name"}, {"provenance", "estimate: a"}}}}},
                {"b", {{"iommu.mode", {{"value", "passthrough"}, {"unit", "name"}, {"provenance", "estimate: b"}}}}}}}};
  const std::string html = cli::scenario_report_html(doc);
  const auto a = html.find("<h3>a</h3>"), b = html.find("<h3>b</h3>");
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(b, std::string::npos);
  EXPECT_NE(html.find("strict name", a), std::string::npos);
  EXPECT_LT(html.find("strict name", a), b);
  EXPECT_NE(html.find("passthrough name", b), std::string::npos);
  EXPECT_EQ(html.find("strict name", b), std::string::npos);
}
