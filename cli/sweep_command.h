// `qcesim sweep FILE.json`: every point of a sweep for every chosen variant, each in its own
// forked process, up to --jobs at once, with progress on stderr; results as CSV and JSON, an
// optional SVG chart, and the sweep's analysis (break-even sizes, LogCA). Finished runs go to a
// journal as they end, so an interrupted sweep resumes where it stopped.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace qcesim::cli {

struct SweepOptions {
  std::string file;
  std::string out;  // prefix of PREFIX.csv, PREFIX.json (default: the sweep's name)
  unsigned jobs = 0;
  bool fresh = false;  // discard a journal of an earlier run
  std::vector<std::string> sets;
  std::string plot;  // SVG file
  std::string x, y;
  bool log_x = false, log_y = false;
};

int run_sweep(const SweepOptions& opt, std::ostream& out, std::ostream& err);

}  // namespace qcesim::cli
