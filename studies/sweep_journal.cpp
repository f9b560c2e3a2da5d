#include "studies/sweep_journal.h"

#include <filesystem>
#include <spdlog/fmt/fmt.h>
#include <stdexcept>

#include "model/config_error.h"

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

}  // namespace qcesim::studies
