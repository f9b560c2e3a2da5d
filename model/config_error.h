// A bad input file: names the file, the JSON path, what was expected and what was found.
#pragma once

#include <nlohmann/json.hpp>
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

// What a JSON value is, for the "found" half of a message.
inline std::string describe_json(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::boolean: return j.get<bool>() ? "true" : "false";
    case nlohmann::json::value_t::string: return "the string \"" + j.get<std::string>() + "\"";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    default: return "the number " + j.dump();
  }
}

}  // namespace qcesim::model
