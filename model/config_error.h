// A bad input file: names the file, the JSON path, what was expected and what was found.
#pragma once

#include <fstream>
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
    case nlohmann::json::value_t::array: return j.empty() ? "an empty array" : "an array of " + std::to_string(j.size());
    default: return "the number " + j.dump();
  }
}

// A JSON scalar as a --set value or a label: strings bare, the rest as JSON.
inline std::string json_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// Reads a JSON file; a missing file or a syntax error is a ConfigError naming the file.
// `what` says what the file should be ("a scenario file").
inline nlohmann::json read_json_file(const std::string& file, const std::string& what) {
  std::ifstream in(file);
  if (!in) throw ConfigError(file, "", "a readable " + what, "none (cannot open it)");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError(file, "", "valid JSON", std::string("a syntax error (") + e.what() + ")");
  }
}

}  // namespace qcesim::model
