// `qcesim sweep FILE.json`: every point of a sweep for every chosen variant, each in its own
// forked process, up to --jobs at once, with progress on stderr; results as CSV and JSON, an
// optional SVG chart, and the sweep's analysis (break-even sizes, LogCA). Finished runs go to a
// journal as they end, so an interrupted sweep resumes where it stopped. A sweep also splits into
// shards for a batch engine (--shard, --merge), merged into the same outputs.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "cli/shard_options.h"

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
  // --shard I/N --shard-out FILE: run the points p with p % N == I into FILE (resumable through
  // FILE.journal.jsonl); --merge FILE...: the outputs of the whole sweep from all N files.
  ShardCli shards;
  // --partial with --merge: merge what the shard files hold although runs are missing; every
  // output (table, CSV, JSON, chart) says which. Without it a missing run is an error.
  bool partial = false;
  // --report FILE: the sweep as one HTML page (charts of latency and CPU time per request, the
  // break-even points, every point's row); `version` names the program in it.
  std::string report, version;
  bool report_only = false;  // `qcesim report SWEEP`: the page only (no table, CSV or JSON)
};

int run_sweep(const SweepOptions& opt, std::ostream& out, std::ostream& err);

}  // namespace qcesim::cli
