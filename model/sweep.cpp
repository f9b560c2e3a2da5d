#include "model/sweep.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <spdlog/fmt/fmt.h>

#include "model/config_error.h"
#include "model/scenario.h"

namespace qcesim::model {

using json = nlohmann::json;

namespace {

const std::vector<std::string> kKeys = {"sweep", "about", "scenario", "variants", "set", "timing_only",
                                        "combine", "axes", "plot", "analysis"};

std::string keys_list() {
  std::string s;
  for (std::size_t i = 0; i < kKeys.size(); ++i) s += (i ? ", " : "") + kKeys[i];
  return s;
}

// A range: from..to (inclusive) by a step, or by a factor (geometric, for sizes).
std::vector<json> expand_range(const std::string& file, const std::string& at, const json& r) {
  if (!r.is_object()) throw ConfigError(file, at, "an object {from, to, step | factor}", describe_json(r));
  for (const char* k : {"from", "to"})
    if (!r.contains(k) || !r[k].is_number())
      throw ConfigError(file, at + "/" + k, "a number", r.contains(k) ? describe_json(r[k]) : "nothing");
  const double from = r["from"], to = r["to"];
  const bool has_step = r.contains("step"), has_factor = r.contains("factor");
  if (has_step == has_factor)
    throw ConfigError(file, at, "exactly one of \"step\" or \"factor\"", has_step ? "both" : "neither");
  const bool ints = r["from"].is_number_integer() && r["to"].is_number_integer() &&
                    (has_step ? r["step"].is_number_integer() : r["factor"].is_number_integer());
  std::vector<json> out;
  auto push = [&](double v) {
    if (ints) {
      out.emplace_back(static_cast<std::int64_t>(std::llround(v)));
    } else {
      out.emplace_back(v);
    }
  };
  if (has_step) {
    if (!r["step"].is_number() || r["step"].get<double>() <= 0)
      throw ConfigError(file, at + "/step", "a number above 0", describe_json(r["step"]));
    const double step = r["step"];
    if (to < from) throw ConfigError(file, at + "/to", "a value not below from", describe_json(r["to"]));
    const double n = std::floor((to - from) / step + 1e-9);
    if (n > 100000) throw ConfigError(file, at, "at most 100000 values", fmt::format("{:.0f}", n + 1));
    for (double i = 0; i <= n; ++i) push(from + i * step);
  } else {
    if (!r["factor"].is_number() || r["factor"].get<double>() <= 1)
      throw ConfigError(file, at + "/factor", "a number above 1", describe_json(r["factor"]));
    if (from <= 0 || to < from)
      throw ConfigError(file, at, "0 < from <= to for a geometric range", fmt::format("from {} to {}", from, to));
    const double f = r["factor"];
    for (double v = from; v <= to * (1 + 1e-9); v *= f) {
      push(v);
      if (out.size() > 100000) throw ConfigError(file, at, "at most 100000 values", "more");
    }
  }
  return out;
}

double metric_value(const json& m, const std::string& name) {
  if (!m.contains(name) || !m[name].is_number()) return std::nan("");
  return m[name].get<double>();
}

// Least squares y = a + b x over the points' mean latency (ns) against the message size.
struct Fit {
  double a = 0, b = 0;
  std::size_t n = 0;
};

Fit fit_line(const std::map<double, json>& pts) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  Fit f;
  for (const auto& [x, m] : pts) {
    const double y = metric_value(m, "latency_us.mean") * 1e3;
    if (std::isnan(y)) continue;
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
    ++f.n;
  }
  const double n = static_cast<double>(f.n);
  const double den = n * sxx - sx * sx;
  if (f.n < 2 || den == 0) return f;
  f.b = (n * sxy - sx * sy) / den;
  f.a = (sy - f.b * sx) / n;
  return f;
}

// LogCA (Altaf & Wood, ISCA 2017) for the same platform, beta = 1, linear interface latency:
// C = host time per byte (the CPU variant's fitted slope), L = BAM time per byte and C/A = engine
// time per byte (both from the profile), o = the offload's fixed time per request (its fitted
// intercept). g1 = A o / (C (A - 1) - A L) is the break-even size, g_A/2 = A o / (C - A L) the size
// at half the peak speedup; either is absent when its denominator is not positive.
json logca(const Sweep& s, const Fit& host, const std::map<double, json>& pts, const std::string& variant) {
  const Fit acc = fit_line(pts);
  if (host.n < 2 || acc.n < 2) return {{"note", "needs two sizes or more"}};
  double bw_mb_s = 0, clock_mhz = 0, cycles = 0;
  try {
    const Scenario sc = Scenario::load(s.scenario_file, s.sets);
    const Profile p = sc.profile_for(sc.variant(variant));
    bw_mb_s = p.num("bam.bandwidth");
    clock_mhz = p.num("qce.clock");
    cycles = p.num(sc.workload.alg == HashAlg::sha1 ? "qce.cycles_per_block_sha1" : "qce.cycles_per_block_sha256");
  } catch (const std::exception& e) {
    return {{"note", std::string("profile: ") + e.what()}};
  }
  const double C = host.b;                                 // ns per byte
  const double L = 1e3 / bw_mb_s;                          // ns per byte
  const double engine = cycles / clock_mhz * 1e3 / 64.0;   // ns per byte
  const double A = C / engine;
  const double o = acc.a;                                  // ns
  json j = {{"C_ns_per_byte", C}, {"L_ns_per_byte", L}, {"A", A}, {"o_us", o / 1e3},
            {"fitted_slope_ns_per_byte", acc.b}, {"host_intercept_us", host.a / 1e3}};
  const double d1 = C * (A - 1) - A * L, d2 = C - A * L;
  j["g1_bytes"] = d1 > 0 && o > 0 ? json(A * o / d1) : json(nullptr);
  j["g_half_bytes"] = d2 > 0 && o > 0 ? json(A * o / d2) : json(nullptr);
  if (A <= 1) j["note"] = fmt::format("A = {:.2f}: the engine is slower per byte than the CPU, so LogCA has no break-even", A);
  return j;
}

}  // namespace

Sweep Sweep::load(const std::string& file) {
  json j = read_json_file(file, "sweep file");
  if (!j.is_object()) throw ConfigError(file, "", "an object", describe_json(j));
  for (const auto& [k, v] : j.items()) {
    (void)v;
    if (std::find(kKeys.begin(), kKeys.end(), k) == kKeys.end())
      throw ConfigError(file, "/" + k, "one of " + keys_list(), "\"" + k + "\"");
  }
  Sweep s;
  s.file = file;
  s.document = j;
  if (!j.contains("sweep") || !j["sweep"].is_string() || j["sweep"].get<std::string>().empty())
    throw ConfigError(file, "/sweep", "the sweep's name as a string", j.contains("sweep") ? describe_json(j["sweep"]) : "nothing");
  s.name = j["sweep"];
  s.about = j.value("about", "");
  if (!j.contains("scenario") || !j["scenario"].is_string())
    throw ConfigError(file, "/scenario", "the scenario file as a string", j.contains("scenario") ? describe_json(j["scenario"]) : "nothing");
  s.scenario_file = (std::filesystem::path(file).parent_path() / j["scenario"].get<std::string>()).string();
  if (j.contains("variants")) {
    const json& v = j["variants"];
    if (!v.is_array()) throw ConfigError(file, "/variants", "an array of variant names", describe_json(v));
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) throw ConfigError(file, fmt::format("/variants/{}", i), "a variant name", describe_json(v[i]));
      s.variants.push_back(v[i]);
    }
  }
  if (j.contains("set")) {
    const json& st = j["set"];
    if (!st.is_object()) throw ConfigError(file, "/set", "an object of PATH: VALUE", describe_json(st));
    for (const auto& [k, v] : st.items()) s.sets.push_back(k + "=" + json_text(v));
  }
  if (j.contains("timing_only")) {
    if (!j["timing_only"].is_boolean()) throw ConfigError(file, "/timing_only", "true or false", describe_json(j["timing_only"]));
    s.timing_only = j["timing_only"];
  }
  const std::string combine = j.value("combine", "product");
  if (combine != "product" && combine != "zip")
    throw ConfigError(file, "/combine", "\"product\" or \"zip\"", describe_json(j["combine"]));
  s.zip = combine == "zip";

  if (!j.contains("axes") || !j["axes"].is_array() || j["axes"].empty())
    throw ConfigError(file, "/axes", "a non-empty array of axes", j.contains("axes") ? describe_json(j["axes"]) : "nothing");
  for (std::size_t i = 0; i < j["axes"].size(); ++i) {
    const json& a = j["axes"][i];
    const std::string at = fmt::format("/axes/{}", i);
    if (!a.is_object()) throw ConfigError(file, at, "an object {path, values | range}", describe_json(a));
    SweepAxis ax;
    if (!a.contains("path") || !a["path"].is_string() || a["path"].get<std::string>().empty())
      throw ConfigError(file, at + "/path", "a scenario or profile path", a.contains("path") ? describe_json(a["path"]) : "nothing");
    ax.path = a["path"];
    for (const auto& [k, v] : a.items()) {
      (void)v;
      if (k != "path" && k != "values" && k != "range") throw ConfigError(file, at + "/" + k, "path, values or range", "\"" + k + "\"");
    }
    if (a.contains("values") == a.contains("range"))
      throw ConfigError(file, at, "exactly one of \"values\" or \"range\"", a.contains("values") ? "both" : "neither");
    if (a.contains("values")) {
      if (!a["values"].is_array() || a["values"].empty())
        throw ConfigError(file, at + "/values", "a non-empty array", describe_json(a["values"]));
      for (std::size_t k = 0; k < a["values"].size(); ++k) {
        const json& v = a["values"][k];
        if (!v.is_number() && !v.is_string() && !v.is_boolean())
          throw ConfigError(file, fmt::format("{}/values/{}", at, k), "a number, string or boolean", describe_json(v));
        ax.values.push_back(v);
      }
    } else {
      ax.values = expand_range(file, at + "/range", a["range"]);
    }
    s.axes.push_back(std::move(ax));
  }
  if (s.zip) {
    for (std::size_t i = 1; i < s.axes.size(); ++i)
      if (s.axes[i].values.size() != s.axes[0].values.size())
        throw ConfigError(file, fmt::format("/axes/{}", i),
                          fmt::format("{} values, as many as axis 0 (combine: zip)", s.axes[0].values.size()),
                          fmt::format("{}", s.axes[i].values.size()));
  }
  s.plot.x = s.axes[0].path;
  s.plot.y = "latency_us.mean";
  if (j.contains("plot")) {
    const json& p = j["plot"];
    if (!p.is_object()) throw ConfigError(file, "/plot", "an object {x, y, log_x, log_y, title}", describe_json(p));
    if (p.contains("x")) s.plot.x = p["x"].is_string() ? p["x"].get<std::string>() : throw ConfigError(file, "/plot/x", "an axis path", describe_json(p["x"]));
    if (p.contains("y")) s.plot.y = p["y"].is_string() ? p["y"].get<std::string>() : throw ConfigError(file, "/plot/y", "a metric name", describe_json(p["y"]));
    for (const char* k : {"log_x", "log_y"})
      if (p.contains(k) && !p[k].is_boolean()) throw ConfigError(file, std::string("/plot/") + k, "true or false", describe_json(p[k]));
    s.plot.log_x = p.value("log_x", false);
    s.plot.log_y = p.value("log_y", false);
    s.plot.title = p.value("title", "");
  }
  if (j.contains("analysis")) {
    s.analysis = j["analysis"];
    if (!s.analysis.is_object()) throw ConfigError(file, "/analysis", "an object", describe_json(s.analysis));
    for (const auto& [k, v] : s.analysis.items()) {
      if (k != "break_even") throw ConfigError(file, "/analysis/" + k, "break_even", "\"" + k + "\"");
      if (!v.is_object() || !v.contains("host") || !v["host"].is_string())
        throw ConfigError(file, "/analysis/break_even", "an object with \"host\": the CPU variant's name", describe_json(v));
      if (s.axes.size() != 1)
        throw ConfigError(file, "/analysis/break_even", "a sweep with exactly one axis", fmt::format("{} axes", s.axes.size()));
    }
  }
  // Every point's scenario must load: check the first now, so a bad path fails before any run.
  const std::vector<SweepPoint> pts = s.points();
  try {
    Scenario::load(s.scenario_file, s.sets_for(pts.front()));
  } catch (const ConfigError& e) {
    throw ConfigError(file, "/axes", "paths and values the scenario accepts", e.what());
  }
  return s;
}

std::vector<SweepPoint> Sweep::points() const {
  std::vector<SweepPoint> out;
  if (zip) {
    for (std::size_t i = 0; i < axes[0].values.size(); ++i) {
      SweepPoint p;
      p.index = i;
      for (const auto& a : axes) p.values.push_back(a.values[i]);
      out.push_back(std::move(p));
    }
    return out;
  }
  // Cartesian product, the last axis varying fastest.
  std::vector<std::size_t> idx(axes.size(), 0);
  for (;;) {
    SweepPoint p;
    p.index = out.size();
    for (std::size_t a = 0; a < axes.size(); ++a) p.values.push_back(axes[a].values[idx[a]]);
    out.push_back(std::move(p));
    std::size_t a = axes.size();
    while (a > 0) {
      --a;
      if (++idx[a] < axes[a].values.size()) break;
      idx[a] = 0;
      if (a == 0) return out;
    }
  }
}

std::vector<std::string> Sweep::sets_for(const SweepPoint& p) const {
  std::vector<std::string> out = sets;
  for (std::size_t a = 0; a < axes.size(); ++a) out.push_back(axes[a].path + "=" + json_text(p.values[a]));
  return out;
}

std::string Sweep::key() const {
  json k = document;
  k.erase("about");
  k.erase("plot");
  k.erase("analysis");
  // The scenario and profile files decide the results too.
  std::string text = k.dump();
  {
    std::ifstream in(scenario_file);
    text += std::string(std::istreambuf_iterator<char>(in), {});
  }
  try {
    const Scenario sc = Scenario::load(scenario_file);
    std::ifstream in(sc.profile_file);
    text += std::string(std::istreambuf_iterator<char>(in), {});
  } catch (const std::exception&) {
  }
  return fmt::format("{:016x}", std::hash<std::string>{}(text));
}

const std::vector<std::string>& sweep_metric_names() {
  static const std::vector<std::string> names = {
      "wall_s", "cpu_s", "hardirq_s", "softirq_s", "task_s", "kworker_s", "idle_s", "ksoftirqd_s",
      "requests", "bytes", "latency_us.mean", "latency_us.p50", "latency_us.p99", "latency_us.max",
      "irqs", "bam_descriptors", "digest_mismatches", "us_per_request", "cpu_us_per_request",
      "hardirq_us_per_request", "softirq_us_per_request", "mb_per_s", "host_seconds", "failed_requests",
      "live_state_writes", "lock_wait_s", "tz.jobs", "tz.completed", "tz.digest_mismatches", "tz.errors", "tz.timeouts",
      "tz.lock_wait_s"};
  return names;
}

json sweep_metrics(const json& r) {
  json m = json::object();
  // The run's own keys (the derived and dotted names are not in it).
  for (const std::string& k : sweep_metric_names())
    if (r.contains(k) && r[k].is_number()) m[k] = r[k];
  if (r.contains("tz") && r["tz"].is_object())
    for (const auto& [k, v] : r["tz"].items())
      if (v.is_number()) m["tz." + k] = v;
  if (r.contains("latency_us"))
    for (const auto& [k, v] : r["latency_us"].items()) m["latency_us." + k] = v;
  const double n = r.value("requests", 0.0);
  if (n > 0) {
    m["us_per_request"] = r.value("wall_s", 0.0) / n * 1e6;
    m["cpu_us_per_request"] = r.value("cpu_s", 0.0) / n * 1e6;
    m["hardirq_us_per_request"] = r.value("hardirq_s", 0.0) / n * 1e6;
    m["softirq_us_per_request"] = r.value("softirq_s", 0.0) / n * 1e6;
  }
  const double wall = r.value("wall_s", 0.0);
  if (wall > 0) m["mb_per_s"] = r.value("bytes", 0.0) / wall / 1e6;
  return m;
}

json break_even(const Sweep& s, const std::vector<json>& rows) {
  const json& cfg = s.analysis.at("break_even");
  const std::string host = cfg["host"];
  std::vector<std::string> metrics = {"latency_us.mean", "cpu_us_per_request"};
  if (cfg.contains("metrics")) metrics = cfg["metrics"].get<std::vector<std::string>>();
  // x -> metrics per variant
  std::map<std::string, std::map<double, json>> by_variant;
  for (const json& r : rows) {
    const json& x = r["values"][s.axes[0].path];
    if (!x.is_number()) return {{"error", "break_even needs a numeric axis"}};
    by_variant[r["variant"]][x.get<double>()] = r["metrics"];
  }
  json out = {{"host", host}, {"axis", s.axes[0].path}, {"variants", json::object()}};
  if (!by_variant.count(host)) {
    out["error"] = "the host variant " + host + " is not in the sweep";
    return out;
  }
  const auto& h = by_variant[host];
  const Fit host_fit = fit_line(h);
  for (const auto& [name, pts] : by_variant) {
    if (name == host) continue;
    json per = json::object();
    for (const std::string& m : metrics) {
      // Offload minus host along x; a sign change is a crossing, interpolated linearly in log x.
      std::vector<std::pair<double, double>> d;
      for (const auto& [x, mv] : pts) {
        auto it = h.find(x);
        if (it == h.end()) continue;
        const double a = metric_value(mv, m), b = metric_value(it->second, m);
        if (std::isnan(a) || std::isnan(b)) continue;
        d.emplace_back(x, a - b);
      }
      json e;
      if (d.empty()) {
        e = {{"note", "no points"}};
      } else {
        bool found = false;
        for (std::size_t i = 0; i + 1 < d.size() && !found; ++i) {
          const auto [x0, d0] = d[i];
          const auto [x1, d1] = d[i + 1];
          if ((d0 > 0) == (d1 > 0) || d0 == d1) continue;
          const double t = d0 / (d0 - d1);
          const double x = x0 > 0 && x1 > 0 ? std::exp(std::log(x0) + t * (std::log(x1) - std::log(x0))) : x0 + t * (x1 - x0);
          e = {{"x", x}, {"offload_wins", d1 < 0 ? "above" : "below"}};
          found = true;
        }
        if (!found) {
          e = {{"x", nullptr},
               {"note", d.front().second < 0 ? fmt::format("offload is lower over the whole range ({} .. {})", d.front().first, d.back().first)
                                              : fmt::format("the host is lower over the whole range ({} .. {})", d.front().first, d.back().first)}};
        }
      }
      per[m] = e;
    }
    per["logca"] = logca(s, host_fit, pts, name);
    out["variants"][name] = per;
  }
  return out;
}

}  // namespace qcesim::model
