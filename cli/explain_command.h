// `qcesim explain SCENARIO [--variant V] [--request N]`: replays the scenario's variant up to the
// request after N with the timeline recorder on, and narrates request N step by step.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace qcesim::cli {

struct ExplainOptions {
  std::string scenario;
  std::string variant;  // empty: the scenario's first QCE variant (else its first)
  std::int64_t request = 10;
  std::vector<std::string> sets;
  bool timing_only = false;
};

int run_explain(const ExplainOptions& opt, std::ostream& out, std::ostream& err);

}  // namespace qcesim::cli
