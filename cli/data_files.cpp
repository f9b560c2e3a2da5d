#include "cli/data_files.h"

#include <filesystem>
#include <system_error>

namespace qcesim::cli {

namespace fs = std::filesystem;

std::string data_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    // The installed layout first: an install whose grandparent happens to hold a scenarios/
    // folder must still read its own.
    for (const fs::path& d : {exe.parent_path().parent_path() / "share" / "qcesim" / "scenarios",
                              exe.parent_path().parent_path().parent_path() / "scenarios"})
      if (fs::is_regular_file(d / "sm8650.json", ec)) return d.string();
  }
  // Neither layout: no folder. Not ./scenarios, which would read whatever the current folder
  // holds (root's, wherever root runs it) as qcesim's own data.
  return "";
}

std::string scenario_path(const std::string& arg) {
  std::error_code ec;
  if (arg.empty() || arg == "-" || arg.find('/') != std::string::npos || arg == "." || arg == ".." ||
      fs::exists(fs::symlink_status(arg, ec)))
    return arg;
  const fs::path dir = data_dir();
  if (dir.empty()) return arg;
  for (const std::string& name : {arg, arg + ".json"}) {
    const fs::path p = dir / name;
    if (p.extension() == ".json" && fs::is_regular_file(p, ec)) return p.string();
  }
  return arg;
}

}  // namespace qcesim::cli
