#include "cli/report_html.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "cli/flamegraph.h"
#include "cli/markup.h"
#include "cli/report_timeline.h"
#include "cli/run_command.h"
#include "cli/svg_chart.h"
#include "studies/mechanisms.h"
#include "studies/scenario.h"

namespace qcesim::cli {

using nlohmann::json;

namespace {

// No script, no load of anything: the page is complete as it is.
const char* const kHead = R"HTML(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="color-scheme" content="light">
)HTML";

const char* const kStyle = R"CSS(<style>
:root { --ink: #1a1a1a; --muted: #555; --rule: #d0d0d0; --good: #1b7a3d; --fair: #8a5a00; --bad: #b3261e; }
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 0 16px 48px; max-width: 1100px; color: var(--ink); background: #fff;
       font: 16px/1.5 "DejaVu Sans", Verdana, sans-serif; }
h1 { font-size: 1.6em; margin: 0.8em 0 0.2em; }
h2 { font-size: 1.3em; margin: 1.6em 0 0.4em; border-bottom: 2px solid var(--rule); }
h3 { font-size: 1.05em; margin: 1.2em 0 0.3em; }
p, li { max-width: 75ch; }
.meta { color: var(--muted); font-size: 0.9em; }
nav ul { display: flex; flex-wrap: wrap; gap: 4px 16px; padding: 0; list-style: none; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 8px; border-bottom: 1px solid var(--rule); text-align: right; white-space: nowrap; }
th:first-child, td:first-child, td.l { text-align: left; }
thead th { border-bottom: 2px solid var(--muted); }
td.err-good { color: var(--good); } td.err-fair { color: var(--fair); } td.err-bad { color: var(--bad); font-weight: bold; }
.band { color: var(--muted); font-size: 0.85em; }
svg.chart { width: 100%; height: auto; max-width: 960px; display: block; }
.wide svg.chart { min-width: 720px; }
figure { margin: 1em 0; }
figcaption { color: var(--muted); font-size: 0.9em; }
details { margin: 0.6em 0; }
summary { cursor: pointer; font-weight: bold; }
.prov summary { font-weight: normal; }
.prov details { margin: 0; display: inline; }
pre { overflow-x: auto; font-size: 12px; line-height: 1.35; background: #f6f6f6; padding: 8px; }
.prov { font-size: 0.85em; color: var(--muted); white-space: normal; text-align: left; min-width: 24ch; }
.legend-note { font-size: 0.9em; }
</style>
)CSS";

std::string h(const std::string& s) { return xml_text(s); }

// Text for a <pre>: escaped, its line breaks kept.
std::string pre(const std::string& s) {
  std::string out;
  std::size_t i = 0;
  while (i <= s.size()) {
    const std::size_t j = std::min(s.find('\n', i), s.size());
    out += xml_text(s.substr(i, j - i));
    if (j < s.size()) out += '\n';
    i = j + 1;
  }
  return out;
}

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return "-";
  return fmt::format("{:.{}f}", v, digits);
}

// The error of a simulated value against a measured one, coloured by size: within 10 % good,
// within 25 % fair, else bad (a colour and a sign: readable without colour too).
std::string err_cell(double sim, double meas) {
  if (meas == 0) return std::fabs(sim) < 0.005 ? "<td class=\"err-good\">ok</td>" : "<td>n/a</td>";
  const double e = (sim - meas) / meas * 100;
  const char* cls = std::fabs(e) <= 10 ? "err-good" : std::fabs(e) <= 25 ? "err-fair" : "err-bad";
  return fmt::format("<td class=\"{}\" data-err=\"{}\">{:+.1f} %</td>", cls, e, e);
}

// A run's total (a count, or seconds times `scale`) per request.
double per_request(const json& v, const json& total, double scale = 1) {
  const double n = v.value("requests", 0.0);
  return n > 0 && total.is_number() ? total.get<double>() * scale / n : 0.0;
}

// A run's time, in µs per request: an output (wall_s, cpu_s...) or a mechanism's CPU time.
double per_request_us(const json& v, const char* key) { return per_request(v, v.value(key, json(0.0)), 1e6); }
double mechanism_us(const json& v, const std::string& mechanism) {
  return per_request(v, v.value("cpu_by_mechanism", json::object()).value(mechanism, json(0.0)), 1e6);
}

// The mechanisms (studies/mechanisms.h) as (JSON key, label), in the table's order.
const std::vector<std::pair<std::string, std::string>>& mechanisms() {
  static const std::vector<std::pair<std::string, std::string>> list = {
#define QCESIM_REPORT_MECH(A, name, label, meaning) {#name, label},
      QCESIM_MECHANISMS(QCESIM_REPORT_MECH, _)
#undef QCESIM_REPORT_MECH
  };
  return list;
}

std::string section(const std::string& id, const std::string& title) {
  return fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n", id, h(title));
}

std::string figure(const std::string& svg, const std::string& caption, bool wide = false) {
  return fmt::format("<figure{}><div class=\"scroll\">{}</div><figcaption>{}</figcaption></figure>\n",
                     wide ? " class=\"wide\"" : "", svg, caption);
}

// The results table: simulated, measured and the error per output, with the 90 % interval of
// the profile's parameters under each simulated value when the report sampled them.
std::string results_section(const json& doc) {
  std::vector<std::pair<const char*, const char*>> outputs = {
      {"wall_s", "wall [s]"}, {"cpu_s", "CPU [s]"}, {"hardirq_s", "hardirq [s]"}, {"softirq_s", "softirq [s]"}};
  // What a board measures beyond the four (qcesim ingest): the measuring process's own CPU time
  // and the engine's interrupts per request get their measured columns where a variant has them.
  bool measured_task = false, measured_irqs = false;
  for (const json& v : doc["variants"]) {
    const json measured = v.value("measured", json::object());
    measured_task = measured_task || measured.contains("task_s");
    measured_irqs = measured_irqs || measured.contains(studies::kIrqsPerRequest);
  }
  if (measured_task) outputs.emplace_back("task_s", "task [s]");
  std::map<std::string, json> bands;
  if (doc.contains("uncertainty") && !doc["uncertainty"].is_null())
    for (const json& v : doc["uncertainty"]["variants"]) bands[v["name"]] = v["quantities"];
  std::string s = section("results", "Results");
  const json& w = doc["workload"];
  s += fmt::format(
      "<p>{} requests of {} bytes ({}), queue depth {}, per variant; each variant simulated in its own process. "
      "Simulated (sim) against measured (meas), the error in % (green within 10 %, amber within 25 %, red "
      "beyond).{}</p>\n",
      w["messages"].get<std::uint64_t>(), w["message_bytes"].get<std::uint64_t>(), h(w["algorithm"]),
      w["queue_depth"].get<unsigned>(),
      bands.empty() ? " Run with <code>--uncertainty N</code> for each output's 90 % interval."
                    : fmt::format(" Under each simulated value: its 90 % interval over {} samples of the profile's "
                                  "parameter intervals.",
                                  doc["uncertainty"]["samples"].get<std::size_t>()));
  s += "<div class=\"scroll\"><table class=\"results\">\n<thead><tr><th rowspan=\"2\">variant</th>";
  for (const auto& o : outputs) s += fmt::format("<th colspan=\"3\">{}</th>", o.second);
  s += "<th rowspan=\"2\">latency p50 [µs]</th>";
  s += measured_irqs ? "<th colspan=\"2\">interrupts per request</th></tr>\n<tr>"
                     : "<th rowspan=\"2\">interrupts per request</th></tr>\n<tr>";
  for (std::size_t k = 0; k < outputs.size(); ++k) s += "<th>sim</th><th>meas</th><th>err</th>";
  if (measured_irqs) s += "<th>sim</th><th>meas</th>";
  s += "</tr></thead>\n<tbody>\n";
  std::size_t i = 0;
  for (const json& v : doc["variants"]) {
    const std::string name = v["name"];
    s += fmt::format("<tr data-variant=\"{}\"><td>{}</td>", i, h(name));
    const json measured = v.value("measured", json::object());
    for (const auto& [key, heading] : outputs) {
      const double sim = v.value(key, 0.0);
      std::string band;
      if (bands.count(name) && bands[name].contains(key)) {
        const json& b = bands[name][key];
        band = fmt::format(
            "<br><span class=\"band\" data-field=\"{}.p05\" data-value=\"{}\">{}</span><span "
            "class=\"band\"> .. </span><span class=\"band\" data-field=\"{}.p95\" "
            "data-value=\"{}\">{}</span>",
            key, b["p05"].get<double>(), fixed(b["p05"], 3), key, b["p95"].get<double>(), fixed(b["p95"], 3));
      }
      s += fmt::format("<td><span data-field=\"{}\" data-value=\"{}\">{}</span>{}</td>", key, sim, fixed(sim, 3), band);
      if (measured.contains(key)) {
        const double m = measured[key];
        s += fmt::format("<td data-field=\"measured.{}\" data-value=\"{}\">{}</td>{}", key, m, fixed(m, 3),
                         err_cell(sim, m));
      } else {
        s += "<td>-</td><td>-</td>";
      }
    }
    const double p50 = v.contains("latency_us") ? v["latency_us"].value("p50", 0.0) : 0.0;
    const double irqs = v.value("requests", 0.0) > 0 ? v.value("irqs", 0.0) / v["requests"].get<double>() : 0.0;
    s += fmt::format("<td data-field=\"latency_us.p50\" data-value=\"{}\">{}</td><td>{}</td>", p50, fixed(p50, 1),
                     fixed(irqs, 2));
    if (measured_irqs) {
      if (measured.contains(studies::kIrqsPerRequest)) {
        const double m = measured[studies::kIrqsPerRequest];
        // A sign beside the colour, as the errors have: matches (within half an interrupt) or not.
        const bool match = studies::irqs_match(irqs, m);
        s += fmt::format("<td data-field=\"measured.irqs_per_request\" data-value=\"{}\" class=\"{}\">{} {}</td>", m,
                         match ? "err-good" : "err-bad", fixed(m, 2), match ? "✓" : "≠");
      } else {
        s += "<td>-</td>";
      }
    }
    s += "</tr>\n";
    ++i;
  }
  s += "</tbody></table></div>\n";
  if (doc.contains("measurement") && !doc["measurement"].get<std::string>().empty())
    s += "<p class=\"meta\">Measured: " + h(doc["measurement"]) + "</p>\n";
  return s + "</section>\n";
}

std::string timeline_section(const json& doc) {
  std::string s = section("timeline", "One request through the platform");
  s += fmt::format(
      "<p>Request {} of each variant, after the caches, the IOVA allocator and the queues have warmed up: one lane "
      "per core context and per piece of hardware that worked on it, in µs from the caller's submission. Point at "
      "a bar for its function, time and why. The band above names the phases: the CPU preparing and submitting, the "
      "BAM and the engine at work (the CPU is free to do other things or sleep), and the completion (interrupt, "
      "softirq, the driver's callback). Variants of comparable length share one time axis. The same events as "
      "<code>qcesim run --trace</code> (Perfetto).</p>\n",
      doc["request"].get<std::int64_t>());
  // One time axis for the variants whose requests take at least a tenth of the longest, so that
  // lock against no-lock compares by eye; a much shorter one (the CPU's) gets its own.
  double longest = 0;
  for (const auto& [name, tl] : doc["timelines"].items()) longest = std::max(longest, tl.value("duration_us", 0.0));
  for (const json& v : doc["variants"]) {
    const std::string name = v["name"];
    if (!doc["timelines"].contains(name)) continue;
    const json& tl = doc["timelines"][name];
    const double axis = tl.value("duration_us", 0.0) >= longest / 10 ? longest : 0.0;
    s += fmt::format("<h3>{}</h3>\n", h(name));
    s += figure(
        timeline_svg(tl, name + ": request " + std::to_string(doc["request"].get<std::int64_t>()), axis),
        fmt::format("{}: {} µs from submission to the last step of request {}; {} steps.", h(name),
                    fixed(tl.value("duration_us", 0.0), 1), doc["request"].get<std::int64_t>(), tl["spans"].size()),
        true);
  }
  return s + "</section>\n";
}

// Where each microsecond goes: per request, by context and by mechanism; the functions; the
// flame graph.
std::string where_section(const json& doc) {
  std::string s = section("where", "Where each microsecond goes");
  s += "<p>CPU time per request, split by the context it ran in (hardirq and softirq are what the kernel's "
       "<code>/proc/stat</code> counts apart), then by mechanism (each kernel function belongs to one), then "
       "the functions themselves. Wall time beyond the CPU's is waiting: for the engine, the BAM, the "
       "interrupt.</p>\n";
  BarChart ctx;
  ctx.title = "CPU time per request by context";
  ctx.axis = "µs per request";
  ctx.series = {"task", "hardirq", "softirq", "kworker", "ksoftirqd"};
  BarChart wall;
  wall.title = "Wall time per request: CPU and waiting";
  wall.axis = "µs per request";
  wall.series = {"CPU (all contexts)", "waiting (no CPU time of this request)"};
  wall.colours = {0, 7};
  for (const json& v : doc["variants"]) {
    ctx.rows.push_back(v["name"]);
    ctx.values.push_back({per_request_us(v, "task_s"), per_request_us(v, "hardirq_s"), per_request_us(v, "softirq_s"),
                          per_request_us(v, "kworker_s"), per_request_us(v, "ksoftirqd_s")});
    wall.rows.push_back(v["name"]);
    const double cpu = per_request_us(v, "cpu_s"), wl = per_request_us(v, "wall_s");
    wall.values.push_back({std::min(cpu, wl), std::max(wl - cpu, 0.0)});
  }
  s += figure(bar_chart_svg(wall),
              "Wall time per request: the share the CPU works on it, and the rest (with a queue depth above 1 the "
              "CPU time of overlapping requests can exceed the wall time; the bar then shows CPU only).");
  s += figure(bar_chart_svg(ctx),
              "CPU time per request by context, from the same accounting as "
              "<code>run --profile</code>.");
  BarChart mech;
  mech.title = "CPU time per request by mechanism";
  mech.axis = "µs per request";
  std::vector<std::pair<std::string, std::string>> used;
  for (const auto& [key, label] : mechanisms())
    for (const json& v : doc["variants"])
      if (mechanism_us(v, key) > 0) {
        used.emplace_back(key, label);
        break;
      }
  for (std::size_t k = 0; k < used.size(); ++k) mech.series.push_back(used[k].second);
  for (const json& v : doc["variants"]) {
    mech.rows.push_back(v["name"]);
    std::vector<double> row;
    row.reserve(used.size());
    for (const auto& [key, label] : used) row.push_back(mechanism_us(v, key));
    mech.values.push_back(row);
  }
  if (!used.empty())
    s += figure(bar_chart_svg(mech), "CPU time per request by mechanism (docs/run.md, cpu_by_mechanism).");

  // By function: the seven functions with the most CPU time over all variants, then the rest. The
  // profile's `idle` entries (an interrupt's entry and exit on an idle core) are not CPU time.
  auto cpu_profile = [](const json& v) {
    json out = json::array();
    for (const json& f : v.value("profile", json::array()))
      if (f.value("context", "") != "idle") out.push_back(f);
    return out;
  };
  std::map<std::string, double> total;
  for (const json& v : doc["variants"])
    for (const json& f : cpu_profile(v)) total[f["function"].get<std::string>()] += f.value("cpu_s", 0.0);
  std::vector<std::pair<double, std::string>> ranked;
  ranked.reserve(total.size());
  for (const auto& [name, sec] : total) ranked.emplace_back(-sec, name);
  std::sort(ranked.begin(), ranked.end());
  if (ranked.size() > 7) ranked.resize(7);
  BarChart fn;
  fn.title = "CPU time per request by function";
  fn.axis = "µs per request";
  for (const auto& [neg, name] : ranked) fn.series.push_back(name);
  fn.series.push_back("all other functions");
  fn.colours = {0, 1, 2, 3, 4, 5, 6, 7};
  for (const json& v : doc["variants"]) {
    std::vector<double> row(fn.series.size(), 0.0);
    for (const json& f : cpu_profile(v)) {
      const double us = per_request(v, f["cpu_s"], 1e6);
      const auto at = std::find(fn.series.begin(), fn.series.end() - 1, f["function"].get<std::string>());
      row[static_cast<std::size_t>(at - fn.series.begin())] += us;
    }
    fn.rows.push_back(v["name"]);
    fn.values.push_back(row);
  }
  if (!ranked.empty())
    s += figure(bar_chart_svg(fn),
                "CPU time per request by kernel function (all contexts): the seven with the most "
                "time over the variants, the rest together.");
  // The functions, and the flame graph, per variant.
  for (const json& v : doc["variants"]) {
    const std::string name = v["name"];
    const json prof = cpu_profile(v);
    if (prof.empty()) continue;
    s += fmt::format("<details><summary>{}: CPU time by function</summary>\n", h(name));
    s += "<div class=\"scroll\"><table><thead><tr><th>context</th><th>function</th><th>µs per request</th>"
         "<th>share of CPU</th></tr></thead><tbody>\n";
    const double cpu = v.value("cpu_s", 0.0);
    std::size_t shown = 0;
    for (const json& f : prof) {
      if (shown++ >= 25) break;
      const double sec = f["cpu_s"];
      s += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", h(f["context"]), h(f["function"]),
                       fixed(per_request(v, sec, 1e6), 3), cpu > 0 ? fixed(sec / cpu * 100, 1) + " %" : "-");
    }
    s += "</tbody></table></div>\n";
    // The same folded stacks as run --profile writes.
    const std::string folded = folded_stacks(studies::profile_from_json(prof));
    try {
      std::string svg = flamegraph_svg(folded, name, name + ": CPU time by context and function", "ns");
      svg.erase(0, svg.find("<svg"));
      svg.insert(4, " class=\"chart\" role=\"img\" aria-label=\"flame graph\"");
      s += figure(svg,
                  "The flame graph of the same accounting: each context at the bottom, its functions above, "
                  "as wide as their share (point at a frame for its time).",
                  true);
    } catch (const std::exception&) {
      // No positive time to draw (a run that did nothing): the table says so.
    }
    s += "</details>\n";
  }
  return s + "</section>\n";
}

// Lock against no-lock: each variant's difference to the compared one, per request, by mechanism.
std::string lock_section(const json& doc) {
  std::string s = section("lock", "What locking adds");
  const std::string base = doc.value("compare", "");
  const json* b = nullptr;
  for (const json& v : doc["variants"])
    if (v["name"] == base) b = &v;
  if (!b) {
    s += "<p>This scenario has no variant to compare with (<code>--compare NAME</code> picks one; by default the "
         "report compares a BAM-locked variant with the engine's variant without the lock).</p>\n";
    return s + "</section>\n";
  }
  s += fmt::format(
      "<p>Every other variant against <b>{}</b>, per request: the difference in wall, CPU, hardirq and softirq time, "
      "then the CPU difference by mechanism: where the added microseconds go. The part of the wall difference "
      "beyond the CPU's is time the request waits: for the BAM to fetch and run command elements and "
      "LOCK/UNLOCK descriptors, for the engine, for the lock.</p>\n",
      h(base));
  s += "<div class=\"scroll\"><table class=\"compare\"><thead><tr><th>variant</th><th>wall [µs]</th><th>CPU "
       "[µs]</th><th>hardirq [µs]</th><th>softirq [µs]</th><th>waiting [µs]</th><th>interrupts</th><th>BAM "
       "descriptors</th><th>lock pairs</th></tr></thead><tbody>\n";
  // Per request, this variant's minus the compared one's: µs of an output, or a count.
  const auto d_us = [b](const json& v, const char* k) { return per_request_us(v, k) - per_request_us(*b, k); };
  const auto d_count = [b](const json& v, const char* k) {
    return per_request(v, v.value(k, json(0))) - per_request(*b, b->value(k, json(0)));
  };
  std::size_t i = 0;
  for (const json& v : doc["variants"]) {
    ++i;
    if (&v == b) continue;
    const double dw = d_us(v, "wall_s"), dc = d_us(v, "cpu_s");
    s += fmt::format(
        "<tr data-variant=\"{}\"><td>{} &minus; {}</td><td data-field=\"delta.wall_us\" data-value=\"{}\">{:+.1f}</td>"
        "<td data-field=\"delta.cpu_us\" data-value=\"{}\">{:+.1f}</td><td>{:+.1f}</td><td>{:+.1f}</td><td>{:+.1f}</td>"
        "<td>{:+.2f}</td><td>{:+.2f}</td><td>{:+.2f}</td></tr>\n",
        i - 1, h(v["name"]), h(base), dw, dw, dc, dc, d_us(v, "hardirq_s"), d_us(v, "softirq_s"), dw - dc,
        d_count(v, "irqs"), d_count(v, "bam_descriptors"), d_count(v, "lock_pairs"));
  }
  s += "</tbody></table></div>\n";
  // A chart per locked variant (every other one when none locks).
  const bool any_locked = std::any_of(doc["variants"].begin(), doc["variants"].end(),
                                      [](const json& v) { return v.value("lock_pairs", 0) > 0; });
  for (const json& v : doc["variants"]) {
    if (&v == b || !v.contains("cpu_by_mechanism") || !b->contains("cpu_by_mechanism")) continue;
    if (any_locked && v.value("lock_pairs", 0) == 0) continue;
    BarChart d;
    d.title = v["name"].get<std::string>() + " minus " + base + ", per request";
    d.axis = "µs per request (difference)";
    d.series = {"difference"};
    d.colours = {1};
    for (const auto& [key, label] : mechanisms()) {
      const double dv = mechanism_us(v, key) - mechanism_us(*b, key);
      if (std::fabs(dv) < 0.05) continue;
      d.rows.push_back("CPU: " + label);
      d.values.push_back({dv});
    }
    const double dw = d_us(v, "wall_s"), dc = d_us(v, "cpu_s");
    d.rows.push_back("waiting (wall beyond CPU)");
    d.values.push_back({dw - dc});
    s += figure(bar_chart_svg(d), fmt::format("{} against {}: the CPU difference by mechanism and the waiting "
                                              "difference; together they make the wall difference ({:+.1f} µs).",
                                              h(v["name"]), h(base), dw));
  }
  return s + "</section>\n";
}

std::string explain_section(const json& doc) {
  std::string s = section("explain", "The request, step by step");
  s += "<p><code>qcesim explain</code>'s narration of the same request: every CPU and hardware step, its "
       "context, start, duration and why it happens, then the accounting that closes the request's wall and CPU "
       "time.</p>\n";
  bool first = true;
  for (const json& v : doc["variants"]) {
    const std::string name = v["name"];
    if (!doc["timelines"].contains(name)) continue;
    s += fmt::format("<details{}><summary>{}</summary>\n<pre>{}</pre>\n</details>\n", first ? " open" : "", h(name),
                     pre(doc["timelines"][name].value("narration", "")));
    first = false;
  }
  return s + "</section>\n";
}

// A provenance in a table cell: its kind (measured, derived, counted, calibrated, estimate...)
// in bold, its first sentence, the rest folded.
std::string provenance_cell(const std::string& text) {
  const auto colon = text.find(':');
  const std::string kind = colon < 24 ? text.substr(0, colon) : "";  // npos is larger
  const std::string rest = kind.empty() ? text : text.substr(colon + 1);
  auto cut = rest.find(". ");
  if (cut > 200) cut = model::utf8_prefix(rest, 160).size();  // npos too; never inside a character
  std::string s = kind.empty() ? "" : "<b>" + h(kind) + "</b>:";
  if (cut >= rest.size()) return s + h(rest);
  return s + "<details><summary>" + h(rest.substr(0, cut)) + " ...</summary>" + h(rest.substr(cut)) + "</details>";
}

std::string sensitivity_section(const json& doc) {
  std::string s = section("sensitivity", "What the result depends on");
  if (!doc.contains("sensitivity") || doc["sensitivity"].is_null()) {
    s += "<p>Not computed for this page: <code>qcesim report SCENARIO --sensitivity T</code> ranks the profile's "
         "parameters by their effect on each output (Morris screening over each parameter's interval, T "
         "trajectories), with each parameter's provenance: measured, derived, counted, fitted or guessed.</p>\n";
    return s + "</section>\n";
  }
  const json& sj = doc["sensitivity"];
  s += fmt::format(
      "<p>The parameters that move each output most, by Morris screening over the profile's intervals ({} "
      "parameters, {} runs): μ* is the mean absolute effect of moving one parameter across two thirds of its "
      "interval, as a share of the output; the sign says which way the output moves. A prediction is only worth "
      "what its most influential fitted or guessed value is.</p>\n",
      sj.value("parameters", 0), sj.value("runs", 0));
  const char* const outputs[][2] = {
      {"wall_s", "wall"}, {"cpu_s", "CPU"}, {"hardirq_s", "hardirq"}, {"softirq_s", "softirq"}};
  for (const json& v : sj["variants"]) {
    s += fmt::format(
        "<h3>{}</h3>\n<div class=\"scroll\"><table><thead><tr><th>output</th><th>parameter</th>"
        "<th>μ*</th><th>direction</th><th>value</th><th class=\"prov\">provenance</th></tr></thead>"
        "<tbody>\n",
        h(v["name"]));
    // The values in force for this variant (its overrides and the scenario's on the profile).
    const json params = doc.value("parameters", json::object()).value(v["name"].get<std::string>(), json::object());
    for (const auto& o : outputs) {
      if (!v["quantities"].contains(o[0])) continue;
      std::size_t k = 0;
      for (const json& e : v["quantities"][o[0]]) {
        if (k++ >= 4 || e["mu_star"].get<double>() <= 0) break;
        const std::string p = e["parameter"];
        std::string value = "-", prov = "-";
        if (params.contains(p)) {
          value = h(params[p].value("value", "")) + " " + h(params[p].value("unit", ""));
          prov = provenance_cell(params[p].value("provenance", ""));
        }
        s += fmt::format(
            "<tr><td>{}</td><td class=\"l\"><code>{}</code></td><td>{:.1f} %</td><td>{}</td><td>{}</td>"
            "<td class=\"prov\">{}</td></tr>\n",
            o[1], h(p), e["mu_star"].get<double>() * 100, e["mu"].get<double>() >= 0 ? "up" : "down", value, prov);
      }
    }
    s += "</tbody></table></div>\n";
  }
  return s + "</section>\n";
}

std::string html_page(const std::string& title, const std::string& nav, const std::string& body) {
  return std::string(kHead) + "<title>" + h(title) + "</title>\n" + kStyle + "</head>\n<body>\n<header>\n<h1>" +
         h(title) + "</h1>\n" + nav + "</header>\n<main>\n" + body + "</main>\n</body>\n</html>\n";
}

std::string summary(const json& doc) {
  std::string s = "<section id=\"summary\">\n";
  if (!doc.value("about", "").empty()) s += "<p>" + h(doc["about"]) + "</p>\n";
  s += fmt::format(
      "<p class=\"meta\">Scenario <code>{}</code> ({}), written by {}{}.</p>\n", h(doc["scenario"]),
      h(doc.value("file", "")), h(doc.value("version", "qcesim")),
      doc.value("sets", json::array()).empty() ? std::string() : ", with " + h(model::json_output(doc["sets"])));
  return s + "</section>\n";
}

}  // namespace

std::string scenario_report_html(const json& doc) {
  const std::string title = "qcesim report: " + doc["scenario"].get<std::string>();
  const std::string nav =
      "<nav aria-label=\"sections\"><ul><li><a href=\"#results\">Results</a></li><li><a href=\"#timeline\">One "
      "request</a></li><li><a href=\"#where\">Where the time goes</a></li><li><a href=\"#lock\">What locking "
      "adds</a></li><li><a href=\"#explain\">Step by step</a></li><li><a href=\"#sensitivity\">Sensitivity</a></li>"
      "</ul></nav>\n";
  std::string body = summary(doc) + results_section(doc) + timeline_section(doc) + where_section(doc) +
                     lock_section(doc) + explain_section(doc) + sensitivity_section(doc);
  return html_page(title, nav, body);
}

std::string sweep_report_html(const SweepPage& page) {
  const json& sw = page.sweep;
  const std::string title = "qcesim report: " + sw["sweep"].get<std::string>();
  std::string body = "<section id=\"summary\">\n";
  if (!sw.value("about", "").empty()) body += "<p>" + h(sw["about"]) + "</p>\n";
  body += fmt::format("<p class=\"meta\">Sweep <code>{}</code> over {}, written by {}.</p>\n</section>\n",
                      h(sw["sweep"]), h(model::json_output(sw["axes"])), h(page.version));
  // The charts: each metric against the x axis, a line per variant (and other axes' values).
  body += section("charts", "Charts");
  for (const auto& [chart, caption] : page.charts) body += figure(line_chart_svg(chart), h(caption));
  body += "</section>\n";
  body += section("analysis", "Break-even points and analysis");
  body +=
      "<p>Where each variant's curve crosses the host's (the CPU doing the work itself), from the sweep's "
      "analysis; LogCA's overhead, latency and acceleration from the same runs.</p>\n";
  body += "<pre>" + pre(page.analysis) + "</pre>\n</section>\n";
  body += section("table", "Every point");
  body += "<div class=\"scroll\"><pre>" + pre(page.table) + "</pre></div>\n</section>\n";
  const std::string nav =
      "<nav aria-label=\"sections\"><ul><li><a href=\"#charts\">Charts</a></li><li><a href=\"#analysis\">Break-even"
      "</a></li><li><a href=\"#table\">Every point</a></li></ul></nav>\n";
  return html_page(title, nav, body);
}

}  // namespace qcesim::cli
