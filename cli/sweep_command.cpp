#include "cli/sweep_command.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <memory>
#include <ostream>
#include <set>
#include <spdlog/fmt/fmt.h>

#include "cli/output_file.h"
#include "cli/plot.h"
#include "cli/report_html.h"
#include "cli/run_command.h"
#include "studies/sweep_journal.h"
#include "studies/sweep_results.h"
#include "model/config_error.h"
#include "studies/replay.h"
#include "studies/scenario.h"
#include "studies/sweep.h"

namespace qcesim::cli {

using nlohmann::json;

// The axis titles in words with units: the metric's, and the x axis' (a profile parameter's doc
// line and unit from the sweep's first point, a workload key's meaning; zipped axes all of theirs).
void label_axes(PlotSpec& plot, const studies::Sweep& s) {
  const studies::Scenario sc = s.scenario_at(s.points().front());
  const model::Profile profile = sc.profile_for(sc.variants.front());
  plot.y_label = studies::sweep_metric_label(plot.y);
  plot.x_label.clear();
  if (s.zip && s.axes.size() > 1) {
    for (const auto& a : s.axes)
      plot.x_label += (plot.x_label.empty() ? "" : " / ") + studies::sweep_axis_label(a.path, profile);
  } else {
    plot.x_label = studies::sweep_axis_label(plot.x, profile);
  }
}

// The chart's options (flags over the sweep file's defaults), checked before anything runs.
namespace {

// Whether an executable of that name is on PATH (as execlp will look for it).
bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    if (access((dir + "/" + program).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

PlotSpec plot_spec(const SweepOptions& opt, const studies::Sweep& s, const std::vector<std::string>& axis_paths) {
  PlotSpec plot;
  plot.file = opt.plot;
  plot.x = opt.x.empty() ? s.plot.x : opt.x;
  plot.y = opt.y.empty() ? s.plot.y : opt.y;
  plot.log_x = opt.log_x || (opt.x.empty() && s.plot.log_x);
  plot.log_y = opt.log_y || (opt.y.empty() && s.plot.log_y);
  plot.title = opt.x.empty() && opt.y.empty() ? s.plot.title : "";
  plot.zip = s.zip;
  if (plot.file.empty()) return plot;
  label_axes(plot, s);
  if (std::find(axis_paths.begin(), axis_paths.end(), plot.x) == axis_paths.end())
    throw model::ConfigError(opt.x.empty() ? opt.file : "--x", opt.x.empty() ? "/plot/x" : "",
                             "one of the sweep's axis paths", model::quoted_input(plot.x));
  const auto& names = studies::sweep_metric_names();
  if (std::find(names.begin(), names.end(), plot.y) == names.end())
    throw model::ConfigError(opt.y.empty() ? opt.file : "--y", opt.y.empty() ? "/plot/y" : "",
                             "a metric name (docs/sweep.md#metrics)", model::quoted_input(plot.y));
  check_output("--plot", plot.file);
  // A PNG is gnuplot's to draw: said now, not after every run.
  if (std::filesystem::path(plot.file).extension() == ".png" && !on_path("gnuplot"))
    throw model::ConfigError("--plot", "", "gnuplot on PATH for a .png chart (an .svg is drawn without it)",
                             "no gnuplot: run scripts/setup.sh (package gnuplot-nox)");
  return plot;
}

namespace {

// Every output is a regular file (or a new name) under the prefix, and none of the files read
// (the default prefix is the sweep's name: run in its own folder, it would be its own file).
void check_sweep_outputs(const std::string& prefix, const std::vector<std::string>& inputs) {
  for (const std::string& f : {prefix + ".csv", prefix + ".json", prefix + ".journal.jsonl"}) {
    if (check_output("--out", f) != OutputKind::replace)
      throw model::ConfigError("--out", "",
                               "a prefix for regular files (PREFIX.csv, PREFIX.json, PREFIX.journal.jsonl)", f);
    refuse_input("--out", f, inputs);
  }
}

// The files a sweep reads: its definition, its scenario, the scenario's profile, shards to merge.
std::vector<std::string> sweep_inputs(const SweepOptions& opt, const studies::Sweep& s) {
  std::vector<std::string> in = {opt.file, s.scenario_file};
  try {
    in.push_back(s.scenario_profile());
  } catch (const model::ConfigError&) {  // the points' own loads report it
  }
  in.insert(in.end(), opt.shards.merge.begin(), opt.shards.merge.end());
  return in;
}

std::string describe_point(const studies::Sweep& s, const studies::SweepPoint& p) {
  std::string d;
  for (std::size_t a = 0; a < s.axes.size(); ++a)
    d += fmt::format("{}{}={}", a ? " " : "", s.axes[a].path, model::json_text(p.values[a]));
  return d;
}

// Runs every (point, variant) the journal does not have, each in its own process, recording
// each as it ends, with progress on `err`. Returns how many failed.
std::size_t run_jobs(const studies::Sweep& s, studies::SweepJournal& journal, unsigned jobs, std::ostream& err,
                     const studies::ShardOptions& shard = {}) {
  struct Job {
    std::size_t point;
    std::string variant;
  };
  const std::vector<studies::SweepPoint> all = s.points();
  std::vector<studies::SweepPoint> points;  // this process's: all, or its shard's
  for (const auto& p : all)
    if (shard.count == 0 || p.index % shard.count == shard.index) points.push_back(p);
  std::vector<Job> todo;
  for (const auto& p : points)
    for (const auto& v : s.variants)
      if (!journal.has(p.index, v)) todo.push_back({p.index, v});
  const std::size_t total = points.size() * s.variants.size(), done_before = journal.done().size();
  err << fmt::format(
      "qcesim sweep: {} ({} points x {} variants = {} runs{}{}){}\n", s.name, points.size(), s.variants.size(), total,
      shard.count ? fmt::format(" of shard {}/{}", shard.index, shard.count) : "",
      done_before == 0 ? "" : fmt::format(", {} already done", done_before), s.timing_only ? ", timing only" : "");
  err.flush();
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t finished = 0, failed = 0;
  const bool ahead = studies::spare_core_per_run(todo.size(), jobs);
  studies::fork_each(
      todo.size(), jobs,
      [&](std::size_t i) {
        const studies::Scenario sc = s.scenario_at(all[todo[i].point]);
        return studies::run_variant(sc, sc.variant(todo[i].variant), s.timing_only, ahead).to_json();
      },
      [&](std::size_t i, const json& r) {
        ++finished;
        const Job& job = todo[i];
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double eta = elapsed / static_cast<double>(finished) * static_cast<double>(todo.size() - finished);
        const std::string what =
            fmt::format("[{}/{}] {} {}", done_before + finished, total, describe_point(s, all[job.point]), job.variant);
        if (r.contains("error")) {
          ++failed;
          err << fmt::format("{}: failed: {}\n", what, model::terminal_safe(r["error"].get<std::string>()));
        } else {
          journal.record(job.point, job.variant, r);
          const json m = studies::sweep_metrics(r);
          err << fmt::format("{}: {:.1f} us/request, CPU {:.1f} us/request (ETA {:.0f} s)\n", what,
                             m.value("us_per_request", 0.0), m.value("cpu_us_per_request", 0.0), eta);
        }
        err.flush();
      });
  return failed;
}

// Runs that failed stay out of the journal: says so and gives the exit status 2.
int report_failed(std::size_t failed, const studies::SweepJournal& journal, std::ostream& err) {
  err << fmt::format("{} run(s) failed; {} keeps the finished ones: run the same command again to retry\n", failed,
                     journal.file());
  return 2;
}

// A short table on stdout: the plotted metric and the per-request CPU split.
void print_rows(const studies::Sweep& s, const std::vector<json>& rows, std::ostream& out) {
  out << fmt::format("{:<36} {:<20} {:>12} {:>12} {:>10} {:>10} {:>10}\n", "point", "variant", "us/request",
                     "CPU us/req", "hardirq", "softirq", "MB/s");
  for (const json& r : rows) {
    std::string pt;
    for (const auto& a : s.axes) pt += (pt.empty() ? "" : " ") + model::json_text(r["values"][a.path]);
    const json& m = r["metrics"];
    out << fmt::format("{:<36} {:<20} {:>12.2f} {:>12.2f} {:>10.2f} {:>10.2f} {:>10.1f}\n", pt,
                       r["variant"].get<std::string>(), m.value("us_per_request", 0.0),
                       m.value("cpu_us_per_request", 0.0), m.value("hardirq_us_per_request", 0.0),
                       m.value("softirq_us_per_request", 0.0), m.value("mb_per_s", 0.0));
  }
}

void print_logca(const std::string& v, const json& lc, std::ostream& out) {
  if (!lc.contains("A")) return;
  auto size = [](const json& g) {
    return g.is_number() ? fmt::format("{:.0f} B", g.get<double>()) : std::string("none");
  };
  out << fmt::format("  {:<20} LogCA: C {:.3f} ns/B, L {:.3f} ns/B, A {:.2f}, o {:.1f} us -> g1 {}, g_A/2 {}{}\n", v,
                     lc["C_ns_per_byte"].get<double>(), lc["L_ns_per_byte"].get<double>(), lc["A"].get<double>(),
                     lc["o_us"].get<double>(), size(lc["g1_bytes"]), size(lc["g_half_bytes"]),
                     lc.contains("note") ? " (" + lc["note"].get<std::string>() + ")" : "");
}

void print_break_even_variants(const json& be, std::ostream& out) {
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
    print_logca(v, per["logca"], out);
  }
}

void print_break_even(const json& be, std::ostream& out) {
  out << fmt::format("\nbreak-even along {} against {}:\n", be.value("axis", ""), be.value("host", ""));
  if (!be.contains("groups")) return print_break_even_variants(be, out);
  for (const json& g : be["groups"]) {
    std::string at;
    for (const auto& [path, v] : g["at"].items()) at += (at.empty() ? "" : ", ") + path + " = " + v.dump();
    out << " at " << at << ":\n";
    print_break_even_variants(g, out);
  }
}

// The report's page: the sweep's JSON, the charts it shows (the file's own chart, then latency and
// CPU time per request, each against the file's x axis, break-even points marked) and the texts.
SweepPage report_page(const studies::Sweep& s, const SweepOptions& opt, const std::vector<std::string>& axis_paths,
                      const std::vector<json>& rows, const json& doc, const std::string& table,
                      const std::string& analysis) {
  SweepPage page{doc, opt.version, {}, analysis, table};
  SweepOptions chart_opt = opt;
  chart_opt.plot.clear();
  PlotSpec spec = plot_spec(chart_opt, s, axis_paths);
  label_axes(spec, s);
  std::vector<std::string> metrics;
  for (const std::string& m : {spec.y, std::string("us_per_request"), std::string("cpu_us_per_request")})
    if (std::find(metrics.begin(), metrics.end(), m) == metrics.end()) metrics.push_back(m);
  const json crossings =
      doc.value("analysis", json::object()).value("break_even", json::object()).value("variants", json::object());
  for (const std::string& m : metrics) {
    PlotSpec c = spec;
    c.y = m;
    c.y_label = studies::sweep_metric_label(m);
    if (m != spec.y) c.title.clear();
    LineChart chart;
    try {
      chart = sweep_chart(c, axis_paths, s.variants, rows);
    } catch (const std::invalid_argument&) {
      continue;  // no row has this metric
    }
    // Where a variant's curve crosses the host's on this metric.
    for (const auto& [variant, by_metric] : crossings.items())
      if (by_metric.contains(m) && by_metric[m].value("x", json()).is_number())
        chart.markers.push_back({by_metric[m]["x"].get<double>(),
                                 fmt::format("{} crosses at {:.0f}", variant, by_metric[m]["x"].get<double>())});
    const std::string caption = chart.y_title + ", one " + (chart.categories.empty() ? "line" : "bar") +
                                " per variant" + (s.axes.size() > 1 && !s.zip ? " and other axis value" : "");
    page.charts.emplace_back(std::move(chart), caption);
  }
  return page;
}

}  // namespace

int run_sweep(const SweepOptions& opt, std::ostream& out, std::ostream& err) {
  const studies::Sweep s = studies::Sweep::load(opt.file, opt.sets);
  std::vector<std::string> axis_paths;
  for (const auto& a : s.axes) axis_paths.push_back(a.path);
  const PlotSpec plot = plot_spec(opt, s, axis_paths);
  const std::vector<std::string> inputs = sweep_inputs(opt, s);
  if (!plot.file.empty()) refuse_input("--plot", plot.file, inputs);
  if (!opt.report.empty()) {
    check_output("--report", opt.report);
    refuse_input("--report", opt.report, inputs);
  }
  studies::ShardOptions shard;
  json shard_doc;
  apply_shard_options(opt.shards, shard, shard_doc);
  if (shard.count) {
    // One shard: its runs to --shard-out, resumable through a journal beside it.
    if (!opt.plot.empty())
      throw model::ConfigError("--plot", "", "no chart with --shard (the merge draws it)", opt.plot);
    if (!opt.report.empty())
      throw model::ConfigError("--report", "", "no report with --shard (the merge writes it)", opt.report);
    const std::string journal_file = opt.shards.shard_out + ".journal.jsonl";
    if (check_output("--shard-out", journal_file) != OutputKind::replace)
      throw model::ConfigError("--shard-out", "", "a regular file name (FILE and FILE.journal.jsonl)", journal_file);
    refuse_input("--shard-out", journal_file, inputs);
    refuse_input("--shard-out", opt.shards.shard_out, inputs);
    studies::SweepJournal journal(journal_file, s, opt.fresh);
    const std::size_t failed = run_jobs(s, journal, opt.jobs, err, shard);
    if (failed) return report_failed(failed, journal, err);
    shard_doc = studies::sweep_shard_document(s, shard.index, shard.count, journal.done());
    write_shard(opt.shards, shard, shard_doc, err, "runs");
    journal.remove();
    return 0;
  }
  const std::string prefix = opt.out.empty() ? s.name : opt.out;
  check_sweep_outputs(prefix, inputs);
  const bool merged = !shard.merge.empty();
  std::unique_ptr<studies::SweepJournal> journal;
  std::size_t failed = 0;
  std::map<std::string, json> done;
  std::vector<std::string> missing;  // a partial merge's runs that no shard file had
  const std::size_t n_points = s.points().size();
  const std::size_t total = n_points * s.variants.size();
  if (opt.partial && !merged) throw model::ConfigError("--partial", "", "--merge with it", "no --merge");
  if (merged) {
    done = studies::merge_sweep_shards(s, shard.merge, shard.merge_files);
    for (std::size_t p = 0; p < n_points; ++p)
      for (const std::string& v : s.variants)
        if (const std::string id = studies::sweep_job_id(p, v); !done.count(id)) missing.push_back(id);
    if (!missing.empty() && !opt.partial)
      throw model::ConfigError(
          "--merge", "", fmt::format("every run of the sweep ({}; --partial merges what is there and says so)", total),
          fmt::format("{} missing, the first {}", missing.size(), missing.front()));
  } else {
    journal = std::make_unique<studies::SweepJournal>(prefix + ".journal.jsonl", s, opt.fresh);
    failed = run_jobs(s, *journal, opt.jobs, err);
    done = journal->done();
  }

  const std::vector<json> rows = studies::sweep_rows(s, done);
  const json analysis = studies::sweep_analysis(s, rows);
  json doc = studies::sweep_document(s, rows, analysis);
  std::string csv = studies::sweep_csv(s, rows);
  PlotSpec chart = plot;
  if (!missing.empty()) {
    // Said where each output's reader will see it: a CSV comment line first, a JSON key, the
    // table's first line, the chart's title.
    std::string list;
    for (const std::string& id : missing) list += (list.empty() ? "" : " ") + id;
    const std::string note = fmt::format("partial merge: {} of {} runs missing", missing.size(), total);
    csv = "# " + note + ": " + list + "\n" + csv;
    doc["partial"] = {{"missing", missing}, {"runs", total}};
    out << note << " (" << list << ")\n";
    chart.title = (chart.title.empty() ? s.name : chart.title) + " (" + note + ")";
  }
  if (!opt.report_only) {
    write_output("--out", prefix + ".csv", csv);
    write_output("--out", prefix + ".json", model::json_output(doc, 1) + "\n");
  }
  std::ostringstream table, breaks;
  print_rows(s, rows, table);
  if (analysis.contains("break_even")) print_break_even(analysis["break_even"], breaks);
  if (!opt.report_only) out << table.str() << breaks.str();
  out.flush();
  if (!opt.report.empty()) {
    write_output("--report", opt.report,
                 sweep_report_html(report_page(s, opt, axis_paths, rows, doc, table.str(), breaks.str())));
    err << "wrote " << opt.report << "\n";
  }
  if (!plot.file.empty()) {
    plot_svg(chart, axis_paths, s.variants, rows);
    err << "wrote " << plot.file << "\n";
  }
  if (!opt.report_only)
    err << fmt::format("wrote {}.csv and {}.json ({} of {} runs)\n", prefix, prefix, rows.size(), total);
  if (failed) return report_failed(failed, *journal, err);
  if (journal) journal->remove();
  return 0;
}

}  // namespace qcesim::cli
