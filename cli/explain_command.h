// `qcesim explain SCENARIO [--variant V] [--request N]`: replays the scenario's variant up to the
// request after N with the timeline recorder on, and narrates request N step by step. Without
// --request, a probe replay first finds the steady state (studies::steady_request).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace qcesim::cli {

struct ExplainOptions {
  std::string scenario;
  std::string variant;        // empty: the scenario's first QCE variant (else its first)
  std::int64_t request = -1;  // -1: the first request of the replay's steady state
  std::vector<std::string> sets;
  bool timing_only = false;
};

int run_explain(const ExplainOptions& opt, std::ostream& out, std::ostream& err);

}  // namespace qcesim::cli
