// A bad input file: names the file, the JSON path, what was expected and what was found.
#pragma once

#include <stdexcept>
#include <string>

namespace qcesim::model {

class ConfigError : public std::runtime_error {
 public:
  ConfigError(const std::string& in_file, const std::string& at_path, const std::string& expected,
              const std::string& found)
      : std::runtime_error(in_file + ": at " + (at_path.empty() ? "/" : at_path) + ": expected " + expected +
                           ", found " + found),
        file(in_file), path(at_path) {}
  std::string file, path;
};

}  // namespace qcesim::model
