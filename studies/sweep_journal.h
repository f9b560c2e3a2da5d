// A sweep's journal: its first line names the definition it belongs to (Sweep::key), then one
// line per finished run, written as the run ends, so an interrupted sweep resumes where it
// stopped. A line cut short by an interruption is ignored (that run is redone). And a sweep's
// shards (--shard I/N: the points p with p % N == I) as documents a batch engine's tasks write,
// merged into the finished runs of the whole sweep.
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/path_walk.h"
#include "studies/sweep.h"

namespace qcesim::studies {

// "point/variant": how the journal and the results name one run.
std::string sweep_job_id(std::size_t point, const std::string& variant);

class SweepJournal {
 public:
  // Opens (and with `fresh` first discards) the journal at `file`; throws ConfigError when it
  // belongs to another definition or profile.
  SweepJournal(const std::string& file, const studies::Sweep& s, bool fresh);
  SweepJournal(const SweepJournal&) = delete;
  SweepJournal& operator=(const SweepJournal&) = delete;

  // The finished runs, by sweep_job_id.
  const std::map<std::string, nlohmann::json>& done() const { return m_done; }
  bool has(std::size_t point, const std::string& variant) const {
    return m_done.count(sweep_job_id(point, variant)) != 0;
  }
  void record(std::size_t point, const std::string& variant, const nlohmann::json& result);
  // Every run finished: the journal is no longer needed.
  void remove();
  const std::string& file() const { return m_file; }

 private:
  void read(const std::string& text, const std::string& key, const studies::Sweep& s);
  void append(const std::string& line);

  std::string m_file;
  std::map<std::string, nlohmann::json> m_done;
  model::Fd m_folder;  // the folder the journal is in, held (O_PATH): remove() unlinks there
  std::string m_name;  // the journal's name in it
  model::Fd m_fd;
};

// Shard `index` of `count`'s document: the definition's key, which shard, and its finished runs.
nlohmann::json sweep_shard_document(const Sweep& s, std::size_t index, std::size_t count,
                                    const std::map<std::string, nlohmann::json>& done);
// The finished runs of every shard, checked: each document of this definition (its key), shards
// 0..N-1 of one N each once, each run a point of its shard and one of the sweep's variants.
// ConfigError naming the file and JSON path otherwise.
std::map<std::string, nlohmann::json> merge_sweep_shards(const Sweep& s, const std::vector<nlohmann::json>& docs,
                                                         const std::vector<std::string>& files);

}  // namespace qcesim::studies
