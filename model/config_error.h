// A bad input file: names the file, the JSON path, what was expected and what was found.
#pragma once

#include <stdexcept>
#include <string>

namespace qcesim::model {

class ConfigError : public std::runtime_error {
 public:
  ConfigError(const std::string& file, const std::string& path, const std::string& expected, const std::string& found)
      : std::runtime_error(file + ": at " + (path.empty() ? "/" : path) + ": expected " + expected + ", found " + found),
        file(file), path(path) {}
  std::string file, path;
};

}  // namespace qcesim::model
