#include "cli/sweep_command.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <spdlog/fmt/fmt.h>

#include "cli/output_file.h"
#include "cli/plot.h"
#include "cli/run_command.h"
#include "model/config_error.h"
#include "studies/replay.h"
#include "studies/scenario.h"
#include "studies/sweep.h"

namespace qcesim::cli {

using nlohmann::json;

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

struct Job {
  std::size_t point;
  std::string variant;
};

std::string job_id(std::size_t point, const std::string& variant) { return fmt::format("{}/{}", point, variant); }

}  // namespace

// The chart's options (flags over the sweep file's defaults), checked before anything runs.
PlotSpec plot_spec(const SweepOptions& opt, const model::Sweep& s, const std::vector<std::string>& axis_paths) {
  PlotSpec plot;
  plot.file = opt.plot;
  plot.x = opt.x.empty() ? s.plot.x : opt.x;
  plot.y = opt.y.empty() ? s.plot.y : opt.y;
  plot.log_x = opt.log_x || (opt.x.empty() && s.plot.log_x);
  plot.log_y = opt.log_y || (opt.y.empty() && s.plot.log_y);
  plot.title = opt.x.empty() && opt.y.empty() ? s.plot.title : "";
  plot.zip = s.zip;
  if (plot.file.empty()) return plot;
  const model::Scenario sc = model::Scenario::load(s.scenario_file, s.sets_for(s.points().front()));
  const model::Profile profile = sc.profile_for(sc.variants.front());
  plot.y_label = model::sweep_metric_label(plot.y);
  if (s.zip && s.axes.size() > 1) {
    for (const auto& a : s.axes) plot.x_label += (plot.x_label.empty() ? "" : " / ") + model::sweep_axis_label(a.path, profile);
  } else {
    plot.x_label = model::sweep_axis_label(plot.x, profile);
  }
  if (std::find(axis_paths.begin(), axis_paths.end(), plot.x) == axis_paths.end())
    throw model::ConfigError(opt.x.empty() ? opt.file : "--x", opt.x.empty() ? "/plot/x" : "", "one of the sweep's axis paths",
                             model::quoted_input(plot.x));
  const auto& names = model::sweep_metric_names();
  if (std::find(names.begin(), names.end(), plot.y) == names.end())
    throw model::ConfigError(opt.y.empty() ? opt.file : "--y", opt.y.empty() ? "/plot/y" : "", "a metric name (docs/sweep.md#metrics)",
                             model::quoted_input(plot.y));
  check_output("--plot", plot.file);
  return plot;
}

// Resume: the journal's first line names the definition it belongs to; then one line per
// finished run. A line cut short by an interruption is ignored (that run is redone).
std::map<std::string, json> read_journal(const std::string& journal, const std::string& key) {
  std::map<std::string, json> done;
  std::ifstream in(journal);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    json j;
    try {
      j = json::parse(line);
    } catch (const json::exception&) {
      continue;
    }
    if (first) {
      first = false;
      if (!j.is_object() || j.value("key", "") != key)
        throw model::ConfigError(journal, "/key", "the journal of this sweep definition (" + key + ")",
                                 "one from a different definition or profile: rerun with --fresh to discard it");
      continue;
    }
    if (j.is_object() && j.contains("point") && j["point"].is_number_unsigned() && j.contains("variant") &&
        j["variant"].is_string() && j.contains("result") && j["result"].is_object())
      done[job_id(j["point"], j["variant"])] = j["result"];
  }
  return done;
}

int run_sweep(const SweepOptions& opt, std::ostream& out, std::ostream& err) {
  const model::Sweep s = model::Sweep::load(opt.file, opt.sets);
  const std::vector<std::string>& variants = s.variants;
  const std::vector<model::SweepPoint> points = s.points();
  std::vector<std::string> axis_paths;
  for (const auto& a : s.axes) axis_paths.push_back(a.path);
  const PlotSpec plot = plot_spec(opt, s, axis_paths);
  const std::string prefix = opt.out.empty() ? s.name : opt.out;
  const std::string journal = prefix + ".journal.jsonl";
  for (const std::string& f : {prefix + ".csv", prefix + ".json", journal})
    if (check_output("--out", f) != OutputKind::replace)
      throw model::ConfigError("--out", "", "a prefix for regular files (PREFIX.csv, PREFIX.json, PREFIX.journal.jsonl)", f);
  const std::string key = s.key();

  if (opt.fresh) std::filesystem::remove(journal);
  std::map<std::string, json> done;
  if (std::filesystem::exists(journal)) done = read_journal(journal, key);
  if (!std::filesystem::exists(journal)) {
    std::ofstream j(journal);
    if (!j) throw std::runtime_error("cannot write " + journal);
    j << json{{"key", key}, {"sweep", s.name}}.dump() << "\n";
  }
  std::ofstream journal_out(journal, std::ios::app);

  std::vector<Job> todo;
  for (const auto& p : points)
    for (const auto& v : variants)
      if (!done.count(job_id(p.index, v))) todo.push_back({p.index, v});
  const std::size_t total = points.size() * variants.size();
  err << fmt::format("qcesim sweep: {} ({} points x {} variants = {} runs{}){}\n", s.name, points.size(), variants.size(),
                     total, done.empty() ? "" : fmt::format(", {} already done", done.size()),
                     s.timing_only ? ", timing only" : "");
  err.flush();

  auto describe_point = [&](std::size_t i) {
    std::string d;
    for (std::size_t a = 0; a < s.axes.size(); ++a)
      d += fmt::format("{}{}={}", a ? " " : "", s.axes[a].path, model::json_text(points[i].values[a]));
    return d;
  };
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t done_before = done.size();
  std::size_t finished = 0, failed = 0;
  const bool ahead = studies::spare_core_per_run(todo.size(), opt.jobs);
  studies::fork_each(
      todo.size(), opt.jobs,
      [&](std::size_t i) {
        const model::Scenario sc = model::Scenario::load(s.scenario_file, s.sets_for(points[todo[i].point]));
        return model::run_variant(sc, sc.variant(todo[i].variant), s.timing_only, ahead).to_json();
      },
      [&](std::size_t i, const json& r) {
        ++finished;
        const Job& job = todo[i];
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double eta = elapsed / static_cast<double>(finished) * static_cast<double>(todo.size() - finished);
        if (r.contains("error")) {
          ++failed;
          err << fmt::format("[{}/{}] {} {}: failed: {}\n", done_before + finished, total, describe_point(job.point),
                             job.variant, r["error"].get<std::string>());
        } else {
          done[job_id(job.point, job.variant)] = r;
          journal_out << json{{"point", job.point}, {"variant", job.variant}, {"result", r}}.dump() << "\n";
          journal_out.flush();
          const json m = model::sweep_metrics(r);
          err << fmt::format("[{}/{}] {} {}: {:.1f} us/request, CPU {:.1f} us/request (ETA {:.0f} s)\n",
                             done_before + finished, total, describe_point(job.point), job.variant,
                             m.value("us_per_request", 0.0), m.value("cpu_us_per_request", 0.0), eta);
        }
        err.flush();
      });

  // Rows in point order, variants in the sweep's order.
  std::vector<json> rows;
  for (const auto& p : points) {
    for (const auto& v : variants) {
      auto it = done.find(job_id(p.index, v));
      if (it == done.end()) continue;
      json values = json::object();
      for (std::size_t a = 0; a < s.axes.size(); ++a) values[s.axes[a].path] = p.values[a];
      rows.push_back({{"point", p.index}, {"values", values}, {"variant", v}, {"metrics", model::sweep_metrics(it->second)},
                      {"result", it->second}});
    }
  }

  // CSV: one row per (point, variant).
  std::string csv = "point";
  for (const auto& a : s.axes) csv += "," + csv_field(a.path);
  csv += ",variant";
  for (const auto& m : model::sweep_metric_names()) csv += "," + m;
  csv += "\n";
  for (const json& r : rows) {
    csv += std::to_string(r["point"].get<std::size_t>());
    for (const auto& a : s.axes) csv += "," + csv_field(model::json_text(r["values"][a.path]));
    csv += "," + csv_field(r["variant"]);
    for (const auto& m : model::sweep_metric_names()) {
      const json& mv = r["metrics"];
      csv += ",";
      if (mv.contains(m)) csv += mv[m].is_number_float() ? fmt::format("{:.9g}", mv[m].get<double>()) : mv[m].dump();
    }
    csv += "\n";
  }

  json analysis = json::object();
  if (s.analysis.contains("break_even")) analysis["break_even"] = model::break_even(s, rows);

  json doc = {{"sweep", s.name}, {"about", s.about}, {"scenario", s.scenario_file}, {"timing_only", s.timing_only},
              {"axes", json::array()}, {"variants", variants}, {"rows", json::array()}, {"analysis", analysis},
              {"complete", rows.size() == total}};
  for (const auto& a : s.axes) doc["axes"].push_back(a.path);
  for (const json& r : rows) {
    json row = r;
    row["result"].erase("profile");  // per-function detail stays in the journal-free run output
    doc["rows"].push_back(row);
  }
  write_output("--out", prefix + ".csv", csv);
  write_output("--out", prefix + ".json", doc.dump(1) + "\n");

  // A short table on stdout: the plotted metric and the per-request CPU split.
  out << fmt::format("{:<36} {:<20} {:>12} {:>12} {:>10} {:>10} {:>10}\n", "point", "variant", "us/request", "CPU us/req",
                     "hardirq", "softirq", "MB/s");
  for (const json& r : rows) {
    std::string pt;
    for (const auto& a : s.axes) pt += (pt.empty() ? "" : " ") + model::json_text(r["values"][a.path]);
    const json& m = r["metrics"];
    out << fmt::format("{:<36} {:<20} {:>12.2f} {:>12.2f} {:>10.2f} {:>10.2f} {:>10.1f}\n", pt, r["variant"].get<std::string>(),
                       m.value("us_per_request", 0.0), m.value("cpu_us_per_request", 0.0),
                       m.value("hardirq_us_per_request", 0.0), m.value("softirq_us_per_request", 0.0),
                       m.value("mb_per_s", 0.0));
  }
  if (analysis.contains("break_even")) {
    const json& be = analysis["break_even"];
    out << fmt::format("\nbreak-even along {} against {}:\n", be.value("axis", ""), be.value("host", ""));
    if (be.contains("error")) out << "  " << be["error"].get<std::string>() << "\n";
    const json per_variant = be.contains("variants") ? be["variants"] : json::object();
    for (const auto& [v, per] : per_variant.items()) {
      for (const auto& [metric, e] : per.items()) {
        if (metric == "logca") continue;
        if (e.contains("x") && e["x"].is_number()) {
          out << fmt::format("  {:<20} {:<20} crosses at {:.0f} (offload lower {})\n", v, metric, e["x"].get<double>(),
                             e.value("offload_wins", ""));
        } else {
          out << fmt::format("  {:<20} {:<20} {}\n", v, metric, e.value("note", "no crossing"));
        }
      }
      const json& lc = per["logca"];
      if (lc.contains("A")) {
        auto size = [](const json& g) { return g.is_number() ? fmt::format("{:.0f} B", g.get<double>()) : std::string("none"); };
        out << fmt::format("  {:<20} LogCA: C {:.3f} ns/B, L {:.3f} ns/B, A {:.2f}, o {:.1f} us -> g1 {}, g_A/2 {}{}\n", v,
                           lc["C_ns_per_byte"].get<double>(), lc["L_ns_per_byte"].get<double>(), lc["A"].get<double>(),
                           lc["o_us"].get<double>(), size(lc["g1_bytes"]), size(lc["g_half_bytes"]),
                           lc.contains("note") ? " (" + lc["note"].get<std::string>() + ")" : "");
      }
    }
  }
  out.flush();

  if (!plot.file.empty()) {
    plot_svg(plot, axis_paths, variants, rows);
    err << "wrote " << plot.file << "\n";
  }
  err << fmt::format("wrote {}.csv and {}.json ({} of {} runs)\n", prefix, prefix, rows.size(), total);
  if (failed) {
    err << fmt::format("{} run(s) failed; {} keeps the finished ones: run the same command again to retry\n", failed, journal);
    return 2;
  }
  journal_out.close();
  std::filesystem::remove(journal);
  return 0;
}

}  // namespace qcesim::cli
