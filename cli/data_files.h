// Where qcesim finds the scenarios and profiles it ships, and scenario names: `qcesim run
// sm8650-seed` from any folder means the installed (or built) scenarios/sm8650-seed.json.
#pragma once

#include <string>

namespace qcesim::cli {

// The folder of scenarios and profiles that came with this qcesim, found from the binary's own
// path: PREFIX/share/qcesim/scenarios for an installed one (bin/qcesim), else the source tree's
// scenarios/ for a build (build/<preset>/qcesim), else "" (never the current folder's: root
// running qcesim from a folder others write must not take their files for qcesim's own).
std::string data_dir();

// A scenario or sweep argument: an existing path as given; a bare name (no '/', not a file
// here) that names a file qcesim ships, NAME or NAME.json in data_dir(), becomes that file's
// path. Anything else is returned unchanged, so the loader's error names what was given.
std::string scenario_path(const std::string& arg);

}  // namespace qcesim::cli
