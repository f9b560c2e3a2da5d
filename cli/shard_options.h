// --shard I/N, --shard-out FILE and --merge FILE... for the commands whose runs split over a
// batch engine (run --uncertainty / --seeds, sensitivity): parsing, loading the shard documents,
// writing one.
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "studies/uncertainty.h"

namespace qcesim::cli {

struct ShardCli {
  std::string shard;               // "I/N"
  std::string shard_out;           // where shard I's document goes
  std::vector<std::string> merge;  // all N documents
};

// Checks the options (ConfigError: exit 2 before any run) and fills the studies' side; `doc` is
// where a shard's document lands.
void apply_shard_options(const ShardCli& cli, studies::ShardOptions& out, nlohmann::json& doc);
// After a shard run: writes its document to --shard-out and says so on `err`.
void write_shard(const ShardCli& cli, const studies::ShardOptions& s, const nlohmann::json& doc, std::ostream& err,
                 const char* what = "points");

}  // namespace qcesim::cli
