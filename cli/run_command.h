// `qcesim run SCENARIO`: each variant in its own forked process (SystemC elaborates once per
// process), up to --jobs at once; a table shaped like the measurement with simulated, measured
// and error % per cell; optional JSON results.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "studies/processes.h"
#include "studies/replay.h"
#include "cli/shard_options.h"

namespace qcesim::cli {

struct RunOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::vector<std::string> variants;  // empty: all
  unsigned jobs = 0;                  // 0: number of cores
  std::string json_file;
  bool timing_only = false;
  unsigned top = 8;                                // functions per variant in the CPU profile summary
  std::string trace_file;                          // Chrome-trace/Perfetto JSON (one per variant when several)
  std::int64_t trace_first = 0, trace_last = 200;  // --trace-requests A:B
  std::string profile_file;                        // folded stacks (one per variant when several)
  std::size_t uncertainty = 0;                     // --uncertainty N: samples of the profile's intervals (0: none)
  std::uint64_t seed = 1;                          // --seed: the samples' generator
  std::size_t seeds = 0;  // --seeds N: runs with service-time variation under seeds 1..N (0: none)
  ShardCli shards;        // --shard I/N, --shard-out, --merge (with --uncertainty or --seeds)
  std::string compare;    // --compare NAME: every variant against this one, by mechanism
};

// FILE for one variant; with several, the variant's name goes before the extension
// (trace.json -> trace.sha256-qce-lock.json).
std::string per_variant_file(const std::string& file, const std::string& variant, bool several);
// Parses "A:B" (requests A to B-1; either side may be empty: 0 and no end).
bool parse_request_range(const std::string& text, std::int64_t& first, std::int64_t& last);
// Folded stacks for flamegraph.pl and speedscope: "context;function nanoseconds" per line.
std::string folded_stacks(const studies::VariantResult& r);
std::string folded_stacks(const std::vector<studies::FunctionTime>& profile);

int run_scenario(const RunOptions& opt, std::ostream& out, std::ostream& err);

// The variants --variant names, each once (a ConfigError naming --variant otherwise), or all.
std::vector<const studies::Variant*> chosen_variants(const studies::Scenario& sc,
                                                     const std::vector<std::string>& names);

std::string format_table(const std::vector<studies::VariantResult>& results);

}  // namespace qcesim::cli
