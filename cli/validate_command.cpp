#include "cli/validate_command.h"

#include <algorithm>
#include <map>
#include <filesystem>
#include <set>
#include <ostream>
#include <spdlog/fmt/fmt.h>

#include "cli/output_file.h"
#include "model/config_error.h"
#include "studies/scenario.h"
#include "studies/sensitivity.h"
#include "studies/uncertainty.h"

namespace qcesim::cli {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A scenario file with measured values: its path and its measured blocks (the same block in two
// files is the same measurement).
struct MeasuredFile {
  std::string path;
  std::set<std::string> measured;
  bool operator<(const MeasuredFile& o) const { return path < o.path; }
};

// Scenario files (not sweeps) in `dir` with a measured block in some variant, by name.
std::vector<MeasuredFile> measured_scenarios(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw model::ConfigError(dir, "", "a folder of scenario files", "not a folder");
  std::vector<MeasuredFile> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    const json j = model::read_json_file(e.path().string(), "scenario file", model::InputKind::regular);
    if (!j.is_object() || !j.contains("scenario") || !j.contains("variants") || !j["variants"].is_array()) continue;
    MeasuredFile f{e.path().string(), {}};
    for (const json& v : j["variants"])
      if (v.is_object() && v.contains("measured")) f.measured.insert(v["measured"].dump());
    if (!f.measured.empty()) files.push_back(std::move(f));
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The parameters variant v runs with whose values were set from the measurements of one of
// `sources` (their provenance names it): the profile's, or the variant's own restatements. A value
// the scenario holds plainly does not count: the provenance the parameter still carries is not
// that value's.
std::vector<std::string> fitted_from(const studies::Scenario& sc, const studies::Variant& v,
                                     const std::vector<const studies::Scenario*>& sources) {
  std::vector<std::string> names;
  const model::Profile profile = sc.profile_for(v);
  for (const auto& [name, p] : profile.params()) {
    if (sc.holds_plainly(v, name)) continue;
    for (const studies::Scenario* k : sources)
      if (p.provenance.find(k->name) != std::string::npos) {
        names.push_back(name);
        break;
      }
  }
  return names;
}

}  // namespace

int run_validate(const ValidateOptions& opt, std::ostream& out, std::ostream& err) {
  if (!opt.json_file.empty()) check_output("--json", opt.json_file);
  const std::vector<MeasuredFile> files = measured_scenarios(opt.dir);
  if (files.empty()) throw model::ConfigError(opt.dir, "", "scenario files with measured values", "none");
  // Check every scenario before the first simulation.
  std::vector<studies::Scenario> scenarios;
  scenarios.reserve(files.size());
  for (const MeasuredFile& f : files)
    scenarios.push_back(studies::Scenario::load(f.path, {}, model::InputKind::regular));
  // Each scenario's SoC: its profile's name (its first variant's; a variant changes values, not
  // the profile).
  std::vector<std::string> soc_of;
  soc_of.reserve(scenarios.size());
  for (const studies::Scenario& sc : scenarios) soc_of.push_back(sc.profile_for(sc.variants.front()).name());
  // --soc: every name must be one of the folder's SoCs, said before anything runs.
  for (const std::string& want : opt.socs) {
    if (std::find(soc_of.begin(), soc_of.end(), want) != soc_of.end()) continue;
    std::set<std::string> names(soc_of.begin(), soc_of.end());
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    throw model::ConfigError("--soc", "", "the name of a SoC the folder's scenarios are for (" + list + ")",
                             model::quoted_input(want));
  }
  auto shown = [&](std::size_t i) {
    return opt.socs.empty() || std::find(opt.socs.begin(), opt.socs.end(), soc_of[i]) != opt.socs.end();
  };
  // In sample: a parameter the row's variant runs with was set from this scenario's measurements
  // (its provenance names a scenario that carries the same measured block: a study repeating P1 is
  // in sample too). Each variant's own profile decides: a variant that holds a fitted parameter at
  // another value does not run with the fit, and one that restates a fit runs with that one.
  auto sources_for = [&](std::size_t i) {
    std::vector<const studies::Scenario*> sources;
    for (std::size_t k = 0; k < files.size(); ++k) {
      bool shared = false;
      for (const std::string& m : files[i].measured) shared = shared || files[k].measured.count(m);
      if (shared) sources.push_back(&scenarios[k]);
    }
    return sources;
  };
  // Rows grouped by SoC (the scenario's profile), each group with how many measurements its
  // bands hold and how wide they are: the median p95/p05 ratio (a band ten times wide predicts
  // nothing).
  struct Row {
    std::string line;
    bool inside;
    double width;
    bool count;  // an interrupt count: its band says which path, not how sharp a prediction is
  };
  std::map<std::string, std::vector<Row>> by_soc;
  // Columns as wide as the longest scenario and variant name (a board's names run long).
  std::size_t name_w = 22, variant_w = 20;
  // Over every scenario of the folder, shown or not: --soc's rows are the whole table's.
  // The quantity column is as wide as the longest quantity measured (irqs_per_request on a board).
  std::size_t quantity_w = 10;
  for (const studies::Scenario& sc : scenarios) {
    name_w = std::max(name_w, sc.name.size());
    for (const auto& v : sc.variants) {
      variant_w = std::max(variant_w, v.name.size());
      for (const auto& [k, x] : v.measured)
        if (k != "messages" && k != "message_bytes") quantity_w = std::max(quantity_w, k.size());
    }
  }
  json rows = json::array();
  std::size_t inside = 0, total = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!shown(i)) continue;  // still counted above: its measurements may put another in sample
    const studies::Scenario& sc = scenarios[i];
    const std::string& soc = soc_of[i];
    studies::UncertaintySpec spec;
    spec.scenario = files[i].path;
    spec.scenario_kind = model::InputKind::regular;  // read as validate read it: a FIFO put there is refused
    spec.samples = opt.samples;
    spec.seed = opt.seed;
    spec.jobs = opt.jobs;
    spec.sets = {fmt::format("workload.messages={}", std::min(opt.messages, sc.workload.messages))};
    // Only the variants with a measurement: a study's what-ifs beside them have no row to fill.
    for (const auto& v : sc.variants)
      if (!v.measured.empty()) spec.variants.push_back(v.name);
    if (spec.variants.empty()) continue;  // `"measured": {}` says nothing to compare
    const auto sources = sources_for(i);
    const studies::UncertaintyResult r = studies::run_uncertainty(spec, err);
    for (const studies::VariantBands& v : r.variants) {
      const auto fitted = fitted_from(sc, sc.variant(v.name), sources);
      std::string sample = "out";
      if (!fitted.empty()) {
        sample = "in (";
        for (std::size_t k = 0; k < fitted.size(); ++k) sample += (k ? ", " : "") + fitted[k];
        sample += ")";
      }
      for (const auto& [k, heading] : studies::quantities_in(v.quantity)) {
        const studies::Band& b = v.quantity.at(k);
        if (b.measured <= 0) continue;  // no measurement (or a CPU path's zero hardirq time)
        const double error = b.nominal / b.measured - 1;
        const bool in = studies::inside(b, k);
        const double width = b.p05 > 0 ? b.p95 / b.p05 : 0;
        inside += in;
        ++total;
        by_soc[soc].push_back(
            {fmt::format("{:<{}} {:<{}} {:<{}} {:>10.4g} {:>10.4g} {:>23} {:>8.2f} {:>+7.1f}% {:>6}  {}\n", sc.name,
                         name_w, v.name, variant_w, k, quantity_w, b.measured, b.nominal,
                         fmt::format("[{:.4g}, {:.4g}]", b.p05, b.p95), width, 100 * error, in ? "yes" : "no", sample),
             in, width, k == studies::kIrqsPerRequest});
        rows.push_back({{"soc", soc},
                        {"scenario", sc.name},
                        {"variant", v.name},
                        {"quantity", k},
                        {"measured", b.measured},
                        {"predicted", b.nominal},
                        {"p05", b.p05},
                        {"p95", b.p95},
                        {"band_ratio", width},
                        {"error", error},
                        {"inside", in},
                        {"in_sample", !fitted.empty()},
                        {"fitted_from_it", fitted}});
      }
    }
  }
  std::string table;
  json socs = json::object();
  for (auto& [soc, list] : by_soc) {
    std::vector<double> widths;
    std::size_t in = 0;
    for (const Row& row : list) {
      if (!row.count) widths.push_back(row.width);
      in += row.inside;
    }
    std::sort(widths.begin(), widths.end());
    const std::size_t n = list.size(), w = widths.size();
    const double median = w == 0 ? 0 : w % 2 ? widths[w / 2] : (widths[w / 2 - 1] + widths[w / 2]) / 2;
    table += fmt::format("{}:\n{:<{}} {:<{}} {:<{}} {:>10} {:>10} {:>23} {:>8} {:>8} {:>6}  {}\n", soc, "scenario",
                         name_w, "variant", variant_w, "quantity", quantity_w, "measured", "predicted", "90 % interval",
                         "p95/p05", "error", "inside", "sample");
    for (const Row& row : list) table += row.line;
    table += fmt::format("{}: {} of {} inside the 90 % interval; median band p95/p05 {:.2f}\n\n", soc, in, n, median);
    socs[soc] = {{"inside", in}, {"measured", n}, {"median_band_ratio", median}};
  }
  out << table
      << fmt::format("{} of {} measured numbers inside the 90 % interval ({} samples per run, seed {})\n", inside,
                     total, opt.samples, opt.seed);
  if (!opt.json_file.empty())
    write_output(
        "--json", opt.json_file,
        model::json_output(json({{"samples", opt.samples}, {"seed", opt.seed}, {"socs", socs}, {"rows", rows}}), 2) +
            "\n");
  return 0;
}

int run_sensitivity(const SensitivityOptions& opt, std::ostream& out, std::ostream& err) {
  if (!opt.json_file.empty()) check_output("--json", opt.json_file);
  studies::SensitivitySpec spec;
  spec.base.scenario = opt.scenario;
  spec.base.sets = opt.sets;
  spec.base.variants = opt.variants;
  spec.base.seed = opt.seed;
  spec.base.jobs = opt.jobs;
  spec.base.compare = opt.compare;
  spec.trajectories = opt.trajectories;
  spec.top = opt.top;
  json shard_doc;
  apply_shard_options(opt.shards, spec.base.shard, shard_doc);
  const studies::SensitivityResult r = studies::run_sensitivity(spec, err);
  if (spec.base.shard.count) {
    write_shard(opt.shards, spec.base.shard, shard_doc, err);
    return 0;
  }
  out << studies::sensitivity_table(r, opt.top);
  if (!opt.json_file.empty())
    write_output("--json", opt.json_file, model::json_output(studies::sensitivity_json(r), 2) + "\n");
  return 0;
}

}  // namespace qcesim::cli
