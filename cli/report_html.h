// The HTML report (`qcesim report`): one self-contained page from a report document (the JSON
// report_command assembles and `--json` writes), readable offline and without scripts: inline
// CSS and SVG, no script at all, a Content-Security-Policy that forbids any load, <details> for
// what folds. Every number shown in the results carries its exact value (data-field,
// data-value) so a test can hold the page to the run's JSON. docs/report.md describes each
// section.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cli/svg_chart.h"

namespace qcesim::cli {

// A scenario's report: results, a request's timeline per variant, where the time goes, lock
// against no-lock, the narration, sensitivity.
std::string scenario_report_html(const nlohmann::json& doc);

// A sweep's report: its charts (each with its caption), the analysis (break-even points) and
// every point's row, as the sweep printed them.
struct SweepPage {
  nlohmann::json sweep;  // the sweep's document (PREFIX.json)
  std::string version;   // what wrote the page
  std::vector<std::pair<LineChart, std::string>> charts;
  std::string analysis, table;
};
std::string sweep_report_html(const SweepPage& page);

}  // namespace qcesim::cli
