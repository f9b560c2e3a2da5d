#include "model/trace.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <spdlog/fmt/fmt.h>
#include <cstdlib>
#include <stdexcept>

namespace qcesim::model {

using nlohmann::json;

Tracer* Tracer::s_active = nullptr;

namespace {

// Microseconds as one division of the kernel's integer time by its units per microsecond: the
// nearest double, so the file shows 27.57801, not to_seconds() * 1e6's 27.578010000000003.
double us(const sc_core::sc_time& t) {
  static const double per_us = static_cast<double>(sc_core::sc_time(1, sc_core::SC_US).value());
  return static_cast<double>(t.value()) / per_us;
}

// A request's flow steps are written once no more of its work can arrive: its completion
// callback has run and this many later requests have completed too (more than any queue
// depth keeps in flight).
constexpr std::int64_t kFlowWindow = 2048;

// Processes in a fixed order: requests, CPUs, then the hardware.
int sort_index(const std::string& g) {
  if (g == "requests") return 0;
  if (g.rfind("cpu", 0) == 0) return 1 + std::atoi(g.c_str() + 3);
  if (g == "IRQ") return 100;
  if (g == "BAM") return 101;
  return 102;
}

// Collects the in-memory recorder's document.
struct StringSink : TraceSink {
  std::string text;
  void write(const std::string& t) override { text += t; }
};

}  // namespace

Tracer::Tracer(std::int64_t first, std::int64_t last) : m_first(first), m_last(last) {
  if (s_active) throw std::logic_error("one trace recorder per process");
  s_active = this;
}

Tracer::Tracer(std::int64_t first, std::int64_t last, TraceSink& sink, std::string title) : Tracer(first, last) {
  m_sink = &sink;
  m_title = std::move(title);
  m_writer = std::make_unique<Writer>(Writer{sink});
  sink.write("{\"traceEvents\":[\n");
}

Tracer::~Tracer() { s_active = nullptr; }

void Tracer::Writer::event(const std::string& json_text) {
  sink.write(first ? json_text : ",\n" + json_text);
  first = false;
}

int Tracer::track(const std::string& group, const std::string& name, const std::string& kind,
                  const std::string& context) {
  const std::string key = group + "\n" + name;
  auto it = m_track_ids.find(key);
  if (it != m_track_ids.end()) return it->second;
  const int id = static_cast<int>(m_tracks.size());
  m_tracks.push_back({group, name, kind, context});
  m_track_ids[key] = id;
  if (!m_pids.count(group)) {
    const int pid = static_cast<int>(m_pids.size()) + 1;
    m_pids[group] = pid;
  }
  return id;
}

void Tracer::span(int track, std::string name, const sc_core::sc_time& start, const sc_core::sc_time& end,
                  std::int64_t request, std::string detail, double ghz, int item) {
  // Unattributed work (request -1: another EE's) is kept while the current request is kept.
  if (!keeps(request < 0 ? m_request : request) || end < start) return;
  TraceSpan s{track, std::move(name), start, end, request, std::move(detail), ghz, item};
  if (!m_sink) {
    m_spans.push_back(std::move(s));
    return;
  }
  write_span(*m_writer, s);
  if (request >= 0) m_open_flows[request].push_back({start, track});
}

void Tracer::counter(int track, const sc_core::sc_time& at, double value) {
  if (!keeps(m_request)) return;
  if (m_sink) {
    write_counter(*m_writer, {track, at, value});
  } else {
    m_counters.push_back({track, at, value});
  }
}

void Tracer::request_span(std::int64_t request, const sc_core::sc_time& start, const sc_core::sc_time& end) {
  if (m_request_track < 0) m_request_track = track("requests", "requests", "request");
  span(m_request_track, fmt::format("request {}", request), start, end, request,
       "from the caller's submission to its completion callback");
  if (!m_sink) return;
  while (!m_open_flows.empty() && m_open_flows.begin()->first + kFlowWindow < request) {
    write_flow(*m_writer, m_open_flows.begin()->first, m_open_flows.begin()->second);
    m_open_flows.erase(m_open_flows.begin());
  }
}

void Tracer::write_span(Writer& w, const TraceSpan& s) const {
  const TraceTrack& t = m_tracks[static_cast<std::size_t>(s.track)];
  json args = {{"request", s.request}};
  if (!t.context.empty()) args["context"] = t.context;
  if (!s.detail.empty()) args["detail"] = s.detail;
  if (s.ghz > 0) args["GHz"] = s.ghz;
  w.event(json{
      {"name", s.name},
      {"cat", t.kind},
      {"ph", "X"},
      {"ts", us(s.start)},
      {"dur", us(s.end - s.start)},
      {"pid", pid_of(t.group)},
      {"tid", s.track + 1},
      {"args",
       args}}.dump());
}

void Tracer::write_counter(Writer& w, const TraceCounter& c) const {
  const TraceTrack& t = m_tracks[static_cast<std::size_t>(c.track)];
  w.event(
      json{{"name", t.name}, {"ph", "C"}, {"ts", us(c.at)}, {"pid", pid_of(t.group)}, {"args", {{"value", c.value}}}}
          .dump());
}

// One flow per request through its spans in time order, a step wherever it changes track.
void Tracer::write_flow(Writer& w, std::int64_t request, std::vector<FlowStep>& spans) const {
  std::stable_sort(spans.begin(), spans.end(), [](const FlowStep& a, const FlowStep& b) { return a.start < b.start; });
  std::vector<const FlowStep*> steps;
  for (const FlowStep& s : spans)
    if (steps.empty() || steps.back()->track != s.track) steps.push_back(&s);
  if (steps.size() < 2) return;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const FlowStep* s = steps[i];
    const char* ph = i == 0 ? "s" : i + 1 == steps.size() ? "f" : "t";
    json e = {{"name", fmt::format("request {}", request)},
              {"cat", "request"},
              {"ph", ph},
              {"id", request},
              {"ts", us(s->start)},
              {"pid", pid_of(m_tracks[static_cast<std::size_t>(s->track)].group)},
              {"tid", s->track + 1}};
    if (i + 1 == steps.size()) e["bp"] = "e";
    w.event(e.dump());
  }
}

void Tracer::write_metadata(Writer& w) const {
  for (const auto& [g, pid] : m_pids) {
    w.event(json{{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", g}}}}.dump());
    w.event(json{{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"args", {{"sort_index", sort_index(g)}}}}
                .dump());
  }
  for (std::size_t i = 0; i < m_tracks.size(); ++i) {
    const TraceTrack& t = m_tracks[i];
    w.event(json{
        {"name", "thread_name"}, {"ph", "M"}, {"pid", pid_of(t.group)}, {"tid", i + 1}, {"args", {{"name", t.name}}}}
                .dump());
    w.event(json{{"name", "thread_sort_index"},
                 {"ph", "M"},
                 {"pid", pid_of(t.group)},
                 {"tid", i + 1},
                 {"args", {{"sort_index", static_cast<int>(i)}}}}
                .dump());
  }
}

std::string Tracer::document_end(const std::string& title) {
  return "\n],\"displayTimeUnit\":\"ns\",\"otherData\":" + json{{"title", title}, {"generator", "qcesim"}}.dump() +
         "}\n";
}

void Tracer::finish() {
  if (!m_sink || m_finished) return;
  m_finished = true;
  for (auto& [r, steps] : m_open_flows) write_flow(*m_writer, r, steps);
  m_open_flows.clear();
  write_metadata(*m_writer);
  m_sink->write(document_end(m_title));
}

std::string Tracer::chrome_json(const std::string& title) const {
  StringSink out;
  out.write("{\"traceEvents\":[\n");
  Writer w{out};
  write_metadata(w);
  Flows flows;
  for (const TraceSpan& s : m_spans) {
    write_span(w, s);
    if (s.request >= 0) flows[s.request].push_back({s.start, s.track});
  }
  for (const TraceCounter& c : m_counters) write_counter(w, c);
  for (auto& [r, steps] : flows) write_flow(w, r, steps);
  out.write(document_end(title));
  return out.text;
}

}  // namespace qcesim::model
