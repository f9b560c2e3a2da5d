// The HTML report (`qcesim report`): one self-contained page from a report document (the JSON
// report_command assembles and `--json` writes), readable offline and without scripts: inline
// CSS and SVG, no script at all, a Content-Security-Policy that forbids any load, <details> for
// what folds. Every number shown in the results carries its exact value (data-field,
// data-value) so a test can hold the page to the run's JSON. docs/report.md describes each
// section.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace qcesim::cli {

// A scenario's report: results, a request's timeline per variant, where the time goes, lock
// against no-lock, the narration, sensitivity.
std::string scenario_report_html(const nlohmann::json& doc);

// A sweep's report: its table, a chart per metric, break-even points.
std::string sweep_report_html(const nlohmann::json& doc);

}  // namespace qcesim::cli
