#include "cli/report_timeline.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "cli/markup.h"
#include "cli/svg_chart.h"

namespace qcesim::cli {

using nlohmann::json;

namespace {

double us(const sc_core::sc_time& t) { return t.to_seconds() * 1e6; }

// A core waking from an idle state: not work, so not one of the palette's colours.
constexpr const char* kIdleExitColour = "#d9d9d9";

// The colour of a lane's spans: the CPU contexts, then the hardware (chart_colour's palette).
std::size_t colour_of(const std::string& kind, const std::string& context) {
  if (kind == "cpu") {
    if (context == "hardirq") return 1;
    if (context == "softirq") return 2;
    if (context == "kworker") return 3;
    if (context == "ksoftirqd") return 4;
    return 0;  // task
  }
  if (kind == "bam") return 5;
  if (kind == "qce") return 6;
  return 7;
}

}  // namespace

json timeline_json(const model::Tracer& tr, std::int64_t request) {
  // The window: from the earliest to the latest span the request owns.
  double t0 = std::numeric_limits<double>::infinity(), t1 = -t0;
  for (const model::TraceSpan& s : tr.spans())
    if (s.request == request) {
      t0 = std::min(t0, us(s.start));
      t1 = std::max(t1, us(s.end));
    }
  json j = {{"request", request}, {"tracks", json::array()}, {"spans", json::array()}, {"counters", json::array()}};
  if (!(t1 >= t0)) return j;
  j["duration_us"] = t1 - t0;
  std::map<int, int> lane_of;  // recorder track -> lane in this document
  auto lane = [&](int track) {
    auto [it, added] = lane_of.emplace(track, static_cast<int>(lane_of.size()));
    if (added) {
      const model::TraceTrack& t = tr.tracks().at(static_cast<std::size_t>(track));
      j["tracks"].push_back({{"group", t.group}, {"name", t.name}, {"kind", t.kind}, {"context", t.context}});
    }
    return it->second;
  };
  double hw0 = std::numeric_limits<double>::infinity(), hw1 = -hw0;
  for (const model::TraceSpan& s : tr.spans()) {
    const double a = us(s.start), b = us(s.end);
    const model::TraceTrack& t = tr.tracks().at(static_cast<std::size_t>(s.track));
    if (t.kind == "request") continue;
    // The request's own spans, and unattributed hardware work (another EE's) inside the window.
    if (s.request != request && !(s.request < 0 && b > t0 && a < t1)) continue;
    if (s.request == request && (t.kind == "bam" || t.kind == "qce")) {
      hw0 = std::min(hw0, a);
      hw1 = std::max(hw1, b);
    }
    j["spans"].push_back({{"lane", lane(s.track)},
                          {"name", s.name},
                          {"start_us", a - t0},
                          {"end_us", b - t0},
                          {"detail", s.detail},
                          {"own", s.request == request}});
  }
  // Counters (the lock's owner, the interrupt line): the value at the window's start, then each change.
  std::map<int, std::pair<double, double>> before;  // track -> (time, value) of the last change before t0
  for (const model::TraceCounter& c : tr.counters()) {
    const double a = us(c.at);
    if (a <= t0) {
      before[c.track] = {a, c.value};
    } else if (a < t1) {
      j["counters"].push_back({{"lane", lane(c.track)}, {"at_us", a - t0}, {"value", c.value}});
    }
  }
  for (const auto& [track, tv] : before)
    j["counters"].push_back({{"lane", lane(track)}, {"at_us", 0.0}, {"value", tv.second}});
  std::stable_sort(j["counters"].begin(), j["counters"].end(),
                   [](const json& a, const json& b) { return a["at_us"].get<double>() < b["at_us"].get<double>(); });
  json phases = json::array();
  if (hw1 >= hw0) {
    phases.push_back({{"name", "submission on the CPU"}, {"start_us", 0.0}, {"end_us", hw0 - t0}});
    phases.push_back({{"name", "BAM and engine at work"}, {"start_us", hw0 - t0}, {"end_us", hw1 - t0}});
    phases.push_back({{"name", "completion"}, {"start_us", hw1 - t0}, {"end_us", t1 - t0}});
  } else {
    phases.push_back({{"name", "on the CPU"}, {"start_us", 0.0}, {"end_us", t1 - t0}});
  }
  j["phases"] = phases;
  return j;
}

std::string timeline_svg(const json& tl, const std::string& title, double axis_us) {
  const double width = 960, label_w = 230, left = label_w + 10, right = width - 16, lane_h = 20, lane_gap = 4;
  const double request_us = tl.value("duration_us", 0.0);
  const double dur = std::max(request_us, axis_us);
  const json& tracks = tl["tracks"];
  // Lanes in a stable order: CPUs by number and context (their idle-state wake-ups among them),
  // then the BAM's pipes, the engine, the lock and the interrupt lines.
  std::vector<std::size_t> order(tracks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto rank = [&](std::size_t i) {
    const std::string kind = tracks[i]["kind"];
    if (kind == "cpu" || kind == "idle" || kind == "held") return 0;
    if (kind == "bam") return 1;
    if (kind == "qce") return 2;
    return kind == "lock" ? 3 : 4;
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    const std::string ga = tracks[a]["group"], gb = tracks[b]["group"];
    if (ga.size() != gb.size()) return ga.size() < gb.size();  // cpu2 before cpu10
    if (ga != gb) return ga < gb;
    return tracks[a]["name"].get<std::string>() < tracks[b]["name"].get<std::string>();
  });
  std::map<std::size_t, double> lane_y;
  const double phase_y = 56, top = phase_y + 30;
  for (std::size_t k = 0; k < order.size(); ++k) lane_y[order[k]] = top + static_cast<double>(k) * (lane_h + lane_gap);
  const double bottom = top + static_cast<double>(order.size()) * (lane_h + lane_gap);
  const double scale = dur > 0 ? (right - left) / dur : 0;
  auto x_of = [&](double t) { return left + t * scale; };

  std::string svg = fmt::format(
      "<svg class=\"chart timeline\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
      "aria-label=\"{2}\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"DejaVu Sans, Verdana, sans-serif\" "
      "font-size=\"12\">\n<title>{2}</title>\n<rect width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n"
      "<text x=\"8\" y=\"22\" font-size=\"15\" font-weight=\"bold\">{2}</text>\n",
      svg_num(width), svg_num(bottom + 70), xml_text(title));
  // The time axis: ticks in µs from the submission.
  if (dur > 0) {
    const std::vector<double> ticks = linear_ticks(0, dur, 8);
    const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : dur;
    for (double t : ticks) {
      if (t > dur + step * 1e-9) break;  // the axis ends at the request's end
      svg += fmt::format(
          "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#e4e4e4\"/><text x=\"{0}\" y=\"{3}\" "
          "text-anchor=\"middle\">{4}</text>\n",
          svg_num(x_of(t)), svg_num(phase_y - 6), svg_num(bottom), svg_num(bottom + 16), svg_num(t));
    }
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">µs from the request's submission</text>\n",
                     svg_num((left + right) / 2), svg_num(bottom + 34));
  // The phases band.
  std::size_t p = 0;
  for (const json& ph : tl.value("phases", json::array())) {
    const double a = x_of(ph["start_us"]), b = x_of(ph["end_us"]);
    const std::string name = ph["name"];
    svg += fmt::format(
        "<g class=\"phase\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"22\" fill=\"{}\" stroke=\"#ffffff\"/>"
        "<title>{}: {} µs</title>",
        svg_num(a), svg_num(phase_y), svg_num(std::max(b - a, 0.5)), p % 2 ? "#e8e8e8" : "#d4d4d4", xml_text(name),
        svg_num(ph["end_us"].get<double>() - ph["start_us"].get<double>()));
    if (b - a > static_cast<double>(name.size()) * 6.8 + 8)
      svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", svg_num((a + b) / 2),
                         svg_num(phase_y + 15), xml_text(name));
    svg += "</g>\n";
    ++p;
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-weight=\"bold\">phase</text>\n",
                     svg_num(left - 8), svg_num(phase_y + 15));
  // Lane labels.
  for (const auto& [i, y] : lane_y) {
    const json& t = tracks[i];
    std::string label = t["group"].get<std::string>() + " " + t["name"].get<std::string>();
    if (label.size() > 34) label = label.substr(0, 32) + "..";
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", svg_num(left - 8),
                       svg_num(y + lane_h / 2 + 4), xml_text(label));
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#f0f0f0\"/>\n", svg_num(left),
                       svg_num(y + lane_h / 2), svg_num(right));
  }
  // Spans: the request's own solid, another EE's hatched by opacity.
  for (const json& s : tl["spans"]) {
    const std::size_t i = s["lane"];
    const json& t = tracks[i];
    const double a = x_of(s["start_us"]), b = x_of(s["end_us"]), y = lane_y[i];
    const std::string name = s["name"];
    // A core waking from an idle state, or an interrupt held off by one running with interrupts off.
    const bool waiting = t["kind"] == "idle" || t["kind"] == "held";
    const double d = s["end_us"].get<double>() - s["start_us"].get<double>();
    std::string tip = fmt::format("{}: {:.3f} µs at {:.3f} µs", name, d, s["start_us"].get<double>());
    if (!s["detail"].get<std::string>().empty()) tip += " (" + s["detail"].get<std::string>() + ")";
    svg += fmt::format("<g><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}><title>{}</title></rect>",
                       svg_num(a), svg_num(y), svg_num(std::max(b - a, 0.6)), svg_num(lane_h),
                       waiting ? kIdleExitColour : chart_colour(colour_of(t["kind"], t.value("context", ""))),
                       s["own"].get<bool>() ? "" : " opacity=\"0.45\"", xml_text(tip));
    if (b - a > static_cast<double>(name.size()) * 6.6 + 6) {
      const std::size_t c = colour_of(t["kind"], t.value("context", ""));
      svg += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>", svg_num(a + 3), svg_num(y + lane_h / 2 + 4),
                         c == 4 || c == 5 || c == 7 || waiting ? "#000000" : "#ffffff", xml_text(name));
    }
    svg += "</g>\n";
  }
  // Counters as steps: the lock held by this EE (value 0) or another, the interrupt line high.
  std::map<std::size_t, std::vector<std::pair<double, double>>> steps;
  for (const json& c : tl["counters"]) steps[c["lane"]].emplace_back(c["at_us"], c["value"]);
  for (auto& [i, pts] : steps) {
    const json& t = tracks[i];
    const bool lock = t["kind"] == "lock";
    const double y = lane_y[i];
    for (std::size_t k = 0; k < pts.size(); ++k) {
      const double a = pts[k].first, b = k + 1 < pts.size() ? pts[k + 1].first : dur, v = pts[k].second;
      const bool on = lock ? v >= 0 : v > 0;
      if (!on || b <= a) continue;
      const std::string what =
          lock ? (v == 0 ? std::string("lock held by EE 0 (Linux)") : fmt::format("lock held by EE {}", v))
               : std::string("interrupt line high");
      svg += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}: {:.3f} to {:.3f} "
          "µs</title></rect>\n",
          svg_num(x_of(a)), svg_num(y + 3), svg_num(std::max((b - a) * scale, 0.6)), svg_num(lane_h - 6),
          lock ? (v == 0 ? "#999999" : "#000000") : chart_colour(1), xml_text(what), a, b);
    }
  }
  // The legend.
  const char* const names[] = {"task", "hardirq", "softirq", "kworker", "ksoftirqd", "BAM pipe", "engine", "lock"};
  double lx = left;
  const double ly = bottom + 56;
  for (std::size_t k = 0; k < 8; ++k) {
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>\n",
        svg_num(lx), svg_num(ly - 10), chart_colour(k), svg_num(lx + 16), svg_num(ly), names[k]);
    lx += 16 + static_cast<double>(std::string(names[k]).size()) * 7 + 16;
  }
  svg += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">idle exit</text>\n",
      svg_num(lx), svg_num(ly - 10), kIdleExitColour, svg_num(lx + 16), svg_num(ly));
  return svg + "</svg>\n";
}

}  // namespace qcesim::cli
