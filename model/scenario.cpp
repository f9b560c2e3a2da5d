#include "model/scenario.h"

#include <spdlog/fmt/fmt.h>

#include <filesystem>
#include <fstream>

#include "spdlog/fmt/fmt.h"

namespace qcesim::model {

using nlohmann::json;

namespace {

const auto& describe = describe_json;

const std::vector<std::string> kTopKeys = {"scenario", "about", "profile", "workload", "variants", "overrides"};

template <typename T>
T get_uint(const json& obj, const char* key, T dflt, T lo, T hi, const std::string& file, const std::string& path) {
  if (!obj.contains(key)) return dflt;
  const json& v = obj[key];
  if (!v.is_number_integer() || v.get<long long>() < static_cast<long long>(lo) ||
      v.get<long long>() > static_cast<long long>(hi))
    throw ConfigError(file, path + "/" + key, fmt::format("an integer in [{}, {}]", lo, hi), describe(v));
  return static_cast<T>(v.get<long long>());
}

void apply_overrides(Profile& p, const json& ov, const std::string& file, const std::string& path) {
  if (!ov.is_object()) throw ConfigError(file, path, "an object of parameter: value", describe(ov));
  for (const auto& [name, v] : ov.items()) {
    const std::string at = path + "/" + name;
    if (v.is_number()) {
      p.set(name, v.get<double>(), file, at);
    } else if (v.is_string()) {
      p.set_text(name, v.get<std::string>(), file, at);
    } else {
      throw ConfigError(file, at, "a number or a word", describe(v));
    }
  }
}

}  // namespace

void apply_set(json& doc, const std::string& assignment, const std::string& file) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError("--set", assignment, "PATH=VALUE", "\"" + assignment + "\"");
  const std::string path = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  json value;
  try {
    value = json::parse(text);
  } catch (const json::parse_error&) {
    value = text;
  }
  std::vector<std::string> keys;
  for (std::size_t b = 0;;) {
    const auto d = path.find('.', b);
    keys.push_back(path.substr(b, d == std::string::npos ? std::string::npos : d - b));
    if (d == std::string::npos) break;
    b = d + 1;
  }
  // A path that does not start at a scenario key is a profile parameter: overrides.<name>.
  if (std::find(kTopKeys.begin(), kTopKeys.end(), keys[0]) == kTopKeys.end()) keys = {"overrides", path};
  json* node = &doc;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::string& k = keys[i];
    if (k == "overrides" && i + 1 < keys.size()) {
      // The rest is one parameter name.
      std::string rest;
      for (std::size_t j = i + 1; j < keys.size(); ++j) rest += (rest.empty() ? "" : ".") + keys[j];
      (*node)["overrides"][rest] = value;
      return;
    }
    if (node->is_array()) {
      std::size_t idx = 0;
      try {
        idx = std::stoul(k);
      } catch (...) {
        throw ConfigError(file, "--set " + path, "an index into the array", "\"" + k + "\"");
      }
      if (idx >= node->size())
        throw ConfigError(file, "--set " + path, fmt::format("an index below {}", node->size()), k);
      node = &(*node)[idx];
    } else {
      node = &(*node)[k];
    }
  }
  *node = value;
}

Scenario Scenario::load(const std::string& file, const std::vector<std::string>& sets) {
  json j = read_json_file(file, "scenario file");
  if (!j.is_object()) throw ConfigError(file, "", "an object", describe(j));
  for (const auto& s : sets) apply_set(j, s, file);
  Scenario sc;
  sc.file = file;
  sc.document = j;
  for (const auto& [k, v] : j.items()) {
    (void)v;
    if (std::find(kTopKeys.begin(), kTopKeys.end(), k) == kTopKeys.end())
      throw ConfigError(file, "/" + k, "one of scenario, about, profile, workload, variants, overrides", "\"" + k + "\"");
  }
  if (!j.contains("scenario") || !j["scenario"].is_string())
    throw ConfigError(file, "/scenario", "the scenario's name as a string", j.contains("scenario") ? describe(j["scenario"]) : "nothing");
  sc.name = j["scenario"];
  if (!j.contains("profile") || !j["profile"].is_string())
    throw ConfigError(file, "/profile", "the profile file as a string", j.contains("profile") ? describe(j["profile"]) : "nothing");
  sc.profile_file = (std::filesystem::path(file).parent_path() / j["profile"].get<std::string>()).string();

  const json w = j.value("workload", json::object());
  if (!w.is_object()) throw ConfigError(file, "/workload", "an object", describe(w));
  for (const auto& [k, v] : w.items()) {
    (void)v;
    if (k != "messages" && k != "message_bytes" && k != "algorithm" && k != "queue_depth" && k != "tz")
      throw ConfigError(file, "/workload/" + k, "one of messages, message_bytes, algorithm, queue_depth, tz", "\"" + k + "\"");
  }
  if (w.contains("tz")) {
    const json& t = w["tz"];
    if (!t.is_object()) throw ConfigError(file, "/workload/tz", "an object {rate_per_s, message_bytes, timeout_us}", describe(t));
    for (const auto& [k, v] : t.items()) {
      (void)v;
      if (k != "rate_per_s" && k != "message_bytes" && k != "timeout_us")
        throw ConfigError(file, "/workload/tz/" + k, "one of rate_per_s, message_bytes, timeout_us", "\"" + k + "\"");
    }
    auto number = [&](const char* k, double def, double lo, double hi) {
      if (!t.contains(k)) return def;
      if (!t[k].is_number() || t[k].get<double>() < lo || t[k].get<double>() > hi)
        throw ConfigError(file, std::string("/workload/tz/") + k, fmt::format("a number in [{}, {}]", lo, hi), describe(t[k]));
      return t[k].get<double>();
    };
    sc.workload.tz.rate_per_s = number("rate_per_s", 0, 0, 1e6);
    sc.workload.tz.message_bytes = get_uint<std::uint32_t>(t, "message_bytes", 4096, 1, 32760, file, "/workload/tz");
    sc.workload.tz.timeout_us = number("timeout_us", 2000, 10, 1e6);
  }
  sc.workload.messages = get_uint<std::uint64_t>(w, "messages", 50000, 1, 100000000000ull, file, "/workload");
  sc.workload.message_bytes = get_uint<std::uint32_t>(w, "message_bytes", 4096, 1, 64u << 20, file, "/workload");
  sc.workload.queue_depth = get_uint<unsigned>(w, "queue_depth", 1, 1, 1024, file, "/workload");
  if (w.contains("algorithm")) {
    const json& a = w["algorithm"];
    if (a != "sha256" && a != "sha1") throw ConfigError(file, "/workload/algorithm", "\"sha256\" or \"sha1\"", describe(a));
    sc.workload.alg = a == "sha1" ? HashAlg::sha1 : HashAlg::sha256;
  }

  if (!j.contains("variants") || !j["variants"].is_array() || j["variants"].empty())
    throw ConfigError(file, "/variants", "a non-empty array of variants", j.contains("variants") ? describe(j["variants"]) : "nothing");
  for (std::size_t i = 0; i < j["variants"].size(); ++i) {
    const json& vj = j["variants"][i];
    const std::string path = "/variants/" + std::to_string(i);
    if (!vj.is_object()) throw ConfigError(file, path, "an object", describe(vj));
    Variant v;
    for (const auto& [k, val] : vj.items()) {
      (void)val;
      if (k != "name" && k != "engine" && k != "reg_io" && k != "bam_lock" && k != "ce_interleave" &&
          k != "status_from_dump" && k != "completion" && k != "rx_interrupt" && k != "poll_delay_us" &&
          k != "overrides" && k != "measured" && k != "about")
        throw ConfigError(file, path + "/" + k,
                          "one of name, engine, reg_io, bam_lock, ce_interleave, status_from_dump, completion, "
                          "rx_interrupt, poll_delay_us, overrides, measured, about",
                          "\"" + k + "\"");
    }
    if (!vj.contains("name") || !vj["name"].is_string())
      throw ConfigError(file, path + "/name", "a string", vj.contains("name") ? describe(vj["name"]) : "nothing");
    v.name = vj["name"];
    for (const auto& other : sc.variants)
      if (other.name == v.name) throw ConfigError(file, path + "/name", "a name no other variant has", "\"" + v.name + "\"");
    const std::string engine = vj.value("engine", "qce");
    if (engine != "qce" && engine != "ce") throw ConfigError(file, path + "/engine", "\"qce\" or \"ce\"", describe(vj["engine"]));
    v.engine = engine == "ce" ? VariantEngine::ce : VariantEngine::qce;
    const std::string reg_io = vj.value("reg_io", "mmio");
    if (reg_io != "mmio" && reg_io != "bam") throw ConfigError(file, path + "/reg_io", "\"mmio\" or \"bam\"", describe(vj["reg_io"]));
    v.reg_io = reg_io == "bam" ? qce::RegIo::bam : qce::RegIo::mmio;
    if (vj.contains("completion")) {
      const json& c = vj["completion"];
      if (c != "irq" && c != "poll") throw ConfigError(file, path + "/completion", "\"irq\" or \"poll\"", describe(c));
      v.poll = c == "poll";
    }
    if (vj.contains("rx_interrupt")) {
      if (!vj["rx_interrupt"].is_boolean())
        throw ConfigError(file, path + "/rx_interrupt", "true or false", describe(vj["rx_interrupt"]));
      v.rx_interrupt = vj["rx_interrupt"];
    }
    if (vj.contains("poll_delay_us")) {
      const json& d = vj["poll_delay_us"];
      if (!d.is_number() || d.get<double>() < 0.01 || d.get<double>() > 1000)
        throw ConfigError(file, path + "/poll_delay_us", "a number of microseconds in [0.01, 1000]", describe(d));
      v.poll_delay_us = d;
    }
    if (vj.contains("status_from_dump")) {
      if (!vj["status_from_dump"].is_boolean())
        throw ConfigError(file, path + "/status_from_dump", "true or false", describe(vj["status_from_dump"]));
      v.status_from_dump = vj["status_from_dump"];
    }
    if (vj.contains("bam_lock")) {
      if (!vj["bam_lock"].is_boolean()) throw ConfigError(file, path + "/bam_lock", "true or false", describe(vj["bam_lock"]));
      v.bam_lock = vj["bam_lock"];
    } else {
      v.bam_lock = v.reg_io == qce::RegIo::bam;  // the series always locks
    }
    if (v.bam_lock && v.reg_io != qce::RegIo::bam)
      throw ConfigError(file, path + "/bam_lock", "false with reg_io \"mmio\" (locks are command descriptors)", "true");
    v.ce_interleave = get_uint<unsigned>(vj, "ce_interleave", 1, 1, 2, file, path);
    if (vj.contains("overrides")) v.overrides = vj["overrides"];
    if (vj.contains("measured")) {
      if (!vj["measured"].is_object()) throw ConfigError(file, path + "/measured", "an object", describe(vj["measured"]));
      for (const auto& [k, m] : vj["measured"].items()) {
        if (!m.is_number()) throw ConfigError(file, path + "/measured/" + k, "a number", describe(m));
        v.measured[k] = m;
      }
    }
    sc.variants.push_back(v);
  }
  if (j.contains("overrides")) sc.overrides = j["overrides"];
  // Check every override against the profile now, so a typo fails before anything runs.
  for (const Variant& v : sc.variants) (void)sc.profile_for(v);
  return sc;
}

Profile Scenario::profile_for(const Variant& v) const {
  Profile p = Profile::load(profile_file);
  apply_overrides(p, overrides, file, "/overrides");
  for (std::size_t i = 0; i < variants.size(); ++i)
    if (variants[i].name == v.name) apply_overrides(p, v.overrides, file, "/variants/" + std::to_string(i) + "/overrides");
  return p;
}

const Variant& Scenario::variant(const std::string& wanted) const {
  for (const auto& v : variants)
    if (v.name == wanted) return v;
  throw ConfigError(file, "/variants", "a variant named \"" + wanted + "\"", "none");
}

}  // namespace qcesim::model
