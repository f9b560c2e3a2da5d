// The timeline: the Chrome-trace JSON parses, spans on one track nest (or follow each other),
// every CPU span of a request adds up to that request's CPU time, the kept range is honoured,
// and `explain` accounts for the whole window: busy + idle = wall, the CPU split sums.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <vector>
#include <set>

#include "studies/explain.h"
#include "studies/replay.h"
#include "model/profile.h"
#include "model/trace.h"
#include "tests/process.h"

using namespace qcesim;
using nlohmann::json;

namespace {

using test::seed_path;

struct Traced {
  studies::Scenario sc;
  studies::VariantResult r;
  std::string json_text;
  std::string narration;
};

Traced run_traced(const std::string& variant, std::int64_t first, std::int64_t last, std::uint64_t messages,
                  const std::vector<std::string>& sets = {}) {
  std::vector<std::string> all = {"workload.messages=" + std::to_string(messages)};
  all.insert(all.end(), sets.begin(), sets.end());
  Traced t{studies::Scenario::load(seed_path(), all), {}, {}, {}};
  model::Tracer tr(first, last);
  t.r = studies::run_variant(t.sc, t.sc.variant(variant), true);
  t.json_text = tr.chrome_json("test");
  t.narration = studies::narrate(tr, first, t.sc, t.sc.variant(variant), t.r);
  return t;
}

// Spans on one track (pid, tid) nest: sorted by start, each starts after the previous ends or
// ends inside it.
void expect_nested(const json& events) {
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> tracks;
  for (const json& e : events)
    if (e["ph"] == "X")
      tracks[{e["pid"].get<int>(), e["tid"].get<int>()}].emplace_back(e["ts"].get<double>(),
                                                                      e["ts"].get<double>() + e["dur"].get<double>());
  ASSERT_FALSE(tracks.empty());
  for (auto& [key, spans] : tracks) {
    std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) {
      return a.first < b.first || (a.first == b.first && a.second > b.second);
    });
    std::vector<double> open_ends;
    for (const auto& [s, e] : spans) {
      while (!open_ends.empty() && open_ends.back() <= s + 1e-6) open_ends.pop_back();
      if (!open_ends.empty()) {
        EXPECT_LE(e, open_ends.back() + 1e-6) << "track " << key.first << "/" << key.second << " span at " << s;
      }
      open_ends.push_back(e);
    }
  }
}

}  // namespace

TEST(Trace, ParsesAndSpansNestOnEveryTrackLockVariant) {
  const Traced t = run_traced("sha256-qce-lock", 3, 6, 8);
  const json doc = json::parse(t.json_text);
  const json& ev = doc.at("traceEvents");
  expect_nested(ev);
  std::set<std::string> names, kinds;
  std::set<std::int64_t> requests;
  int flows = 0, counters = 0;
  for (const json& e : ev) {
    if (e["ph"] == "X") {
      names.insert(e["name"].get<std::string>());
      kinds.insert(e["cat"].get<std::string>());
      requests.insert(e["args"]["request"].get<std::int64_t>());
    }
    if (e["ph"] == "s" || e["ph"] == "t" || e["ph"] == "f") ++flows;
    if (e["ph"] == "C") ++counters;
  }
  EXPECT_EQ(requests, (std::set<std::int64_t>{3, 4, 5}));  // --trace-requests 3:6
  // One request span per request, named after it, in order and not overlapping.
  std::vector<std::pair<double, std::int64_t>> req_spans;
  for (const json& e : ev)
    if (e["ph"] == "X" && e["cat"] == "request") {
      EXPECT_EQ(e["name"], "request " + std::to_string(e["args"]["request"].get<std::int64_t>()));
      req_spans.emplace_back(e["ts"].get<double>(), e["args"]["request"].get<std::int64_t>());
    }
  std::sort(req_spans.begin(), req_spans.end());
  ASSERT_EQ(req_spans.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(req_spans[i].second, static_cast<std::int64_t>(3 + i));
  for (const char* k : {"cpu", "bam", "qce", "request"}) EXPECT_TRUE(kinds.count(k)) << k;
  for (const char* n : {"gic_handle_irq", "qce_ahash_done", "dma_unmap_sg", "crypto_request_complete"})
    EXPECT_TRUE(names.count(n)) << n;
  EXPECT_GT(flows, 3 * 4);  // each request's flow crosses task, BAM, engine, hardirq, softirq, kworker
  EXPECT_GT(counters, 0);   // IRQ line and lock owner
  // Every CPU step carries its core's clock: the profile's maximum under `performance`.
  const model::Profile prof = t.sc.profile_for(t.sc.variant("sha256-qce-lock"));
  const double x4 = prof.num("cpu.cortex-x4.freq"), a520 = prof.num("cpu.cortex-a520.freq");
  std::set<double> task_ghz, other_ghz;
  for (const json& e : ev)
    if (e["ph"] == "X" && e["cat"] == "cpu") {
      ASSERT_TRUE(e["args"].contains("GHz")) << e.dump();
      (e["args"]["context"] == "task" ? task_ghz : other_ghz).insert(e["args"]["GHz"].get<double>());
    }
  EXPECT_EQ(task_ghz, (std::set<double>{x4}));  // the caller on the X4
  EXPECT_TRUE(other_ghz.count(a520)) << a520;   // the interrupt on CPU0, an A520
}

// The CPU spans of one request add up to the steady-state CPU time per request.
TEST(Trace, ARequestsCpuSpansAddUpToItsCpuTime) {
  const Traced t = run_traced("sha256-qce-nolock", 5, 7, 8);
  const json ev = json::parse(t.json_text).at("traceEvents");
  double cpu_us = 0;
  for (const json& e : ev)
    if (e["ph"] == "X" && e["cat"] == "cpu" && e["args"]["request"] == 5 && e["args"]["context"] != "idle")
      cpu_us += e["dur"].get<double>();
  // The seed profile's mainline request: 54.87 us of CPU (docs/calibration.md); request 0 adds set-up.
  // Its interrupts' entry and exit on an idle core run on tracks of their own, counted as idle.
  EXPECT_NEAR(cpu_us, t.r.cpu_s / static_cast<double>(t.r.requests) * 1e6, 1.0);
  EXPECT_NEAR(cpu_us, 54.87, 0.05);
}

// The accounting says how much of the request's CPU time was waiting for cache lines the other
// core wrote last (lines.<item> x cpu.line_transfer): mainline's 53 lines, by context, adding up.
TEST(Trace, ExplainCountsTheCacheLinesMovedBetweenCores) {
  const std::string n = run_traced("sha256-qce-nolock", 10, 12, 13).narration;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      n, m,
      std::regex(
          R"(of which ([0-9.]+) us waiting for ([0-9.]+) cache lines the other core wrote last \(task )"
          R"(([0-9.]+), kworker ([0-9.]+), softirq ([0-9.]+), hardirq ([0-9.]+); cpu.line_transfer 70 ns each\))")))
      << n;
  EXPECT_NEAR(std::stod(m[2]), 52.9, 0.05);
  EXPECT_NEAR(std::stod(m[1]), 52.9 * 0.070, 0.005);
  EXPECT_NEAR(std::stod(m[3]) + std::stod(m[4]) + std::stod(m[5]) + std::stod(m[6]), std::stod(m[1]), 0.003);
  EXPECT_NEAR(std::stod(m[6]), 23.0 * 0.070, 0.005);  // hardirq: 17 on CPU0, 6 in the X4's IPI
}

// With the interrupt on the caller's core nothing moves between cores, and the line says nothing.
TEST(Trace, ExplainCountsNoLinesWhereOneCoreDoesBoth) {
  const std::string n = run_traced("sha256-qce-nolock", 10, 12, 13, {"cpu.irq_cpu=7"}).narration;
  EXPECT_NE(n.find("accounting for request 10"), std::string::npos) << n;
  EXPECT_EQ(n.find("cache lines the other core"), std::string::npos) << n;
}

// The narration closes: CPU = task + kworker + softirq + hardirq, and busy + idle = wall.
TEST(Trace, ExplainAccountsForTheWholeWallAndCpuTime) {
  const Traced t = run_traced("sha256-qce-lock", 4, 6, 7);
  const std::string& n = t.narration;
  std::smatch m;
  const std::regex cpu_line(R"(CPU\s+([0-9.]+) us = task ([0-9.]+) us \+ kworker ([0-9.]+) us \+ )"
                            R"(softirq ([0-9.]+) us \+ hardirq ([0-9.]+) us)");
  ASSERT_TRUE(std::regex_search(n, m, cpu_line)) << n;
  const double cpu = std::stod(m[1]);
  EXPECT_NEAR(cpu, std::stod(m[2]) + std::stod(m[3]) + std::stod(m[4]) + std::stod(m[5]), 0.002);
  ASSERT_TRUE(std::regex_search(n, m, std::regex(R"(wall\s+([0-9.]+) us from)"))) << n;
  const double wall = std::stod(m[1]);
  // Each CPU the request used: busy + idle = wall; their busy times add up to the CPU time (the
  // task on the X4, the interrupt and its softirq and kworker on CPU0).
  const std::regex line(R"(cpu[0-9]+ at [0-9.]+ GHz: busy ([0-9.]+) us \+ idle ([0-9.]+) us)");
  double busy = 0;
  int cpus = 0;
  for (auto it = std::sregex_iterator(n.begin(), n.end(), line); it != std::sregex_iterator(); ++it, ++cpus) {
    EXPECT_NEAR(std::stod((*it)[1]) + std::stod((*it)[2]), wall, 0.002);
    busy += std::stod((*it)[1]);
  }
  EXPECT_EQ(cpus, 2);
  // Busy is the cores' work; the CPU time leaves out the interrupts' entry and exit on an idle
  // core, outside Linux's irqtime clock, which the narration states.
  ASSERT_TRUE(std::regex_search(n, m, std::regex(R"(not counted: ([0-9.]+) us of interrupt entry and exit)"))) << n;
  const double edges = std::stod(m[1]);
  EXPECT_GT(edges, 0.5);
  EXPECT_NEAR(busy, cpu + edges, 0.004);
  EXPECT_NEAR(wall, 203.5, 0.5);  // the lock variant's steady-state request
  for (const char* step : {"LOCK", "UNLOCK", "gic_handle_irq", "qce_ahash_done", "crypto_request_complete"})
    EXPECT_NE(n.find(step), std::string::npos) << step;
  EXPECT_EQ(n.find("  \n"), std::string::npos);  // every step has its reason
}

// Where cost items share a kernel function's name, each step is described by the item it charged:
// mainline's softirq queues the done work for a kworker (not BH work), the kworker wakes the
// caller on the X4 with an IPI (not here), the DSB after a cache clean is not a page-table one.
TEST(Trace, ExplainDescribesEachStepByTheItemItCharged) {
  const std::string n = run_traced("sha256-qce-nolock", 10, 12, 13).narration;
  auto step = [&n](const std::string& where, const std::string& fn, const std::string& why) {
    return std::regex_search(n, std::regex(where + R"( +)" + fn + R"( +)" + why));
  };
  EXPECT_TRUE(step("cpu0 softirq", "queue_work_on", "queues the request's completion on a workqueue, for a kworker"))
      << n;
  EXPECT_FALSE(step("cpu0 softirq", "queue_work_on", "queues a work item on a BH workqueue")) << n;
  EXPECT_TRUE(step("cpu0 kworker/0", "try_to_wake_up", "wakes a thread sleeping on another CPU")) << n;
  EXPECT_TRUE(step("cpu7 task: task", "dsb", "the barrier that ends a cache-maintenance call")) << n;
  EXPECT_TRUE(step("cpu7 task: task", "dsb", "the barrier after a page-table update")) << n;
  EXPECT_TRUE(step("cpu7 task: task", "__schedule", "the thread going to sleep switches this CPU to its idle task"))
      << n;
  EXPECT_TRUE(step("cpu7 task: task", "__schedule", "context switch into the thread that was woken")) << n;
  EXPECT_TRUE(
      step("cpu7 hardirq", "gic_handle_irq", R"(interrupt entry: the GIC delivered an interrupt \(the BAM's, or)"))
      << n;
  // A driver function charged through a dispatch item keeps its own reason.
  EXPECT_TRUE(step("cpu0 softirq", "qce_ahash_done", "the sha driver's DMA callback")) << n;
}

// A request's wait can reach an idle state's target residency: with 1 MiB messages the locking
// run's caller sleeps about 8.8 ms on the X4, past the power-collapse state's 7.48 ms, and the
// IPI that wakes it waits the state's 1.35 ms exit; explain shows that step and counts it in the
// core's idle time, where before the wait was unexplained.
TEST(Trace, ExplainShowsTheWakeFromAnIdleState) {
  const Traced t = run_traced("sha256-qce-lock", 10, 12, 13, {"workload.message_bytes=1048576"});
  const std::string& n = t.narration;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      n, m, std::regex(R"(\n +[0-9.]+ +([0-9.]+)  cpu7 idle \(woken by ipi\) +cpuidle exit: cpu_sleep)")))
      << n;
  EXPECT_DOUBLE_EQ(std::stod(m[1]), 1350.0);
  EXPECT_TRUE(std::regex_search(n, m,
                                std::regex(R"(cpu7 at [0-9.]+ GHz: busy [0-9.]+ us \+ idle [0-9.]+ us )"
                                           R"(\(waiting for the hardware; 1350.000 us of it waking from cpu_sleep\))")))
      << n;
  // The interrupt's A520 waits about 7.1 ms, under the residency: it sleeps in WFI (1 us exit).
  EXPECT_NE(n.find("cpu0 idle (woken by irq)"), std::string::npos) << n;
  EXPECT_NE(n.find("cpuidle exit: wfi"), std::string::npos) << n;
  // The timeline shows the same steps and still nests.
  expect_nested(json::parse(t.json_text).at("traceEvents"));
}

// The race between the UNLOCK's INT and the tx EOT's handler, as explain states it: the margin
// (us) by which the INT came before or after the handler's read of IRQ_SRCS_EE, and that the
// request took `irqs` BAM interrupts (one elaboration per process: one case per test).
double unlock_race_margin(const std::vector<std::string>& sets, bool before, int irqs) {
  const std::string n = run_traced("sha256-qce-lock", 10, 12, 13, sets).narration;
  std::smatch m;
  const std::regex line(before ? R"(2 in hardirq \(the UNLOCK's INT came ([0-9.]+) us before the tx EOT's )"
                                 R"(handler read IRQ_SRCS_EE: seen in that call\))"
                               : R"(2 in hardirq \(the UNLOCK's INT came ([0-9.]+) us after the tx EOT's )"
                                 R"(handler read IRQ_SRCS_EE: an interrupt of its own\))");
  EXPECT_TRUE(std::regex_search(n, m, line)) << n;
  EXPECT_NE(n.find("interrupts " + std::to_string(irqs) + " from the BAM"), std::string::npos) << n;
  return m.empty() ? -1 : std::stod(m[1]);
}

// With the seed's profile the INT comes a few nanoseconds before the handler reads IRQ_SRCS_EE:
// that call sees it, two interrupts (the count's band is [2, 3], docs/calibration.md).
TEST(Trace, ExplainStatesTheUnlocksRaceWithItsMargin) {
  const double margin = unlock_race_margin({}, true, 2);
  EXPECT_GT(margin, 0.0);
  EXPECT_LT(margin, 0.05);
}

// Without the cache lines the A520 waits for from the X4 (cpu.line_transfer 0) the handler reads
// IRQ_SRCS_EE under a microsecond sooner than the UNLOCK's INT: a third interrupt of its own.
TEST(Trace, ExplainStatesAnUnlockAfterTheTxHandlersRead) {
  const double margin = unlock_race_margin({"cpu.line_transfer=0"}, false, 3);
  EXPECT_GT(margin, 0.0);
  EXPECT_LT(margin, 1.0);
}

// A fast UNLOCK (no page walk, a 0.2 us element) raises its INT well before the handler's read.
TEST(Trace, ExplainStatesAnUnlockSeenByTheTxHandler) {
  EXPECT_GT(unlock_race_margin({"bam.ce_fetch=200", "iommu.mode=passthrough"}, true, 2), 0.05);
}

// No INT asked for: terminate_all frees the UNLOCK in softirq after a pipe reset, two interrupts.
TEST(Trace, ExplainStatesAQuietUnlockFreedByTerminateAll) {
  const std::string n = run_traced("sha256-qce-lock", 10, 12, 13, {"variants.1.unlock_interrupt=false"}).narration;
  EXPECT_NE(n.find("1 in hardirq, 1 in softirq (terminate_all found the UNLOCK still in the FIFO: pipe reset)"),
            std::string::npos)
      << n;
  EXPECT_NE(n.find("interrupts 2 from the BAM"), std::string::npos) << n;
}

// A message asked for by init, update and final: one request in the narration with both engine
// requests in it (the update's 4032 bytes, the final's 64 from rctx->tmpbuf), each with its
// completion, and the caller woken between them.
TEST(Trace, ExplainNarratesAMessagesUpdateAndFinal) {
  const Traced t = run_traced("sha256-qce-nolock", 4, 6, 7, {"workload.hash_calls=init_update_final"});
  const std::string& n = t.narration;
  EXPECT_NE(n.find("init, update and final: two engine requests, the update's and the final's"), std::string::npos)
      << n;
  for (const char* step : {"qce_ahash_update", "4032 B data to QCE", "qce_ahash_final", "64 B data to QCE"})
    EXPECT_NE(n.find(step), std::string::npos) << step;
  EXPECT_EQ(n.find("crypto_ahash_digest"), std::string::npos);
  std::size_t done = 0;
  for (std::size_t at = n.find("qce_ahash_done"); at != std::string::npos; at = n.find("qce_ahash_done", at + 1))
    ++done;
  EXPECT_EQ(done, 2u);
}
