// A sweep's journal: its first line names the definition it belongs to (Sweep::key), then one
// line per finished run, written as the run ends, so an interrupted sweep resumes where it
// stopped. A line cut short by an interruption is ignored (that run is redone).
#pragma once

#include <cstddef>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "studies/sweep.h"

namespace qcesim::studies {

// "point/variant": how the journal and the results name one run.
std::string sweep_job_id(std::size_t point, const std::string& variant);

class SweepJournal {
 public:
  // Opens (and with `fresh` first discards) the journal at `file`; throws ConfigError when it
  // belongs to another definition or profile.
  SweepJournal(const std::string& file, const studies::Sweep& s, bool fresh);

  // The finished runs, by sweep_job_id.
  const std::map<std::string, nlohmann::json>& done() const { return m_done; }
  bool has(std::size_t point, const std::string& variant) const { return m_done.count(sweep_job_id(point, variant)) != 0; }
  void record(std::size_t point, const std::string& variant, const nlohmann::json& result);
  // Every run finished: the journal is no longer needed.
  void remove();
  const std::string& file() const { return m_file; }

 private:
  void read(const std::string& key);

  std::string m_file;
  std::map<std::string, nlohmann::json> m_done;
  std::ofstream m_out;
};

}  // namespace qcesim::studies
