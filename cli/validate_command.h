// `qcesim validate [DIR]`: every scenario in DIR (default scenarios/) whose variants carry
// measured values, each with --uncertainty samples, in one table: measured, predicted (nominal),
// the 90 % interval, the error, and whether the measurement set any profile parameter (in
// sample: a parameter's provenance names the scenario) or not (out of sample).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "cli/shard_options.h"

namespace qcesim::cli {

struct ValidateOptions {
  std::string dir = "scenarios";
  std::size_t samples = 50;
  std::uint64_t messages = 2000;  // per run, at most the scenario's own
  std::uint64_t seed = 1;
  unsigned jobs = 0;
  std::string json_file;
  std::vector<std::string> socs;  // --soc: only these SoCs' rows (profile names); all when empty
};

int run_validate(const ValidateOptions& opt, std::ostream& out, std::ostream& err);

// `qcesim sensitivity SCENARIO`: Morris screening of the profile's varying parameters
// (studies/sensitivity.h): the top parameters per output and variant.
struct SensitivityOptions {
  std::string scenario;
  std::vector<std::string> sets, variants;
  std::size_t trajectories = 10, top = 5;
  std::uint64_t seed = 1;
  unsigned jobs = 0;
  std::string json_file;
  std::string compare;  // --compare NAME: the effects on each variant's difference to NAME
  ShardCli shards;
};

int run_sensitivity(const SensitivityOptions& opt, std::ostream& out, std::ostream& err);

}  // namespace qcesim::cli
