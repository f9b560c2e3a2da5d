#include "cli/report_command.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <spdlog/fmt/fmt.h>

#include "cli/output_file.h"
#include "cli/report_html.h"
#include "cli/run_command.h"
#include "cli/report_timeline.h"
#include "cli/sweep_command.h"
#include "model/config_error.h"
#include "model/trace.h"
#include "studies/explain.h"
#include "studies/processes.h"
#include "studies/replay.h"
#include "studies/scenario.h"
#include "studies/sensitivity.h"
#include "studies/stop_signals.h"
#include "studies/uncertainty.h"

namespace qcesim::cli {

using model::ConfigError;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A sweep file is a JSON object with a "sweep" key; anything else is read as a scenario (whose
// loader names what is wrong with it). A regular file: the report reads its input more than
// once (a pipe's second read would find nothing, a FIFO's would wait), and its parse is checked
// as every input's is (size, nesting, syntax).
bool is_sweep_file(const std::string& file) {
  const json j =
      model::parse_input_json(model::read_input_file(file, "scenario or sweep file", model::InputKind::regular), file);
  return j.is_object() && j.contains("sweep");
}

// The sweep: run into a private folder (its CSV, JSON and journal are not wanted), the page
// written by the sweep itself.
int sweep_report(const ReportOptions& opt, std::ostream& out, std::ostream& err) {
  for (const auto& [option, set] : {std::pair<const char*, bool>{"--variant", !opt.variants.empty()},
                                    {"--request", opt.request >= 0},
                                    {"--compare", !opt.compare.empty()},
                                    {"--uncertainty", opt.uncertainty > 0},
                                    {"--sensitivity", opt.sensitivity > 0},
                                    {"--json", !opt.json_file.empty()},
                                    {"--timing-only", opt.timing_only}})  // the sweep's file says
    if (set) throw ConfigError(option, "", "a scenario file (not a sweep) with this option", opt.input);
  check_output("--output", opt.out);
  char dir_template[] = "/tmp/qcesim-report-XXXXXX";
  if (!mkdtemp(dir_template)) throw std::runtime_error("cannot create a temporary folder for the sweep's files");
  const fs::path dir = dir_template;
  // On a signal the handler removes files and then the (empty) folder: the sweep's own files
  // are named for it, since the folder goes only when they have.
  struct Cleanup {
    fs::path dir;
    std::vector<std::string> files;
    std::vector<int> slots;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
      for (int s : slots) studies::forget_temp_file(s);
    }
  } cleanup{dir, {}, {}};
  for (const char* name : {"sweep.journal.jsonl", "sweep.csv", "sweep.json"})
    cleanup.files.push_back((dir / name).string());
  for (const std::string& f : cleanup.files) cleanup.slots.push_back(studies::register_temp_file(f.c_str()));
  cleanup.slots.push_back(studies::register_temp_dir(dir.c_str()));
  SweepOptions so;
  so.file = opt.input;
  so.out = (dir / "sweep").string();
  so.jobs = opt.jobs;
  so.fresh = true;
  so.sets = opt.sets;
  so.report = opt.out;
  so.version = opt.version;
  so.report_only = true;
  return run_sweep(so, out, err);
}

// The variant the others are compared with: the engine's variant without the lock when there is
// a locked one (mmio register I/O first, as mainline), else none.
std::string default_compare(const std::vector<const studies::Variant*>& chosen) {
  bool locked = false;
  for (const auto* v : chosen) locked = locked || v->bam_lock;
  if (!locked) return "";
  const studies::Variant* best = nullptr;
  for (const auto* v : chosen)
    if (v->engine == studies::VariantEngine::qce && !v->bam_lock &&
        (!best || (v->reg_io == qce::RegIo::mmio && best->reg_io != qce::RegIo::mmio)))
      best = v;
  return best ? best->name : "";
}

// A variant's parameters (the profile with the scenario's and the variant's overrides) as the
// sensitivity section shows them.
json parameters_of(const studies::Scenario& sc, const studies::Variant& v) {
  json j = json::object();
  const model::Profile profile = sc.profile_for(v);
  for (const auto& [name, p] : profile.params())
    j[name] = {
        {"value", p.is_text() ? p.text : fmt::format("{:g}", p.value)}, {"unit", p.unit}, {"provenance", p.provenance}};
  return j;
}

}  // namespace

int run_report(const ReportOptions& opt, std::ostream& out, std::ostream& err) {
  if (is_sweep_file(opt.input)) return sweep_report(opt, out, err);
  const studies::Scenario sc = studies::Scenario::load(opt.input, opt.sets);
  const std::vector<const studies::Variant*> chosen = chosen_variants(sc, opt.variants);
  const std::uint64_t messages = sc.workload.messages;
  if (opt.request >= 0 && static_cast<std::uint64_t>(opt.request) >= messages)
    throw ConfigError("--request", "", fmt::format("a request below workload.messages ({})", messages),
                      std::to_string(opt.request));
  std::string compare = opt.compare.empty() ? default_compare(chosen) : opt.compare;
  if (!opt.compare.empty() &&
      std::none_of(chosen.begin(), chosen.end(), [&](const auto* v) { return v->name == opt.compare; }))
    throw ConfigError("--compare", "", "a variant the report simulates", model::quoted_input(opt.compare));
  check_output("--output", opt.out);
  if (!opt.json_file.empty()) check_output("--json", opt.json_file);
  for (const auto* v : chosen) studies::check_variant(sc, *v);

  err << fmt::format("qcesim report: {} ({} x {} B {}), {} variant(s){}{}\n", sc.name, messages,
                     sc.workload.message_bytes, sc.workload.algorithm.name, chosen.size(),
                     opt.request >= 0 ? ", request " + std::to_string(opt.request) + " traced" : "",
                     opt.timing_only ? ", timing only" : "");
  const std::size_t n = chosen.size();
  std::int64_t request = opt.request;
  std::size_t finished = 0;
  auto progress = [&](const std::string& what, const json& j) {
    ++finished;
    if (j.contains("error")) {
      err << fmt::format("[{}/{}] {}: failed: {}\n", finished, 2 * n, what,
                         model::terminal_safe(j["error"].get<std::string>()));
    } else {
      err << fmt::format("[{}/{}] {}\n", finished, 2 * n, what);
    }
    err.flush();
  };
  // Each variant's whole run; the traced request's replay stops after it (and what the queue keeps
  // in flight behind it). Without --request the whole runs go first: the request traced is the
  // first of every variant's steady state, which their fast-forward finds.
  auto whole = [&](std::size_t i, bool ahead) {
    return studies::run_variant(sc, *chosen[i], opt.timing_only, ahead).to_json();
  };
  auto traced = [&](std::size_t i) -> json {
    std::vector<std::string> short_sets = opt.sets;
    short_sets.push_back(fmt::format("workload.messages={}", studies::messages_to_explain(sc.workload, request)));
    const studies::Scenario short_sc = studies::Scenario::load(opt.input, short_sets);
    const studies::Variant& v = short_sc.variant(chosen[i]->name);
    model::Tracer tracer(request, request + 2);
    const studies::VariantResult r = studies::run_variant(short_sc, v, true, false);
    json tl = timeline_json(tracer, request);
    tl["narration"] = studies::narrate(tracer, request, short_sc, v, r);
    return tl;
  };
  auto traced_name = [&](std::size_t i) {
    return chosen[i]->name + " (request " + std::to_string(request) + " traced)";
  };
  std::vector<json> raw;
  if (request >= 0) {
    const bool ahead = studies::spare_core_per_run(2 * n, opt.jobs);
    raw = studies::fork_each(
        2 * n, opt.jobs, [&](std::size_t i) { return i < n ? whole(i, ahead) : traced(i - n); },
        [&](std::size_t i, const json& j) { progress(i < n ? chosen[i]->name : traced_name(i - n), j); });
  } else {
    const bool ahead = studies::spare_core_per_run(n, opt.jobs);
    raw = studies::fork_each(
        n, opt.jobs, [&](std::size_t i) { return whole(i, ahead); },
        [&](std::size_t i, const json& j) { progress(chosen[i]->name, j); });
    for (const json& j : raw)
      if (j.contains("error"))
        throw std::runtime_error("a run failed: " + model::terminal_safe(j["error"].get<std::string>()));
    // The CPU path's interleaved calls trace the first request of each.
    unsigned batch = 1;
    for (const auto* v : chosen) batch = std::max(batch, studies::traced_batch(*v));
    request = 0;
    std::string no_cycle;
    for (std::size_t i = 0; i < n; ++i) {
      const studies::FastForwardInfo ff = studies::VariantResult::from_json(raw[i]).fast_forward;
      const std::int64_t own = studies::steady_request(ff, messages, batch);
      request = std::max(request, own);
      if (!studies::found_steady_cycle(ff)) no_cycle += (no_cycle.empty() ? "" : ", ") + chosen[i]->name;
    }
    err << fmt::format("qcesim report: request {} traced, {}\n", request,
                       no_cycle.empty() ? "in every variant's steady state"
                                        : "no repeating cycle found in " + no_cycle + " (the 100th, or the last)");
    const auto timelines = studies::fork_each(
        n, opt.jobs, [&](std::size_t i) { return traced(i); },
        [&](std::size_t i, const json& j) { progress(traced_name(i), j); });
    raw.insert(raw.end(), timelines.begin(), timelines.end());
  }
  for (const json& j : raw)
    if (j.contains("error"))
      throw std::runtime_error("a run failed: " + model::terminal_safe(j["error"].get<std::string>()));

  json doc = {{"scenario", sc.name},
              {"file", fs::path(opt.input).filename().string()},
              {"about", sc.document.value("about", "")},
              {"version", opt.version},
              {"sets", opt.sets},
              {"request", request},
              {"compare", compare},
              {"workload",
               {{"messages", messages},
                {"message_bytes", sc.workload.message_bytes},
                {"algorithm", sc.workload.algorithm.name},
                {"queue_depth", sc.workload.queue_depth}}},
              {"variants", json::array()},
              {"timelines", json::object()},
              {"uncertainty", nullptr},
              {"sensitivity", nullptr}};
  for (std::size_t i = 0; i < n; ++i) {
    doc["variants"].push_back(raw[i]);
    doc["timelines"][chosen[i]->name] = raw[n + i];
  }
  studies::UncertaintySpec spec;
  spec.scenario = opt.input;
  spec.sets = opt.sets;
  for (const auto* v : chosen) spec.variants.push_back(v->name);
  spec.seed = opt.seed;
  spec.jobs = opt.jobs;
  if (opt.uncertainty) {
    spec.samples = opt.uncertainty;
    const studies::UncertaintyResult u = studies::run_uncertainty(spec, err);
    doc["uncertainty"] = studies::uncertainty_json(u, spec);
  }
  if (opt.sensitivity) {
    studies::SensitivitySpec ss;
    ss.base = spec;
    ss.trajectories = opt.sensitivity;
    doc["sensitivity"] = studies::sensitivity_json(studies::run_sensitivity(ss, err));
    for (const auto* v : chosen) doc["parameters"][v->name] = parameters_of(sc, *v);
  }
  write_output("--output", opt.out, scenario_report_html(doc));
  if (!opt.json_file.empty()) write_output("--json", opt.json_file, model::json_output(doc, 1) + "\n");
  err << "wrote " << opt.out << "\n";
  (void)out;
  return 0;
}

}  // namespace qcesim::cli
