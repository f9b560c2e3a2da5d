#include "studies/sweep.h"
#include "studies/result_fields.h"

#include <cctype>

#include "cpu/costs.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <spdlog/fmt/fmt.h>

#include "model/config_error.h"
#include "studies/scenario.h"

namespace qcesim::studies {

using namespace model;

using json = nlohmann::json;

namespace {

const std::vector<std::string> kKeys = {"sweep",       "about",   "scenario", "variants", "set",
                                        "timing_only", "combine", "axes",     "plot",     "analysis"};

// A range: from..to (inclusive) by a step, or by a factor (geometric, for sizes).
std::vector<json> expand_range(const std::string& file, const std::string& at, const json& range) {
  const JsonObject r(range, file, at, {"from", "to", "step", "factor"});
  for (const char* k : {"from", "to"})
    if (!r.has(k) || !r.at(k).is_number()) r.fail(k, "a number");
  const double from = r.at("from"), to = r.at("to");
  const bool has_step = r.has("step"), has_factor = r.has("factor");
  if (has_step == has_factor)
    throw ConfigError(file, at, "exactly one of \"step\" or \"factor\"", has_step ? "both" : "neither");
  if (has_step && (!r.at("step").is_number() || !(r.at("step").get<double>() > 0))) r.fail("step", "a number above 0");
  if (has_factor && (!r.at("factor").is_number() || !(r.at("factor").get<double>() > 1)))
    r.fail("factor", "a number above 1");
  const double step = has_step ? r.at("step").get<double>() : 0;
  const double factor = has_factor ? r.at("factor").get<double>() : 0;
  if (!std::isfinite(from) || !std::isfinite(to) || to < from)
    r.fail("to", fmt::format("a finite number not below from ({})", from));
  if (has_factor && from <= 0) r.fail("from", "a number above 0 for a geometric range");
  // How many values, before any is made.
  const double n = has_step ? std::floor((to - from) / step + 1e-9) + 1
                            : std::floor(std::log(to / from) / std::log(factor) + 1e-9) + 1;
  if (!(n <= static_cast<double>(kMaxSweepValues)))
    throw ConfigError(file, at, fmt::format("at most {} values", kMaxSweepValues), fmt::format("{:.0f}", n));
  const bool ints = r.at("from").is_number_integer() && r.at("to").is_number_integer() &&
                    (has_step ? r.at("step").is_number_integer() : r.at("factor").is_number_integer());
  std::vector<json> out;
  double v = from;
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
    if (ints) {
      out.emplace_back(static_cast<std::int64_t>(std::llround(v)));
    } else {
      out.emplace_back(v);
    }
    v = has_step ? from + static_cast<double>(i + 1) * step : v * factor;
  }
  return out;
}

SweepAxis load_axis(const std::string& file, const std::string& at, const json& a) {
  const JsonObject ax(a, file, at, {"path", "values", "range"});
  SweepAxis axis;
  axis.path = ax.text("path");
  if (ax.has("values") == ax.has("range"))
    throw ConfigError(file, at, "exactly one of \"values\" or \"range\"", ax.has("values") ? "both" : "neither");
  if (ax.has("range")) {
    axis.values = expand_range(file, at + "/range", ax.at("range"));
    return axis;
  }
  const json& values = ax.array("values", true);
  if (values.size() > kMaxSweepValues)
    throw ConfigError(file, at + "/values", fmt::format("at most {} values", kMaxSweepValues), describe_json(values));
  for (std::size_t k = 0; k < values.size(); ++k) {
    const json& v = values[k];
    if ((!v.is_number() && !v.is_string() && !v.is_boolean()) || (v.is_string() && !printable(v.get<std::string>())))
      throw ConfigError(file, fmt::format("{}/values/{}", at, k),
                        "a number, boolean or string without control characters (printable UTF-8)", describe_json(v));
    axis.values.push_back(v);
  }
  return axis;
}

SweepPlot load_plot(const std::string& file, const json& p, const std::string& first_axis) {
  SweepPlot plot;
  plot.x = first_axis;
  plot.y = "latency_us.mean";
  if (p.is_null()) return plot;
  const JsonObject pj(p, file, "/plot", {"x", "y", "log_x", "log_y", "title"});
  plot.x = pj.text("x", plot.x);
  plot.y = pj.text("y", plot.y);
  plot.log_x = pj.flag("log_x", false);
  plot.log_y = pj.flag("log_y", false);
  plot.title = pj.text("title", "");
  if (plot.title.size() > 200) pj.fail("title", "a title of at most 200 characters");
  return plot;
}

void check_analysis(const std::string& file, const json& analysis, const std::vector<SweepAxis>& axes) {
  const JsonObject an(analysis, file, "/analysis", {"break_even"});
  if (!an.has("break_even")) return;
  const JsonObject be(an.at("break_even"), file, "/analysis/break_even", {"host", "metrics"});
  be.text("host");
  if (be.has("metrics")) {
    const json& ms = be.array("metrics", true);
    const auto& names = sweep_metric_names();
    for (std::size_t i = 0; i < ms.size(); ++i)
      if (!ms[i].is_string() || std::find(names.begin(), names.end(), ms[i].get<std::string>()) == names.end())
        throw ConfigError(file, fmt::format("/analysis/break_even/metrics/{}", i),
                          "a metric name (docs/sweep.md#metrics)", describe_json(ms[i]));
  }
  // Along the last axis (with more, once per combination of the others): it must be numeric.
  for (const json& v : axes.back().values)
    if (!v.is_number())
      throw ConfigError(file, "/analysis/break_even",
                        fmt::format("a numeric last axis to run along ({})", axes.back().path), describe_json(v));
}

double metric_value(const json& m, const std::string& name) {
  if (!m.contains(name) || !m[name].is_number()) return std::nan("");
  return m[name].get<double>();
}

// Least squares y = a + b x over the points' mean latency (ns) against the message size.
struct LineFit {
  double a = 0, b = 0;
  std::size_t n = 0;
};

LineFit fit_line(const std::map<double, json>& pts) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  LineFit f;
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
// `at`: the other axes' values at this group of points (path=value), as sets on the scenario.
json logca(const Sweep& s, const LineFit& host, const std::map<double, json>& pts, const std::string& variant,
           const std::vector<std::string>& at) {
  const LineFit acc = fit_line(pts);
  if (host.n < 2 || acc.n < 2) return {{"note", "needs two sizes or more"}};
  double bw_mb_s = 0, clock_mhz = 0, engine = 0;
  try {
    const Scenario sc = s.scenario_with(at);
    const Profile p = sc.profile_for(sc.variant(variant));
    bw_mb_s = p.num("bam.bandwidth");
    clock_mhz = p.num("qce.clock");
    // The engine's cycles per byte for the workload's algorithm (a hash block is 64 bytes).
    const AlgName& a = sc.workload.algorithm;
    if (a.kind == AlgKind::hash) {
      engine =
          p.num(sc.workload.alg == HashAlg::sha1 ? "qce.cycles_per_block_sha1" : "qce.cycles_per_block_sha256") / 64.0;
    } else if (a.cipher == CipherAlg::aes) {
      const std::uint32_t key = a.mode == CipherMode::xts ? sc.workload.key_bytes / 2 : sc.workload.key_bytes;
      engine = p.num(key == 32 ? "qce.cycles_per_block_aes256" : "qce.cycles_per_block_aes128") / 16.0;
    } else {
      engine = p.num(a.cipher == CipherAlg::des ? "qce.cycles_per_block_des" : "qce.cycles_per_block_3des") / 8.0;
    }
  } catch (const std::exception& e) {
    return {{"note", std::string("profile: ") + e.what()}};
  }
  const double C = host.b;            // ns per byte
  const double L = 1e3 / bw_mb_s;     // ns per byte
  engine = engine / clock_mhz * 1e3;  // ns per byte
  const double A = C / engine;
  const double o = acc.a;  // ns
  json j = {{"C_ns_per_byte", C},
            {"L_ns_per_byte", L},
            {"A", A},
            {"o_us", o / 1e3},
            {"fitted_slope_ns_per_byte", acc.b},
            {"host_intercept_us", host.a / 1e3}};
  const double d1 = C * (A - 1) - A * L, d2 = C - A * L;
  j["g1_bytes"] = d1 > 0 && o > 0 ? json(A * o / d1) : json(nullptr);
  j["g_half_bytes"] = d2 > 0 && o > 0 ? json(A * o / d2) : json(nullptr);
  if (A <= 1)
    j["note"] = fmt::format("A = {:.2f}: the engine is slower per byte than the CPU, so LogCA has no break-even", A);
  return j;
}

}  // namespace

Sweep Sweep::load(const std::string& file, const std::vector<std::string>& extra_sets) {
  Sweep s = parse(file);
  // Read once, as every file a sweep names: a regular file of bounded size.
  s.scenario_text = model::read_input_file(s.scenario_file, "scenario file", InputKind::regular);
  s.scenario_doc = model::parse_input_json(s.scenario_text, s.scenario_file);
  s.scenario_folder = model::folder_of(s.scenario_file);
  for (const std::string& set : extra_sets) {
    const auto eq = set.find('=');
    if (eq == std::string::npos || eq == 0) throw ConfigError("--set", "", "PATH=VALUE", quoted_input(set));
    s.sets.push_back(set);
    s.document["set"][set.substr(0, eq)] = set.substr(eq + 1);
  }
  s.check_points();
  return s;
}

Sweep Sweep::parse(const std::string& file) {
  const json j = read_json_file(file, "sweep file");
  const JsonObject top(j, file, "", kKeys);
  Sweep s;
  s.file = file;
  s.document = j;
  s.name = top.name("sweep", "a sweep name (it names the output files)");
  s.about = top.text("about", "");
  s.scenario_file = model::beside(file, top.text("scenario"));
  if (top.has("variants")) {
    const json& v = top.array("variants", true);
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string())
        throw ConfigError(file, fmt::format("/variants/{}", i), "a variant name", describe_json(v[i]));
      for (const auto& earlier : s.variants)
        if (earlier == v[i])
          throw ConfigError(file, fmt::format("/variants/{}", i), "each variant named once", describe_json(v[i]));
      s.variants.push_back(v[i]);
    }
  }
  if (top.has("set"))
    for (const auto& [k, v] : top.object("set").items()) s.sets.push_back(k + "=" + json_text(v));
  s.timing_only = top.flag("timing_only", true);
  s.zip = top.choice("combine", "product", {"product", "zip"}) == "zip";
  const json& axes = top.array("axes", true);
  if (axes.size() > 8) throw ConfigError(file, "/axes", "at most 8 axes", describe_json(axes));
  for (std::size_t i = 0; i < axes.size(); ++i) s.axes.push_back(load_axis(file, fmt::format("/axes/{}", i), axes[i]));
  if (s.zip) {
    for (std::size_t i = 1; i < s.axes.size(); ++i)
      if (s.axes[i].values.size() != s.axes[0].values.size())
        throw ConfigError(file, fmt::format("/axes/{}", i),
                          fmt::format("{} values, as many as axis 0 (combine: zip)", s.axes[0].values.size()),
                          fmt::format("{}", s.axes[i].values.size()));
  }
  // The number of points, before any is made.
  double points = s.zip ? static_cast<double>(s.axes[0].values.size()) : 1;
  if (!s.zip)
    for (const auto& a : s.axes) points *= static_cast<double>(a.values.size());
  if (points > static_cast<double>(kMaxSweepPoints))
    throw ConfigError(file, "/axes", fmt::format("at most {} points", kMaxSweepPoints), fmt::format("{:.0f}", points));
  s.plot = load_plot(file, top.has("plot") ? top.at("plot") : json(), s.axes[0].path);
  if (top.has("analysis")) {
    check_analysis(file, top.at("analysis"), s.axes);
    s.analysis = top.at("analysis");
  }
  return s;
}

void Sweep::check_points() {
  const std::vector<SweepPoint> pts = points();
  auto load_point = [&](const SweepPoint& p) {
    try {
      return scenario_at(p);
    } catch (const ConfigError& e) {
      std::string where;
      for (std::size_t a = 0; a < axes.size(); ++a)
        where += fmt::format("{}{}={}", a ? " " : "", axes[a].path, json_text(p.values[a]));
      throw ConfigError(file, "/axes", "paths and values the scenario accepts",
                        fmt::format("at point {} ({}): {}", p.index, where, e.what()));
    }
  };
  // The first point names the variants (all of the scenario's when the file names none), and
  // so the number of runs, before the other points are loaded.
  const Scenario first = load_point(pts.front());
  if (variants.empty())
    for (const auto& v : first.variants) variants.push_back(v.name);
  if (pts.size() * variants.size() > kMaxSweepPoints)
    throw ConfigError(file, "/axes", fmt::format("at most {} runs (points x variants)", kMaxSweepPoints),
                      fmt::format("{} x {}", pts.size(), variants.size()));
  if (analysis.contains("break_even")) {
    const std::string host = analysis["break_even"]["host"];
    if (std::find(variants.begin(), variants.end(), host) == variants.end())
      throw ConfigError(file, "/analysis/break_even/host", "one of the sweep's variants", quoted_input(host));
  }
  for (const SweepPoint& p : pts) {
    const Scenario sc = p.index == 0 ? first : load_point(p);
    for (std::size_t i = 0; i < variants.size(); ++i) {
      try {
        sc.variant(variants[i]);
      } catch (const ConfigError& e) {
        throw ConfigError(file, fmt::format("/variants/{}", i), "a variant of " + scenario_file, e.found);
      }
    }
  }
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
  // A string value is set as the JSON string it is ("64" stays the text 64, as the table and the
  // CSV show it), not re-read as a --set's text would be.
  for (std::size_t a = 0; a < axes.size(); ++a)
    out.push_back(axes[a].path + "=" + (p.values[a].is_string() ? p.values[a].dump() : json_text(p.values[a])));
  return out;
}

Scenario Sweep::scenario_at(const SweepPoint& p, bool check_variants) const {
  return Scenario::from_document(scenario_doc, scenario_file, scenario_folder, sets_for(p), check_variants);
}

std::string Sweep::scenario_profile() const {
  return Scenario::from_document(scenario_doc, scenario_file, scenario_folder, {}, false).profile_file;
}

Scenario Sweep::scenario_with(const std::vector<std::string>& more, bool check_variants) const {
  std::vector<std::string> all = sets;
  all.insert(all.end(), more.begin(), more.end());
  return Scenario::from_document(scenario_doc, scenario_file, scenario_folder, all, check_variants);
}

std::string Sweep::key() const {
  json k = document;
  k.erase("about");
  k.erase("plot");
  k.erase("analysis");
  // The scenario and profile files decide the results too.
  std::string text = k.dump();
  // The scenario's text as it was read; its profile read as every file a sweep names, a regular
  // file of bounded size (an error here is the runs' to report: the key then stands for what
  // could be read).
  text += scenario_text;
  try {
    text += model::read_input_file(scenario_profile(), "profile file", InputKind::regular);
  } catch (const std::exception&) {
  }
  return fmt::format("{:016x}", std::hash<std::string>{}(text));
}

const std::vector<std::string>& sweep_metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const SweepMetric& m : sweep_metrics_table()) v.push_back(m.name);
    return v;
  }();
  return names;
}

std::string sweep_metric_label(const std::string& metric) {
  for (const SweepMetric& m : sweep_metrics_table())
    if (m.name == metric) return m.label;
  return metric;
}

std::string sweep_axis_label(const std::string& path, const Profile& profile) {
  static const std::map<std::string, std::string> scenario_keys = {
      {"workload.messages", "messages per run"},
      {"workload.message_bytes", "message size [bytes]"},
      {"workload.queue_depth", "requests in flight (queue depth)"},
      {"workload.tz.rate_per_s", "TrustZone jobs per second"},
      {"workload.tz.message_bytes", "TrustZone message size [bytes]"},
      {"workload.tz.timeout_us", "request watchdog [µs]"},
      {"faults.tz_lock_hold_us", "TrustZone's extra lock hold per job [µs]"},
      {"faults.timeout_us", "request watchdog [µs]"}};
  if (auto it = scenario_keys.find(path); it != scenario_keys.end()) return it->second;
  for (const FaultKind& k : fault_kinds())
    if (path == std::string("faults.") + k.key) return k.label;
  const std::string name = path.rfind("overrides.", 0) == 0 ? path.substr(10) : path;
  if (!profile.has(name)) return path;
  const Param& p = profile.param(name);
  std::string doc = p.doc.substr(0, p.doc.find(". "));
  if (const cpu::CostItem* c = cpu::cost_item_for_key(name)) {  // its first clause, capitalised
    doc = std::string(c->doc).substr(0, std::string(c->doc).find_first_of("(:;"));
    while (!doc.empty() && doc.back() == ' ') doc.pop_back();
    if (!doc.empty()) doc[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(doc[0])));
  }
  if (!doc.empty() && doc.back() == '.') doc.pop_back();
  if (doc.empty()) doc = name;
  return p.unit == "count" || p.unit == "name" ? doc : doc + " [" + p.unit + "]";
}

json sweep_metrics(const json& r) {
  json m = json::object();
  const double requests = r.value("requests", 0.0), wall = r.value("wall_s", 0.0);
  for (const SweepMetric& sm : sweep_metrics_table()) {
    if (sm.base) {  // derived
      const double base = r.contains(sm.base) && r[sm.base].is_number() ? r[sm.base].get<double>() : 0.0;
      if (sm.derive == Derive::per_request_us && requests > 0) m[sm.name] = base / requests * 1e6;
      if (sm.derive == Derive::per_wall_mb && wall > 0) m[sm.name] = base / wall / 1e6;
      continue;
    }
    // A stored number, nested under its first part when dotted (latency_us.mean, tz.jobs).
    const json* v = find_result_key(r, sm.name);
    if (v && v->is_number()) m[sm.name] = *v;
  }
  return m;
}

namespace {

// Break-even of every variant against the host along `x_path`, over `rows`.
json break_even_along(const Sweep& s, const std::vector<json>& rows, const std::string& x_path,
                      const std::vector<std::string>& at) {
  const json& cfg = s.analysis.at("break_even");
  const std::string host = cfg["host"];
  std::vector<std::string> metrics = {"latency_us.mean", "cpu_us_per_request"};
  if (cfg.contains("metrics")) metrics = cfg["metrics"].get<std::vector<std::string>>();
  // x -> metrics per variant
  std::map<std::string, std::map<double, json>> by_variant;
  for (const json& r : rows) {
    const json& x = r["values"][x_path];
    if (!x.is_number()) return {{"error", "break_even needs a numeric axis"}};
    by_variant[r["variant"]][x.get<double>()] = r["metrics"];
  }
  json out = {{"host", host}, {"axis", x_path}, {"variants", json::object()}};
  if (!by_variant.count(host)) {
    out["error"] = "the host variant " + host + " is not in the sweep";
    return out;
  }
  const auto& h = by_variant[host];
  const LineFit host_fit = fit_line(h);
  for (const auto& [name, pts] : by_variant) {
    if (name == host) continue;
    json per = json::object();
    for (const std::string& m : metrics) {
      // Offload minus host along x; a sign change is a crossing, interpolated linearly in x: both
      // costs are a fixed part plus a part per byte (or per job), so their difference is linear
      // between two points and this is exact there, where log x put it early on a geometric grid
      // (the IPQ40xx's AES-128 crossing at 693 bytes between 512 and 1024; runs say 736).
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
          const double x = x0 + t * (x1 - x0);
          e = {{"x", x}, {"offload_wins", d1 < 0 ? "above" : "below"}};
          found = true;
        }
        if (!found) {
          e = {{"x", nullptr},
               {"note", d.front().second < 0 ? fmt::format("offload is lower over the whole range ({} .. {})",
                                                           d.front().first, d.back().first)
                                             : fmt::format("the host is lower over the whole range ({} .. {})",
                                                           d.front().first, d.back().first)}};
        }
      }
      per[m] = e;
    }
    per["logca"] = logca(s, host_fit, pts, name, at);
    out["variants"][name] = per;
  }
  return out;
}

}  // namespace

// Along the last axis; with more than one, a group per combination of the other axes' values
// (in the order the points ran), each with its own crossings.
json break_even(const Sweep& s, const std::vector<json>& rows) {
  const std::string x_path = s.axes.back().path;
  if (s.axes.size() == 1) return break_even_along(s, rows, x_path, {});
  std::vector<std::pair<json, std::vector<json>>> groups;
  for (const json& r : rows) {
    json at = json::object();
    for (std::size_t i = 0; i + 1 < s.axes.size(); ++i) at[s.axes[i].path] = r["values"][s.axes[i].path];
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == at; });
    if (it == groups.end()) it = groups.insert(groups.end(), std::make_pair(at, std::vector<json>{}));
    it->second.push_back(r);
  }
  json out = {{"host", s.analysis.at("break_even")["host"]}, {"axis", x_path}, {"groups", json::array()}};
  for (const auto& [at, grows] : groups) {
    std::vector<std::string> sets;
    for (const auto& [path, v] : at.items()) sets.push_back(path + "=" + json_text(v));
    json g = break_even_along(s, grows, x_path, sets);
    g.erase("host");
    g.erase("axis");
    g["at"] = at;
    out["groups"].push_back(g);
  }
  return out;
}

}  // namespace qcesim::studies
