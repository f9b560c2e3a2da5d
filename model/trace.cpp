#include "model/trace.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <spdlog/fmt/fmt.h>
#include <stdexcept>

namespace qcesim::model {

using nlohmann::json;

Tracer* Tracer::s_active = nullptr;

Tracer::Tracer(std::int64_t first, std::int64_t last) : m_first(first), m_last(last) {
  if (s_active) throw std::logic_error("one trace recorder per process");
  s_active = this;
}

Tracer::~Tracer() { s_active = nullptr; }

int Tracer::track(const std::string& group, const std::string& name, const std::string& kind, const std::string& context) {
  const std::string key = group + "\n" + name;
  auto it = m_track_ids.find(key);
  if (it != m_track_ids.end()) return it->second;
  const int id = static_cast<int>(m_tracks.size());
  m_tracks.push_back({group, name, kind, context});
  m_track_ids[key] = id;
  return id;
}

void Tracer::span(int track, std::string name, const sc_core::sc_time& start, const sc_core::sc_time& end,
                  std::int64_t request, std::string detail) {
  // Unattributed work (request -1: another EE's) is kept while the current request is kept.
  if (!keeps(request < 0 ? m_request : request) || end < start) return;
  m_spans.push_back({track, std::move(name), start, end, request, std::move(detail)});
}

void Tracer::counter(int track, const sc_core::sc_time& at, double value) {
  if (!keeps(m_request)) return;
  m_counters.push_back({track, at, value});
}

void Tracer::request_span(std::int64_t request, const sc_core::sc_time& start, const sc_core::sc_time& end) {
  if (m_request_track < 0) m_request_track = track("requests", "requests", "request");
  span(m_request_track, fmt::format("request {}", request), start, end, request, "from the caller's submission to its completion callback");
}

namespace {

double us(const sc_core::sc_time& t) { return t.to_seconds() * 1e6; }

}  // namespace

std::string Tracer::chrome_json(const std::string& title) const {
  json events = json::array();
  std::map<std::string, int> pids;
  for (const TraceTrack& t : m_tracks)
    if (!pids.count(t.group)) pids[t.group] = static_cast<int>(pids.size()) + 1;
  // Processes in a fixed order: requests, CPUs, then the hardware.
  auto sort_index = [](const std::string& g) {
    if (g == "requests") return 0;
    if (g.rfind("cpu", 0) == 0) return 1 + std::stoi(g.substr(3));
    if (g == "IRQ") return 100;
    if (g == "BAM") return 101;
    return 102;
  };
  for (const auto& [g, pid] : pids) {
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", g}}}});
    events.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"args", {{"sort_index", sort_index(g)}}}});
  }
  for (std::size_t i = 0; i < m_tracks.size(); ++i) {
    const TraceTrack& t = m_tracks[i];
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pids[t.group]}, {"tid", i + 1}, {"args", {{"name", t.name}}}});
    events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pids[t.group]}, {"tid", i + 1},
                      {"args", {{"sort_index", static_cast<int>(i)}}}});
  }
  for (const TraceSpan& s : m_spans) {
    const TraceTrack& t = m_tracks[static_cast<std::size_t>(s.track)];
    json args = {{"request", s.request}};
    if (!t.context.empty()) args["context"] = t.context;
    if (!s.detail.empty()) args["detail"] = s.detail;
    events.push_back({{"name", s.name}, {"cat", t.kind}, {"ph", "X"}, {"ts", us(s.start)}, {"dur", us(s.end - s.start)},
                      {"pid", pids[t.group]}, {"tid", s.track + 1}, {"args", args}});
  }
  for (const TraceCounter& c : m_counters) {
    const TraceTrack& t = m_tracks[static_cast<std::size_t>(c.track)];
    events.push_back({{"name", t.name}, {"ph", "C"}, {"ts", us(c.at)}, {"pid", pids[t.group]}, {"args", {{"value", c.value}}}});
  }
  // One flow per request through its spans in time order, a step wherever it changes track.
  std::map<std::int64_t, std::vector<const TraceSpan*>> by_request;
  for (const TraceSpan& s : m_spans)
    if (s.request >= 0) by_request[s.request].push_back(&s);
  for (auto& [r, spans] : by_request) {
    std::stable_sort(spans.begin(), spans.end(), [](const TraceSpan* a, const TraceSpan* b) { return a->start < b->start; });
    std::vector<const TraceSpan*> steps;
    for (const TraceSpan* s : spans)
      if (steps.empty() || steps.back()->track != s->track) steps.push_back(s);
    if (steps.size() < 2) continue;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const TraceSpan* s = steps[i];
      const char* ph = i == 0 ? "s" : i + 1 == steps.size() ? "f" : "t";
      json e = {{"name", fmt::format("request {}", r)}, {"cat", "request"}, {"ph", ph}, {"id", r}, {"ts", us(s->start)},
                {"pid", pids[m_tracks[static_cast<std::size_t>(s->track)].group]}, {"tid", s->track + 1}};
      if (i + 1 == steps.size()) e["bp"] = "e";
      events.push_back(e);
    }
  }
  json doc = {{"traceEvents", events}, {"displayTimeUnit", "ns"}, {"otherData", {{"title", title}, {"generator", "qcesim"}}}};
  return doc.dump() + "\n";
}

}  // namespace qcesim::model
