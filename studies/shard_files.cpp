#include "studies/shard_files.h"

#include <algorithm>
#include <cmath>
#include <spdlog/fmt/fmt.h>

#include "model/config_error.h"
#include "studies/replay.h"

namespace qcesim::studies {

using nlohmann::json;

void ShardSet::check_complete() const {
  if (seen.size() != count)
    throw model::ConfigError("--merge", "", fmt::format("all {} shard files", count), fmt::format("{}", seen.size()));
}

std::size_t check_shard_header(const json& doc, const std::string& file, const std::string& id_key,
                               const std::string& expect, const std::string& whose, ShardSet& shards) {
  const bool has_id = doc.is_object() && doc.contains(id_key);
  if (!has_id || !doc[id_key].is_string() || doc[id_key].get<std::string>() != expect)
    throw model::ConfigError(file, "/" + id_key, "a shard of " + whose + " (" + expect + ")",
                             has_id ? model::describe_json(doc[id_key]) : "none");
  for (const char* k : {"shard", "of"})
    if (!doc.contains(k) || !doc[k].is_number_unsigned())
      throw model::ConfigError(file, std::string("/") + k, "a whole number",
                               doc.contains(k) ? model::describe_json(doc[k]) : "nothing");
  const auto of = doc["of"].get<std::size_t>(), index = doc["shard"].get<std::size_t>();
  if (of == 0) throw model::ConfigError(file, "/of", "a shard count of at least 1", "0");
  if (shards.count == 0) shards.count = of;
  if (of != shards.count || index >= of || !shards.seen.insert(index).second)
    throw model::ConfigError(file, "/shard",
                             fmt::format("shard 0..{} of {}, each once", shards.count - 1, shards.count),
                             fmt::format("{} of {}", index, of));
  if (!doc.contains("results") || !doc["results"].is_object())
    throw model::ConfigError(file, "/results", "the shard's results", "none");
  return index;
}

namespace {

// What a run can produce: the numbers' kinds and ranges and the sums that hold in every run
// (replay.cpp checks issued = completed + failed + fallback at the end of each).
std::string range_problem(const json& run, const VariantResult& r, const std::string& expected_name) {
  if (!expected_name.empty() && r.name != expected_name)
    return fmt::format("the run of variant {}, found {}", model::quoted_input(expected_name),
                       model::quoted_input(r.name));
  // Every stored number of its kind (QCESIM_RESULT_FIELDS): counts whole, times finite and >= 0.
  for (const ResultField& f : result_fields()) {
    const std::string key = f.key;
    const auto dot = key.find('.');
    const json* v = find_result_key(run, key);
    if (!v) continue;  // a required one's absence: from_json said so
    const std::string where = dot == std::string::npos ? key : key.substr(0, dot) + "/" + key.substr(dot + 1);
    if (f.kind == ResultKind::count) {
      if (!v->is_number_unsigned()) return fmt::format("{}: a whole number, found {}", where, model::describe_json(*v));
    } else if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() < 0) {
      return fmt::format("{}: a time of at least 0, found {}", where,
                         v->is_number() ? fmt::format("{}", v->get<double>()) : model::describe_json(*v));
    }
  }
  if (r.requests == 0) return "requests: at least 1, found 0";
  if (r.wall_s <= 0) return fmt::format("wall_s: above 0 for {} requests, found {}", r.requests, r.wall_s);
  const auto near = [](double a, double b) {
    return std::fabs(a - b) <= 1e-9 + 1e-6 * std::max(std::fabs(a), std::fabs(b));
  };
  if (!near(r.cpu_s, r.task_s + r.kworker_s + r.softirq_s + r.hardirq_s))
    return fmt::format("cpu_s = task_s + kworker_s + softirq_s + hardirq_s ({}), found {}",
                       r.task_s + r.kworker_s + r.softirq_s + r.hardirq_s, r.cpu_s);
  if (r.ksoftirqd_s > r.softirq_s * (1 + 1e-9))
    return fmt::format("ksoftirqd_s at most softirq_s ({}), found {}", r.softirq_s, r.ksoftirqd_s);
  if (r.issued != r.requests) return fmt::format("issued = requests ({}), found {}", r.requests, r.issued);
  if (r.completed + r.failed + r.fallback != r.issued)
    return fmt::format("issued = completed + failed + fallback ({} + {} + {}), found {}", r.completed, r.failed,
                       r.fallback, r.issued);
  if (r.software > r.completed)
    return fmt::format("software at most completed ({}), found {}", r.completed, r.software);
  if (r.digest_mismatches > r.requests)
    return fmt::format("digest_mismatches at most requests ({}), found {}", r.requests, r.digest_mismatches);
  const double tol = 1e-9 * std::max(1.0, r.lat_max_us);
  if (r.lat_p50_us > r.lat_p99_us + tol || r.lat_p99_us > r.lat_max_us + tol || r.lat_mean_us > r.lat_max_us + tol)
    return fmt::format("latency_us with p50 <= p99 <= max and mean <= max, found {} / {} / {} / mean {}", r.lat_p50_us,
                       r.lat_p99_us, r.lat_max_us, r.lat_mean_us);
  for (const auto& f : r.profile)
    if (!std::isfinite(f.seconds) || f.seconds < 0)
      return fmt::format("profile: times of at least 0, found {}", f.seconds);
  return "";
}

}  // namespace

std::string run_result_problem(const json& run, bool may_fail, const std::string& expected_name) {
  try {
    if (!run.is_object()) return "not an object";
    if (run.contains("error")) {
      if (!may_fail) return "a failed run";
      return run["error"].is_string() ? "" : "an error that is not a string";
    }
    return range_problem(run, VariantResult::from_json(run), expected_name);
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace qcesim::studies
