#include "studies/shard_files.h"

#include <spdlog/fmt/fmt.h>

#include "model/config_error.h"
#include "studies/replay.h"

namespace qcesim::studies {

using nlohmann::json;

void ShardSet::check_complete() const {
  if (seen.size() != count)
    throw model::ConfigError("--merge", "", fmt::format("all {} shard files", count), fmt::format("{}", seen.size()));
}

std::size_t check_shard_header(const json& doc, const std::string& file, const std::string& id_key, const std::string& expect,
                               const std::string& whose, ShardSet& shards) {
  const bool has_id = doc.is_object() && doc.contains(id_key);
  if (!has_id || !doc[id_key].is_string() || doc[id_key].get<std::string>() != expect)
    throw model::ConfigError(file, "/" + id_key, "a shard of " + whose + " (" + expect + ")",
                             has_id ? model::describe_json(doc[id_key]) : "none");
  for (const char* k : {"shard", "of"})
    if (!doc.contains(k) || !doc[k].is_number_unsigned())
      throw model::ConfigError(file, std::string("/") + k, "a whole number", doc.contains(k) ? model::describe_json(doc[k]) : "nothing");
  const auto of = doc["of"].get<std::size_t>(), index = doc["shard"].get<std::size_t>();
  if (of == 0) throw model::ConfigError(file, "/of", "a shard count of at least 1", "0");
  if (shards.count == 0) shards.count = of;
  if (of != shards.count || index >= of || !shards.seen.insert(index).second)
    throw model::ConfigError(file, "/shard", fmt::format("shard 0..{} of {}, each once", shards.count - 1, shards.count),
                             fmt::format("{} of {}", index, of));
  if (!doc.contains("results") || !doc["results"].is_object())
    throw model::ConfigError(file, "/results", "the shard's results", "none");
  return index;
}

std::string run_result_problem(const json& run, bool may_fail) {
  try {
    if (!run.is_object()) return "not an object";
    if (run.contains("error")) {
      if (!may_fail) return "a failed run";
      return run["error"].is_string() ? "" : "an error that is not a string";
    }
    (void)VariantResult::from_json(run);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace qcesim::studies
