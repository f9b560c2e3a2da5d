// `qcesim report SCENARIO -o report.html`: one self-contained HTML page for a class or a design
// review (cli/report_html.h): the results against the measurement (with 90 % intervals under
// --uncertainty), a steady-state request of each variant as a swimlane timeline, where each
// microsecond goes (by context, mechanism and function, with the flame graph), what locking adds
// by mechanism, explain's narration, and (under --sensitivity) the parameters the result depends
// on most with their provenance. A sweep file gives its charts and break-even points instead.
// Each variant's run and its traced request run in their own processes, as `run` and `explain`.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace qcesim::cli {

struct ReportOptions {
  std::string input;      // a scenario or a sweep file
  std::string out;        // the HTML file
  std::string json_file;  // the report's document
  std::vector<std::string> sets, variants;
  std::int64_t request = -1;  // the traced request (-1: a steady-state one)
  std::string compare;        // the variant the others are compared with ("": found)
  std::size_t uncertainty = 0, sensitivity = 0;
  std::uint64_t seed = 1;
  unsigned jobs = 0;
  bool timing_only = false;
  std::string version;  // "qcesim X.Y.Z (REVISION)"
};

int run_report(const ReportOptions& opt, std::ostream& out, std::ostream& err);

}  // namespace qcesim::cli
