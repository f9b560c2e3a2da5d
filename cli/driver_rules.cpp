#include "cli/driver_rules.h"

#include "model/config_error.h"

namespace qcesim::cli {

model::Profile load_platform(const std::string& file) {
  try {
    return model::Profile::load(file);
  } catch (const model::ConfigError& e) {
    throw model::ConfigError("--platform " + e.file, e.path, e.expected, e.found);
  }
}

std::string select_driver_rules(const model::Profile* platform, int era, qce::QceRules& rules) {
  rules = platform ? qce::qce_rules(*platform) : qce::QceRules{};
  if (era < 0) return "";
  rules.era = era;
  if (!platform) rules.aes_sw_max_len = 512;
  if (const std::string e = qce::check_rules(rules); !e.empty())
    return "--era: expected " + e + ", found " + std::to_string(era);
  return "";
}

}  // namespace qcesim::cli
