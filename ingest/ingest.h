// `qcesim ingest`: a board kit archive becomes a profile, scenarios with the board's measured
// blocks, a per-function cost table and a report. The profile is a copy of the profile whose
// SoC the board's device tree names (else the closest one, said so), with each value the board
// measured or states replaced and its provenance saying where in the archive it came from; the
// scenarios are `qcesim validate`'s input; the report lists what the archive lacks and what each
// missing piece would settle.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "ingest/board_archive.h"

namespace qcesim::ingest {

struct IngestResult {
  std::string board;                                       // the name every output starts with
  std::string base_profile;                                // the profile file it started from
  std::vector<std::pair<std::string, std::string>> files;  // file name (no folder) -> text
  std::string report;                                      // Markdown (also one of the files)
  std::vector<std::string> scenarios;                      // the scenario files among `files`
};

// The profile files a board can start from: every *.json with a "parameters" object in `dir`,
// by path, each read and parsed once.
struct ProfileFile {
  std::string path;
  nlohmann::json json;
};
std::vector<ProfileFile> read_profiles(const std::string& dir);

// `board` (a name by model::valid_name's rule) names the outputs; `profiles_dir` holds the
// profiles (scenarios/). Throws model::ConfigError when nothing can be made.
IngestResult ingest_board(const BoardArchive& a, const std::string& board, const std::string& profiles_dir);

}  // namespace qcesim::ingest
