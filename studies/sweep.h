// A sweep: one scenario, run at many points, each point a set of `--set` assignments taken from
// axes (lists or ranges of values for a scenario or profile path), combined as a cartesian
// product or zipped. Parsed and expanded here; run by `qcesim sweep` (cli/sweep_command.cpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/profile.h"
#include "studies/scenario.h"

namespace qcesim::studies {

using model::Profile;

// Sizes checked from the definition before anything is allocated.
constexpr std::size_t kMaxSweepValues = 10000;  // per axis
constexpr std::size_t kMaxSweepPoints = 20000;  // points, and runs (points x variants)

struct SweepAxis {
  std::string path;                    // as for --set: workload.message_bytes, qce.clock...
  std::vector<nlohmann::json> values;  // numbers, strings or booleans
};

struct SweepPlot {
  std::string x, y;  // x: an axis path; y: a metric name (sweep_metric_names())
  bool log_x = false, log_y = false;
  std::string title;
};

struct SweepPoint {
  std::size_t index = 0;
  std::vector<nlohmann::json> values;  // one per axis
};

struct Sweep {
  std::string file;
  std::string name, about;
  std::string scenario_file;          // resolved against the sweep file's folder
  std::string scenario_text;          // its text, read once when the sweep is loaded
  nlohmann::json scenario_doc;        // that text parsed: every point's scenario is made from it
  std::string scenario_folder;        // where its profile is looked up, decided when it was read
  std::vector<std::string> variants;  // empty: all of the scenario's
  std::vector<std::string> sets;      // fixed assignments applied to every point
  bool timing_only = true;
  bool zip = false;  // false: cartesian product of the axes
  std::vector<SweepAxis> axes;
  SweepPlot plot;           // defaults for --plot
  nlohmann::json analysis;  // optional: {"break_even": {...}}
  nlohmann::json document;

  // Reads and checks the definition (its size is known before any point is made), adds the
  // command line's PATH=VALUE sets, then loads the scenario at every point and checks the
  // variants (all of the scenario's when the file names none: filled in), the run count and
  // the analysis, so that no run starts before every point is known to be good.
  static Sweep load(const std::string& file, const std::vector<std::string>& extra_sets = {});
  std::vector<SweepPoint> points() const;
  std::vector<std::string> sets_for(const SweepPoint& p) const;
  // The scenario at a point (the sweep's sets, then the point's values), from the text read once:
  // the file is not read again, so every point and every run sees the same scenario.
  Scenario scenario_at(const SweepPoint& p, bool check_variants = true) const;
  // The profile the scenario's own text names (none of the sweep's sets applied): an input of the
  // sweep, and part of its key. Throws ConfigError when the scenario does not parse.
  std::string scenario_profile() const;
  // The scenario with the sweep's sets and `more` (logca's other axes).
  Scenario scenario_with(const std::vector<std::string>& more, bool check_variants = true) const;
  // A digest of everything that decides the results: a journal from another definition is not
  // resumed.
  std::string key() const;

 private:
  static Sweep parse(const std::string& file);
  void check_points();
};

// The metrics a sweep row carries: the run's JSON keys, latency_us.* flattened, and per-request
// figures derived from them.
const std::vector<std::string>& sweep_metric_names();
// A metric or an axis in words with its unit, for charts ("CPU time per request [µs]"); an axis
// that is a profile parameter is named by its doc line and unit.
std::string sweep_metric_label(const std::string& metric);
std::string sweep_axis_label(const std::string& path, const Profile& profile);
// Picks the metrics out of a variant's result JSON (studies::VariantResult::to_json).
nlohmann::json sweep_metrics(const nlohmann::json& result);

// Where `variant`'s metric crosses `host`'s along the (single, numeric) axis: for each offload
// variant, the interpolated x (log-x), or a note that it does not cross in the swept range.
// Rows: {"point", "values", "variant", "metrics"} as in the sweep's JSON output.
nlohmann::json break_even(const Sweep& s, const std::vector<nlohmann::json>& rows);

}  // namespace qcesim::studies
