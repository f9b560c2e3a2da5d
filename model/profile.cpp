#include "model/profile.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <systemc>

#include "model/cholesky.h"
#include "spdlog/fmt/fmt.h"

namespace qcesim::model {

using nlohmann::json;

namespace {

// "lines": cache lines per call, an average (so not a whole count).
const std::set<std::string> kUnits = {"ns",     "us",       "ms",           "s",     "MHz",   "GHz",  "MB/s",
                                      "cycles", "cycles/B", "instructions", "count", "bytes", "year", "ratio",
                                      "lines",  "name",     "GHz list"};

const auto& describe = describe_json;

}  // namespace

double Profile::unit_to_seconds(const std::string& unit) {
  if (unit == "ns") return 1e-9;
  if (unit == "us") return 1e-6;
  if (unit == "ms") return 1e-3;
  if (unit == "s") return 1.0;
  return 0;
}

Profile Profile::load(const std::string& file) {
  // Every variant of every sweep point, and every forked run, loads its profile: each file is
  // parsed once per process and read again only when its stamp says its text may have changed
  // (validate over an IPQ40xx scenario: the run's re-read of the 95 KB profile and its comparison
  // with the cached text were a tenth of its CPU time).
  struct Parsed {
    FileStamp stamp;
    std::string text;  // kept while the stamp is not settled: then the text decides
    Profile profile;
  };
  static std::map<std::string, Parsed> parsed;
  const auto it = parsed.find(file);
  FileStamp stamp;
  std::optional<std::string> text = read_input_file_unless(file, "profile file", InputKind::regular,
                                                           it != parsed.end() ? &it->second.stamp : nullptr, stamp);
  if (!text || (it != parsed.end() && it->second.text == *text && !it->second.text.empty())) {
    if (text) {  // the same text: from now on its stamp may stand for it
      it->second.stamp = stamp;
      if (stamp.settled) it->second.text.clear();
    }
    return it->second.profile;
  }
  Profile p = parse(parse_input_json(*text, file), file);
  if (parsed.size() > 64) parsed.clear();
  parsed.insert_or_assign(file, Parsed{stamp, stamp.settled ? std::string() : std::move(*text), p});
  return p;
}

namespace {

// The value (a number in its range, or a word for unit "name") and range of one parameter.
void parse_value(Param& prm, const json& pj, const std::string& file, const std::string& path) {
  if (prm.is_text()) {
    if (!pj.contains("value") || !pj["value"].is_string())
      throw ConfigError(file, path + "/value", "a string", pj.contains("value") ? describe(pj["value"]) : "nothing");
    prm.text = pj["value"];
    return;
  }
  if (!pj.contains("value") || !pj["value"].is_number())
    throw ConfigError(file, path + "/value", "a number", pj.contains("value") ? describe(pj["value"]) : "nothing");
  prm.value = pj["value"];
  if (!pj.contains("range") || !pj["range"].is_array() || pj["range"].size() != 2 || !pj["range"][0].is_number() ||
      !pj["range"][1].is_number())
    throw ConfigError(file, path + "/range", "[min, max] as two numbers",
                      pj.contains("range") ? describe(pj["range"]) : "nothing");
  prm.min = pj["range"][0];
  prm.max = pj["range"][1];
  if (prm.min > prm.max) throw ConfigError(file, path + "/range", "min <= max", pj["range"].dump());
  if (prm.value < prm.min || prm.value > prm.max)
    throw ConfigError(file, path + "/value", fmt::format("a value in [{}, {}] {}", prm.min, prm.max, prm.unit),
                      fmt::format("{}", prm.value));
  if (prm.is_integer() && prm.value != std::floor(prm.value))
    throw ConfigError(file, path + "/value", fmt::format("a whole number (unit {})", prm.unit),
                      fmt::format("{}", prm.value));
  // What independent sources allow (a 90 % interval), inside the range; a fitted value may lie
  // outside it, which is what a fit that contradicts its sources looks like.
  if (!pj.contains("interval")) {
    prm.lo = prm.hi = prm.value;
    return;
  }
  const json& iv = pj["interval"];
  if (!iv.is_array() || iv.size() != 2 || !iv[0].is_number() || !iv[1].is_number() ||
      iv[0].get<double>() > iv[1].get<double>() || iv[0].get<double>() < prm.min || iv[1].get<double>() > prm.max)
    throw ConfigError(file, path + "/interval", fmt::format("[low, high] inside the range [{}, {}]", prm.min, prm.max),
                      describe(iv));
  prm.lo = iv[0];
  prm.hi = iv[1];
  prm.has_interval = true;
}

// Where the value comes from: "measured:", "derived:", "datasheet:", "counted:" (an instruction
// count read from the code path), "estimate:" or "calibrated:".
void parse_provenance(Param& prm, const json& pj, const std::string& file, const std::string& path) {
  if (!pj.contains("provenance") || !pj["provenance"].is_string())
    throw ConfigError(file, path + "/provenance", "a string naming its source",
                      pj.contains("provenance") ? describe(pj["provenance"]) : "nothing");
  prm.provenance = pj["provenance"];
  static const char* kinds[] = {"measured:", "derived:", "datasheet:", "counted:", "estimate:", "calibrated:"};
  bool kind_ok = false;
  for (const char* k : kinds) kind_ok = kind_ok || prm.provenance.rfind(k, 0) == 0;
  if (!kind_ok)
    throw ConfigError(file, path + "/provenance",
                      "a string starting with measured:, derived:, datasheet:, counted:, estimate: or calibrated:",
                      describe(pj["provenance"]));
}

Param parse_param(const std::string& name, const json& pj, const std::string& file) {
  const std::string path = "/parameters/" + name;
  // No '=' in a parameter's name (the rule allows it in others'): --set NAME=VALUE, and the
  // uncertainty and sensitivity runs' sets, end the name at the first one.
  if (!valid_name(name) || name.find('=') != std::string::npos)
    throw ConfigError(file, path, std::string("a parameter name of ") + kNameRule + ", without =", quoted_input(name));
  if (!pj.is_object()) throw ConfigError(file, path, "an object with value, unit, range, provenance", describe(pj));
  Param prm;
  prm.name = name;
  if (!pj.contains("unit") || !pj["unit"].is_string() || !kUnits.count(pj["unit"].get<std::string>()))
    throw ConfigError(
        file, path + "/unit",
        "one of ns, us, ms, s, MHz, GHz, MB/s, cycles, cycles/B, instructions, count, bytes, year, ratio, lines, "
        "name, GHz list",
        pj.contains("unit") ? describe(pj["unit"]) : "nothing");
  prm.unit = pj["unit"];
  parse_value(prm, pj, file, path);
  prm.origin_file = file;
  prm.origin_path = path + "/value";
  parse_provenance(prm, pj, file, path);
  if (pj.contains("doc") && !pj["doc"].is_string())
    throw ConfigError(file, path + "/doc", "a line of documentation", describe(pj["doc"]));
  prm.doc = pj.value("doc", "");
  if (pj.contains("shared")) {
    if (!pj["shared"].is_string() || !valid_name(pj["shared"].get<std::string>()) || name.rfind("cost.", 0) != 0)
      throw ConfigError(file, path + "/shared", "on a cost item, the name of the ratio parameter it shares",
                        describe(pj["shared"]));
    prm.shared = pj["shared"];
  }
  for (const std::string* t : {&prm.text, &prm.provenance, &prm.doc})
    if (!printable(*t))
      throw ConfigError(file, path, "value, provenance and doc without control characters", quoted_input(*t));
  return prm;
}

// One group of "correlations": two or more distinct parameters, each a number with a log-normal
// interval (positive) and in no other group, with a correlation matrix a distribution can have.
Correlation parse_correlation(const json& g, const std::string& path, const std::map<std::string, Param>& params,
                              const std::set<std::string>& grouped, const std::string& file,
                              const std::function<bool(const std::string&)>& pinned = {}) {
  if (!g.is_object()) throw ConfigError(file, path, "an object with parameters, correlation, provenance", describe(g));
  for (const auto& [key, _] : g.items())
    if (key != "parameters" && key != "correlation" && key != "provenance")
      throw ConfigError(file, path + "/" + key, "parameters, correlation or provenance", quoted_input(key));
  Correlation c;
  if (!g.contains("parameters") || !g["parameters"].is_array() || g["parameters"].size() < 2)
    throw ConfigError(file, path + "/parameters", "an array of at least two parameter names",
                      g.contains("parameters") ? describe(g["parameters"]) : "nothing");
  for (std::size_t i = 0; i < g["parameters"].size(); ++i) {
    const json& n = g["parameters"][i];
    const std::string at = fmt::format("{}/parameters/{}", path, i);
    if (!n.is_string()) throw ConfigError(file, at, "a parameter name", describe(n));
    const std::string name = n;
    const auto it = params.find(name);
    if (it == params.end()) throw ConfigError(file, at, "a parameter of this profile", quoted_input(name));
    const Param& p = it->second;
    // Where a scenario gave the value in force (its origin names it; a profile's own is its entry).
    const std::string given =
        p.origin_path.empty() || p.origin_path == "/parameters/" + name + "/value" ? "" : " given at " + p.origin_path;
    if (pinned && pinned(name)) {  // held at a plain value by an edit: checked as named, then dropped
      if (p.is_text()) throw ConfigError(file, at, "a numeric parameter", quoted_input(name) + given);
      if (!p.shared.empty())
        throw ConfigError(file, at, "a parameter without a shared factor", quoted_input(name) + " shares " + p.shared);
      if (std::find(c.names.begin(), c.names.end(), name) != c.names.end())
        throw ConfigError(file, at, "a parameter in one correlated group, named once", quoted_input(name) + " again");
      c.names.push_back(name);
      continue;
    }
    if (p.is_text() || !p.has_interval || !(p.lo > 0) || !(p.hi > p.lo))
      throw ConfigError(
          file, at, "a numeric parameter with a positive interval of nonzero width (a log-normal)",
          quoted_input(name) + given +
              (p.has_interval ? fmt::format(" with [{}, {}]", p.lo, p.hi) : std::string(" without an interval")));
    if (!p.shared.empty())  // its draw is multiplied by the shared factor's: its marginal is not its interval
      throw ConfigError(file, at, "a parameter without a shared factor", quoted_input(name) + " shares " + p.shared);
    if (grouped.count(name) || std::find(c.names.begin(), c.names.end(), name) != c.names.end())
      throw ConfigError(file, at, "a parameter in one correlated group, named once", quoted_input(name) + " again");
    c.names.push_back(name);
  }
  const std::size_t k = c.names.size();
  const std::string mpath = path + "/correlation";
  const std::string shape = fmt::format("{0} rows of {0} numbers in [-1, 1], ones on the diagonal, symmetric", k);
  if (!g.contains("correlation") || !g["correlation"].is_array() || g["correlation"].size() != k)
    throw ConfigError(file, mpath, shape, g.contains("correlation") ? describe(g["correlation"]) : "nothing");
  for (std::size_t i = 0; i < k; ++i) {
    const json& row = g["correlation"][i];
    if (!row.is_array() || row.size() != k)
      throw ConfigError(file, fmt::format("{}/{}", mpath, i), shape, describe(row));
    c.matrix.emplace_back();
    for (std::size_t j = 0; j < k; ++j) {
      const json& x = row[j];
      const std::string at = fmt::format("{}/{}/{}", mpath, i, j);
      if (!x.is_number() || !(x.get<double>() >= -1 && x.get<double>() <= 1))
        throw ConfigError(file, at, "a correlation in [-1, 1]", describe(x));
      if (i == j && x.get<double>() != 1) throw ConfigError(file, at, "1 on the diagonal", describe(x));
      if (j < i && x.get<double>() != c.matrix[j][i])
        throw ConfigError(file, at, fmt::format("the same as [{}][{}] (symmetric), {}", j, i, c.matrix[j][i]),
                          describe(x));
      c.matrix.back().push_back(x);
    }
  }
  if (cholesky(c.matrix).empty())
    throw ConfigError(file, mpath, "a positive definite matrix (no parameter a fixed combination of the others)",
                      "one with a zero or negative eigenvalue");
  if (!g.contains("provenance") || !g["provenance"].is_string() || !printable(g["provenance"].get<std::string>()))
    throw ConfigError(file, path + "/provenance", "a string naming where the correlations come from",
                      g.contains("provenance") ? describe(g["provenance"]) : "nothing");
  c.provenance = g["provenance"];
  return c;
}

// Group g without parameter i (a parameter restated by a scenario).
void drop_from(Correlation& g, std::size_t i) {
  std::vector<std::size_t> keep;
  for (std::size_t j = 0; j < g.names.size(); ++j)
    if (j != i) keep.push_back(j);
  g.names.erase(g.names.begin() + static_cast<std::ptrdiff_t>(i));
  g.matrix = principal_submatrix(g.matrix, keep);
}

}  // namespace

Profile Profile::parse(const json& j, const std::string& file) {
  Profile p;
  p.m_file = file;
  if (!j.is_object()) throw ConfigError(file, "", "an object", describe(j));
  if (!j.contains("profile") || !j["profile"].is_string())
    throw ConfigError(file, "/profile", "the profile's name as a string",
                      j.contains("profile") ? describe(j["profile"]) : "nothing");
  p.m_name = j["profile"];
  if (!valid_name(p.m_name))
    throw ConfigError(file, "/profile", std::string("a profile name of ") + kNameRule, describe(j["profile"]));
  if (!j.contains("parameters") || !j["parameters"].is_object())
    throw ConfigError(file, "/parameters", "an object of parameters",
                      j.contains("parameters") ? describe(j["parameters"]) : "nothing");
  for (const auto& [name, pj] : j["parameters"].items()) p.m_params[name] = parse_param(name, pj, file);
  for (const auto& [name, prm] : p.m_params) {
    if (prm.shared.empty()) continue;
    auto it = p.m_params.find(prm.shared);
    if (it == p.m_params.end() || it->second.unit != "ratio")
      throw ConfigError(file, "/parameters/" + name + "/shared", "a ratio parameter of this profile",
                        quoted_input(prm.shared));
  }
  if (j.contains("correlations")) {
    if (!j["correlations"].is_array())
      throw ConfigError(file, "/correlations", "an array of correlated groups", describe(j["correlations"]));
    std::set<std::string> grouped;
    for (std::size_t i = 0; i < j["correlations"].size(); ++i) {
      p.m_correlations.push_back(
          parse_correlation(j["correlations"][i], fmt::format("/correlations/{}", i), p.m_params, grouped, file));
      grouped.insert(p.m_correlations.back().names.begin(), p.m_correlations.back().names.end());
    }
  }
  return p;
}

const Param& Profile::param(const std::string& name) const {
  auto it = m_params.find(name);
  if (it == m_params.end())
    throw ConfigError(m_file, "/parameters/" + name, "this parameter in the profile", "nothing");
  return it->second;
}

double Profile::num(const std::string& name) const { return param(name).value; }
const std::string& Profile::text(const std::string& name) const { return param(name).text; }

sc_core::sc_time Profile::time(const std::string& name) const {
  const Param& p = param(name);
  const double s = unit_to_seconds(p.unit);
  if (s == 0) throw ConfigError(m_file, "/parameters/" + name + "/unit", "a time unit (ns, us, ms, s)", p.unit);
  return sc_core::sc_time(p.value * s, sc_core::SC_SEC);
}

Param& Profile::overridden(const std::string& name, const std::string& origin_file, const std::string& origin_path) {
  auto it = m_params.find(name);
  if (it == m_params.end())
    throw ConfigError(origin_file, origin_path, "a parameter of profile " + m_name, quoted_input(name));
  return it->second;
}

void Profile::set(const std::string& name, double value, const std::string& origin_file,
                  const std::string& origin_path) {
  Param& p = overridden(name, origin_file, origin_path);
  if (p.is_text())
    throw ConfigError(origin_file, origin_path, "a word for " + name, fmt::format("the number {}", value));
  if (!std::isfinite(value) || value < p.min || value > p.max)
    throw ConfigError(origin_file, origin_path, fmt::format("{} in [{}, {}] {}", name, p.min, p.max, p.unit),
                      fmt::format("{}", value));
  if (p.is_integer() && value != std::floor(value))
    throw ConfigError(origin_file, origin_path, fmt::format("a whole number for {} (unit {})", name, p.unit),
                      fmt::format("{}", value));
  p.value = value;
  p.origin_file = origin_file;
  p.origin_path = origin_path;
  p.restated = false;
}

void Profile::set_text(const std::string& name, const std::string& value, const std::string& origin_file,
                       const std::string& origin_path) {
  Param& p = overridden(name, origin_file, origin_path);
  if (!p.is_text())
    throw ConfigError(origin_file, origin_path, fmt::format("a number for {} ({})", name, p.unit),
                      "the string " + quoted_input(value));
  if (!printable(value))
    throw ConfigError(origin_file, origin_path, "a word without control characters (printable UTF-8) for " + name,
                      quoted_input(value));
  p.text = value;
  p.origin_file = origin_file;
  p.origin_path = origin_path;
}

void Profile::restate(const std::string& name, const json& j, const std::string& origin_file,
                      const std::string& origin_path) {
  Param& current = overridden(name, origin_file, origin_path);
  if (current.is_text())
    throw ConfigError(origin_file, origin_path, "a word for " + name + " (restating is for numbers)", describe(j));
  for (const auto& [key, _] : j.items())
    if (key != "value" && key != "interval" && key != "provenance")
      throw ConfigError(origin_file, origin_path + "/" + key, "value, interval or provenance", quoted_input(key));
  Param p = current;  // changed only once every check has passed
  json full = j;
  full["range"] = json::array({p.min, p.max});
  p.has_interval = false;
  parse_value(p, full, origin_file, origin_path);
  parse_provenance(p, j, origin_file, origin_path);
  if (!printable(p.provenance))
    throw ConfigError(origin_file, origin_path + "/provenance", "a provenance without control characters",
                      quoted_input(p.provenance));
  p.origin_file = origin_file;
  p.origin_path = origin_path;
  p.restated = true;
  current = std::move(p);
  for (auto g = m_correlations.begin(); g != m_correlations.end(); ++g) {
    const auto it = std::find(g->names.begin(), g->names.end(), name);
    if (it == g->names.end()) continue;
    drop_from(*g, static_cast<std::size_t>(it - g->names.begin()));
    if (g->names.size() < 2) m_correlations.erase(g);
    break;
  }
}

void Profile::add_correlations(const json& groups, const std::string& file, const std::string& path,
                               const std::string& restated_under,
                               const std::function<bool(const std::string&)>& edited) {
  if (!groups.is_array()) throw ConfigError(file, path, "an array of correlated groups", describe(groups));
  std::vector<Correlation> added;  // kept only once every group has passed
  std::set<std::string> grouped;
  for (const Correlation& g : m_correlations) grouped.insert(g.names.begin(), g.names.end());
  // Where a member's value in force was given: this level's overrides, or elsewhere.
  auto given_here = [&](const Param& prm) {
    return prm.origin_file == file && prm.origin_path == restated_under + "/" + prm.name;
  };
  // A member this level holds at a plain value by an edit (--set, or an uncertainty sample's value
  // routed to it) is pinned: it leaves the group, as a restated one leaves the profile's, and the
  // others keep their marginal joint distribution. A plain value written in the file is refused.
  auto pinned = [&](const std::string& name) {
    const Param& prm = m_params.at(name);
    return given_here(prm) && !prm.restated && edited && edited(prm.origin_path);
  };
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const std::string at = fmt::format("{}/{}", path, i);
    // Only what this level restated: a fit's correlations belong with the values it fitted, and
    // a group over the profile's own values would claim something of them the profile does not.
    // (Said first: such a member may also be in the profile's group. The group's shape is
    // parse_correlation's to check.)
    const json& g = groups[i];
    if (g.is_object() && g.contains("parameters") && g["parameters"].is_array())
      for (std::size_t k = 0; k < g["parameters"].size(); ++k) {
        const json& n = g["parameters"][k];
        if (!n.is_string() || !m_params.count(n.get<std::string>())) continue;
        const Param& prm = m_params.at(n.get<std::string>());
        if (given_here(prm) && (prm.restated || pinned(prm.name))) continue;
        throw ConfigError(file, fmt::format("{}/parameters/{}", at, k),
                          "a parameter restated beside it ({value, interval, provenance} in " + restated_under + ")",
                          quoted_input(prm.name) + (prm.origin_file != file ? " as its profile has it"
                                                    : prm.restated          ? " restated at " + prm.origin_path
                                                                   : " held at a plain value at " + prm.origin_path));
      }
    Correlation c = parse_correlation(g, at, m_params, grouped, file, pinned);
    grouped.insert(c.names.begin(), c.names.end());
    for (std::size_t k = c.names.size(); k-- > 0;)
      if (pinned(c.names[k])) drop_from(c, k);
    if (c.names.size() > 1) added.push_back(std::move(c));
  }
  m_correlations.insert(m_correlations.end(), added.begin(), added.end());
}

std::string Profile::markdown(const std::function<std::string(const Param&)>& meaning) const {
  std::string s =
      "| parameter | value | unit | interval | range | provenance | meaning |\n|---|---|---|---|---|---|---|\n";
  for (const auto& [name, p] : m_params) {
    const std::string value = p.is_text() ? p.text : fmt::format("{:g}", p.value);
    const std::string range = p.is_text() ? "" : fmt::format("[{:g}, {:g}]", p.min, p.max);
    std::string interval = p.has_interval ? fmt::format("[{:g}, {:g}]", p.lo, p.hi) : p.is_text() ? "" : "fixed";
    if (!p.shared.empty()) interval += fmt::format(" × `{}`", p.shared);
    std::string doc = meaning ? meaning(p) : "";
    if (doc.empty()) doc = p.doc;
    s += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} |\n", name, markdown_cell(value), p.unit, interval, range,
                     markdown_cell(p.provenance), markdown_cell(doc));
  }
  // Each correlated group: the correlation of log(value) between its parameters, which
  // uncertainty runs draw together.
  for (const Correlation& g : m_correlations)
    s += "\nDrawn together (correlation of log(value)); " + g.provenance + "\n\n" +
         correlation_markdown(g.names, g.matrix);
  return s;
}

}  // namespace qcesim::model
