#include "cli/shard_options.h"

#include <ostream>
#include <spdlog/fmt/fmt.h>

#include "cli/numbers.h"
#include "cli/output_file.h"
#include "model/config_error.h"

namespace qcesim::cli {

void apply_shard_options(const ShardCli& cli, studies::ShardOptions& out, nlohmann::json& doc) {
  if (!cli.shard.empty() && !cli.merge.empty())
    throw model::ConfigError("--merge", "", "either --shard (run one shard) or --merge (analyse all)", "both");
  if (!cli.shard.empty()) {
    // Exactly one slash between two whole numbers: "1/2/3" or "1/2x" is not a shard.
    const std::size_t slash = cli.shard.find('/');
    std::uint64_t i = 0, n = 0;
    const bool ok = slash != std::string::npos && cli.shard.find('/', slash + 1) == std::string::npos &&
                    parse_whole(cli.shard.substr(0, slash), 0, 99999, i) &&
                    parse_whole(cli.shard.substr(slash + 1), 1, 100000, n);
    if (!ok || n == 0 || i >= n || n > 100000)
      throw model::ConfigError("--shard", "", "I/N with 0 <= I < N <= 100000 (e.g. 0/4)",
                               model::quoted_input(cli.shard));
    if (cli.shard_out.empty()) throw model::ConfigError("--shard-out", "", "a file for the shard's results", "nothing");
    check_output("--shard-out", cli.shard_out);
    out.index = i;
    out.count = n;
    out.written = &doc;
  } else if (!cli.shard_out.empty()) {
    throw model::ConfigError("--shard-out", "", "--shard I/N with it", "no --shard");
  }
  for (const std::string& f : cli.merge) {
    out.merge.push_back(model::read_json_file(f, "shard file", model::InputKind::regular));
    out.merge_files.push_back(f);
  }
}

void write_shard(const ShardCli& cli, const studies::ShardOptions& s, const nlohmann::json& doc, std::ostream& err,
                 const char* what) {
  write_output("--shard-out", cli.shard_out, model::json_output(doc) + "\n");
  err << fmt::format(
      "wrote shard {}/{} ({} {}) to {}; the same command with --merge and all {} shard files gives "
      "the result\n",
      s.index, s.count, doc.contains("results") ? doc["results"].size() : 0, what, cli.shard_out, s.count);
}

}  // namespace qcesim::cli
