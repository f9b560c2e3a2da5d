#include "studies/sweep_results.h"

#include <spdlog/fmt/fmt.h>

#include "studies/sweep_journal.h"

namespace qcesim::studies {

using nlohmann::json;

namespace {

// RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// Text (a name, a string value): one that a spreadsheet would take for a formula (= + - @, or a
// tab or carriage return first: "=HYPERLINK(...)" in a sweep's values) gets a leading ' , which
// spreadsheets show as text and do not evaluate (OWASP's advice for CSV injection).
std::string csv_text(const std::string& s) {
  if (!s.empty() && std::string("=+-@\t\r").find(s[0]) != std::string::npos) return csv_field("'" + s);
  return csv_field(s);
}

}  // namespace

std::vector<json> sweep_rows(const studies::Sweep& s, const std::map<std::string, json>& done) {
  std::vector<json> rows;
  for (const auto& p : s.points()) {
    for (const auto& v : s.variants) {
      auto it = done.find(sweep_job_id(p.index, v));
      if (it == done.end()) continue;
      json values = json::object();
      for (std::size_t a = 0; a < s.axes.size(); ++a) values[s.axes[a].path] = p.values[a];
      rows.push_back({{"point", p.index},
                      {"values", values},
                      {"variant", v},
                      {"metrics", studies::sweep_metrics(it->second)},
                      {"result", it->second}});
    }
  }
  return rows;
}

std::string sweep_csv(const studies::Sweep& s, const std::vector<json>& rows) {
  std::string csv = "point";
  for (const auto& a : s.axes) csv += "," + csv_text(a.path);
  csv += ",variant";
  for (const auto& m : studies::sweep_metric_names()) csv += "," + m;
  csv += "\n";
  for (const json& r : rows) {
    csv += std::to_string(r["point"].get<std::size_t>());
    for (const auto& a : s.axes) {
      const json& v = r["values"][a.path];
      csv += "," + (v.is_string() ? csv_text(v.get<std::string>()) : csv_field(model::json_text(v)));
    }
    csv += "," + csv_text(r["variant"]);
    for (const auto& m : studies::sweep_metric_names()) {
      const json& mv = r["metrics"];
      csv += ",";
      if (mv.contains(m)) csv += mv[m].is_number_float() ? fmt::format("{:.9g}", mv[m].get<double>()) : mv[m].dump();
    }
    csv += "\n";
  }
  return csv;
}

json sweep_analysis(const studies::Sweep& s, const std::vector<json>& rows) {
  json analysis = json::object();
  if (s.analysis.contains("break_even")) analysis["break_even"] = studies::break_even(s, rows);
  return analysis;
}

json sweep_document(const studies::Sweep& s, const std::vector<json>& rows, const json& analysis) {
  const std::size_t total = s.points().size() * s.variants.size();
  json doc = {{"sweep", s.name},
              {"about", s.about},
              {"scenario", s.scenario_file},
              {"timing_only", s.timing_only},
              {"axes", json::array()},
              {"variants", s.variants},
              {"rows", json::array()},
              {"analysis", analysis},
              {"complete", rows.size() == total}};
  for (const auto& a : s.axes) doc["axes"].push_back(a.path);
  for (const json& r : rows) {
    json row = r;
    row["result"].erase("profile");  // per-function detail stays in the journal-free run output
    doc["rows"].push_back(row);
  }
  return doc;
}

}  // namespace qcesim::studies
