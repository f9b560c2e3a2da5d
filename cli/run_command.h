// `qcesim run SCENARIO`: each variant in its own forked process (SystemC elaborates once per
// process), up to --jobs at once; a table shaped like the measurement with simulated, measured
// and error % per cell; optional JSON results.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "model/replay.h"

namespace qcesim::cli {

struct RunOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::vector<std::string> variants;  // empty: all
  unsigned jobs = 0;                  // 0: number of cores
  std::string json_file;
  bool timing_only = false;
  unsigned top = 8;  // functions per variant in the CPU profile summary
};

int run_scenario(const RunOptions& opt, std::ostream& out, std::ostream& err);

// Runs fn(i) for i in [0, n) each in a forked child, at most `jobs` at once; each child's
// stdout-free result is the JSON it returns. Errors come back as {"error": "..."}.
std::vector<nlohmann::json> fork_each(std::size_t n, unsigned jobs, const std::function<nlohmann::json(std::size_t)>& fn,
                                      const std::function<void(std::size_t, const nlohmann::json&)>& on_done);

std::string format_table(const std::vector<model::VariantResult>& results);

}  // namespace qcesim::cli
