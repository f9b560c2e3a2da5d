// The shard documents a batch engine's tasks write (run --uncertainty / --seeds, sensitivity,
// sweep): what every merge checks of each before using its results.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace qcesim::studies {

// The shards seen so far in one merge: their count (from the first) and their indices.
struct ShardSet {
  std::size_t count = 0;
  std::set<std::size_t> seen;
  // After the last file: every shard 0..count-1 was there (ConfigError on --merge otherwise).
  void check_complete() const;
};

// Checks one document's header: its identity (`id_key`: "fingerprint" or "key") is `expect`
// (`whose` says what that identifies, for the message), "shard" and "of" are whole numbers, the
// same "of" as the other files, an index below it and not seen before, and "results" is an
// object. Returns the shard's index; ConfigError naming the file and JSON path otherwise.
std::size_t check_shard_header(const nlohmann::json& doc, const std::string& file, const std::string& id_key,
                               const std::string& expect, const std::string& whose, ShardSet& shards);

// What is wrong with one run's results in a shard file, "" when they read back as qcesim writes
// them (VariantResult::to_json) with numbers a run can produce (no negative time, at least one
// request, issued = completed + failed + fallback, cpu_s the sum of its contexts, latency
// quantiles in order) and, when given, the expected variant's name; or, with `may_fail`, an
// {"error": text} of a failed run.
std::string run_result_problem(const nlohmann::json& run, bool may_fail, const std::string& expected_name = "");

}  // namespace qcesim::studies
