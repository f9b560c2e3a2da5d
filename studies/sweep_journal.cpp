#include "studies/sweep_journal.h"

#include <algorithm>
#include <filesystem>
#include <spdlog/fmt/fmt.h>
#include <stdexcept>

#include "model/config_error.h"
#include "studies/shard_files.h"

namespace qcesim::studies {

using nlohmann::json;

std::string sweep_job_id(std::size_t point, const std::string& variant) { return fmt::format("{}/{}", point, variant); }

SweepJournal::SweepJournal(const std::string& file, const studies::Sweep& s, bool fresh) : m_file(file) {
  const std::string key = s.key();
  if (fresh) std::filesystem::remove(file);
  if (std::filesystem::exists(file)) read(key);
  if (!std::filesystem::exists(file)) {
    std::ofstream j(file);
    if (!j) throw std::runtime_error("cannot write " + file);
    j << json{{"key", key}, {"sweep", s.name}}.dump() << "\n";
  }
  m_out.open(file, std::ios::app);
}

void SweepJournal::read(const std::string& key) {
  std::ifstream in(m_file);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    json j;
    try {
      j = json::parse(line);
    } catch (const json::exception&) {
      continue;
    }
    if (first) {
      first = false;
      if (!j.is_object() || j.value("key", "") != key)
        throw model::ConfigError(m_file, "/key", "the journal of this sweep definition (" + key + ")",
                                 "one from a different definition or profile: rerun with --fresh to discard it");
      continue;
    }
    if (j.is_object() && j.contains("point") && j["point"].is_number_unsigned() && j.contains("variant") &&
        j["variant"].is_string() && j.contains("result") && j["result"].is_object())
      m_done[sweep_job_id(j["point"], j["variant"])] = j["result"];
  }
}

void SweepJournal::record(std::size_t point, const std::string& variant, const json& result) {
  m_done[sweep_job_id(point, variant)] = result;
  m_out << json{{"point", point}, {"variant", variant}, {"result", result}}.dump() << "\n";
  m_out.flush();
}

void SweepJournal::remove() {
  m_out.close();
  std::filesystem::remove(m_file);
}

json sweep_shard_document(const Sweep& s, std::size_t index, std::size_t count,
                          const std::map<std::string, json>& done) {
  json doc = {{"key", s.key()}, {"kind", "sweep"}, {"sweep", s.name},
              {"shard", index}, {"of", count},     {"results", json::object()}};
  for (const auto& [id, result] : done) doc["results"][id] = result;
  return doc;
}

std::map<std::string, json> merge_sweep_shards(const Sweep& s, const std::vector<json>& docs,
                                               const std::vector<std::string>& files) {
  const std::string key = s.key();
  const std::size_t points = s.points().size();
  std::map<std::string, json> done;
  ShardSet shards;
  for (std::size_t f = 0; f < docs.size(); ++f) {
    const std::string& file = files[f];
    const json& doc = docs[f];
    const std::size_t index =
        check_shard_header(doc, file, "key", key, "this sweep definition (same file, --set and profile)", shards);
    const std::size_t count = shards.count;
    for (const auto& [id, result] : doc["results"].items()) {
      // "point/variant", a point of this shard and a variant of the sweep, and a run's results.
      const std::size_t slash = id.find('/');
      std::size_t p = points;
      if (slash != std::string::npos && slash > 0 && id.find_first_not_of("0123456789") == slash) {
        try {
          p = std::stoul(id.substr(0, slash));
        } catch (const std::exception&) {
          p = points;
        }
      }
      const std::string variant = slash == std::string::npos ? "" : id.substr(slash + 1);
      const bool known = std::find(s.variants.begin(), s.variants.end(), variant) != s.variants.end();
      if (p >= points || p % count != index || !known)
        throw model::ConfigError(
            file, "/results",
            fmt::format("runs named point/variant, a point of shard {} and a variant of the sweep", index),
            model::quoted_input(id));
      // A finished run's results as qcesim writes them (a journal holds no failed runs).
      if (const std::string why = run_result_problem(result, false, variant); !why.empty())
        throw model::ConfigError(file, "/results", "the run's results as qcesim writes them",
                                 model::quoted_input(id) + ": " + model::quoted_input(why));
      done[id] = result;
    }
  }
  shards.check_complete();
  return done;
}

}  // namespace qcesim::studies
