// The timeline recorder behind `--trace` (Chrome-trace/Perfetto JSON) and `qcesim explain`.
// Models report what they did and when: CPU work per core, context and kernel function (split
// exactly where it was preempted), BAM descriptors per pipe, QCE operations, the interrupt
// lines and the BAM lock owner. Each span carries the request it belongs to (the request the
// caller was working on when the work was charged or the hardware was started), and only the
// requests in the chosen range are kept, so a trace of a 50000-request run stays small.
//
// One recorder per process (one elaboration per process); when none is installed, every hook
// is a single pointer test. `--trace` streams: each span is written to the file as it is
// recorded, so memory does not grow with the request range (only the flow steps of the last
// requests are held, until no more work can arrive for them). `explain` and the tests keep the
// spans in memory instead.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <map>
#include <string>
#include <string_view>
#include <systemc>
#include <vector>

namespace qcesim::model {

// A core's wake-up from an idle state is a span named this followed by the state's name, on an
// "idle" track (cpu/kernel.cpp writes it, studies/explain.cpp reads the state back).
inline constexpr std::string_view kIdleExitSpan = "cpuidle exit: ";
// BAM pipe spans (bam/bam.cpp): "N CMD desc (M register writes) FLAGS" for a run of command
// descriptors, "N B from QCE FLAGS" for a producer's transfer, FLAGS their BAM flags joined by '+'
// (LOCK, UNLOCK, NWD, EOT, INT). explain finds the UNLOCK's race by them.
inline constexpr std::string_view kBamCmdRunSpan = " CMD desc (";
inline constexpr std::string_view kBamFromQceSpan = " from QCE";

struct TraceSpan {
  int track = 0;
  std::string name;
  sc_core::sc_time start, end;
  std::int64_t request = -1;  // -1: not attributed
  std::string detail;         // one line for the trace's args and the narration
  double ghz = 0;             // CPU work: the core's clock (0: not a CPU span, or no clock)
  int item = -1;              // CPU work: the cost item charged (cpu/costs.h's index; -1: none)
};

struct TraceCounter {
  int track = 0;
  sc_core::sc_time at;
  double value = 0;
};

struct TraceTrack {
  std::string group;    // Perfetto process: "cpu0", "BAM", "QCE", "requests"
  std::string name;     // Perfetto thread: "hardirq", "pipe 4 (QCE DIN)", ...
  std::string kind;     // "cpu", "bam", "qce", "irq", "lock", "request"
  std::string context;  // for cpu tracks: task, kworker, softirq, hardirq, ksoftirqd
};

// Where a streaming recorder writes its Chrome-trace JSON.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void write(const std::string& text) = 0;
};

class Tracer {
 public:
  // Keeps requests in [first, last) in memory: spans() and chrome_json().
  Tracer(std::int64_t first, std::int64_t last);
  // Streams the requests in [first, last) to `sink`; finish() completes the JSON document.
  Tracer(std::int64_t first, std::int64_t last, TraceSink& sink, std::string title);
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // The installed recorder, or nullptr.
  static Tracer* active() { return s_active; }

  // The request the caller is working on from now (the replay loop sets it per message).
  void set_request(std::int64_t r) { m_request = r; }
  // Hardware work is attributed to the caller's current request only when it is on the traced
  // system's own pipes: another EE's BAM pipes and engine operations are kept (while the
  // current request is in range) but belong to no request.
  void set_own_ee(unsigned ee, unsigned pipe_set) {
    m_own_ee = ee;
    m_own_pipe_set = pipe_set;
  }
  std::int64_t request_for_ee(unsigned ee) const { return ee == m_own_ee ? m_request : -1; }
  std::int64_t request_for_pipe_set(unsigned set) const { return set == m_own_pipe_set ? m_request : -1; }
  std::int64_t request() const { return m_request; }
  bool keeps(std::int64_t r) const { return r >= m_first && r < m_last; }

  int track(const std::string& group, const std::string& name, const std::string& kind,
            const std::string& context = "");
  void span(int track, std::string name, const sc_core::sc_time& start, const sc_core::sc_time& end,
            std::int64_t request, std::string detail = "", double ghz = 0, int item = -1);
  void counter(int track, const sc_core::sc_time& at, double value);
  // A request's own span: from the caller's submission to its completion callback.
  void request_span(std::int64_t request, const sc_core::sc_time& start, const sc_core::sc_time& end);

  const std::vector<TraceTrack>& tracks() const { return m_tracks; }
  // In memory only (empty when streaming).
  const std::vector<TraceSpan>& spans() const { return m_spans; }
  const std::vector<TraceCounter>& counters() const { return m_counters; }
  // Time inside a kept request's spans that they do not show apart, summed by a key ("task",
  // "hardirq", ...: the cache lines a context waited for from the other core), for explain.
  void tally(std::int64_t request, const std::string& key, const sc_core::sc_time& t) {
    if (keeps(request)) m_tallies[{request, key}] += t;
  }
  sc_core::sc_time tallied(std::int64_t request, const std::string& key) const {
    const auto it = m_tallies.find({request, key});
    return it == m_tallies.end() ? sc_core::SC_ZERO_TIME : it->second;
  }

  // Chrome-trace JSON (loads in ui.perfetto.dev and chrome://tracing): tracks as processes and
  // threads, spans as complete events, counters, and one flow per request through its spans.
  // The in-memory recorder's whole document.
  std::string chrome_json(const std::string& title) const;
  // Streaming: the flows still open, the track names and the document's end.
  void finish();

 private:
  // A request's flow: where its spans start, to link them in time order.
  struct FlowStep {
    sc_core::sc_time start;
    int track;
  };
  using Flows = std::map<std::int64_t, std::vector<FlowStep>>;
  // Writes events to a sink, comma-separated inside the traceEvents array.
  struct Writer {
    TraceSink& sink;
    bool first = true;
    void event(const std::string& json_text);
  };
  void write_span(Writer& w, const TraceSpan& s) const;
  void write_counter(Writer& w, const TraceCounter& c) const;
  void write_flow(Writer& w, std::int64_t request, std::vector<FlowStep>& steps) const;
  void write_metadata(Writer& w) const;
  static std::string document_end(const std::string& title);
  int pid_of(const std::string& group) const { return m_pids.at(group); }

  static Tracer* s_active;
  std::int64_t m_first, m_last;
  TraceSink* m_sink = nullptr;  // streaming when set
  std::string m_title;
  std::unique_ptr<Writer> m_writer;
  Flows m_open_flows;  // streaming: requests whose work may still arrive
  bool m_finished = false;
  std::map<std::string, int> m_pids;  // group -> Perfetto process, in order of appearance
  std::int64_t m_request = -1;
  unsigned m_own_ee = 0, m_own_pipe_set = 2;
  std::vector<TraceTrack> m_tracks;
  std::map<std::string, int> m_track_ids;
  std::vector<TraceSpan> m_spans;
  std::vector<TraceCounter> m_counters;
  std::map<std::pair<std::int64_t, std::string>, sc_core::sc_time> m_tallies;
  int m_request_track = -1;
};

}  // namespace qcesim::model
