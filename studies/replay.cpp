#include "studies/replay.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <spdlog/fmt/fmt.h>

#include "bam/bam_hw.h"
#include "cpu/ce_core.h"
#include "cpu/ce_sha.h"
#include "cpu/core_type.h"
#include "drivers/crypto/qce/fallback.h"
#include "drivers/crypto/qce/sha.h"
#include "model/hash_ahead.h"
#include "model/read_only_pages.h"
#include "model/stats.h"
#include "model/trace.h"
#include "studies/cipher_replay.h"
#include "studies/fast_forward.h"

namespace qcesim::studies {

using namespace model;

using nlohmann::json;
using sc_core::sc_time;

EmulatorConfig emulator_config(const Profile& p, const Variant& v, bool timing_only) {
  EmulatorConfig c;
  c.soc = soc_config(p);
  SocConfig& s = c.soc;
  s.qce.functional = !timing_only;
  c.driver.reg_io = v.reg_io;
  c.driver.bam_lock = v.bam_lock;
  c.driver.status_from_dump = v.status_from_dump;
  c.driver.poll = v.poll;
  c.driver.rx_interrupt = v.rx_interrupt;
  c.driver.poll_delay = sc_time(v.poll_delay_us, sc_core::SC_US);
  c.driver.irq_cpu = cpu::irq_cpu_from_profile(p);
  c.driver.rx_pipe = s.rx_pipe;
  c.driver.tx_pipe = s.tx_pipe;
  c.driver.rules = qce::qce_rules(p);
  c.driver.done_tasklet = c.driver.rules.era != 0 && c.driver.rules.era < 2024;
  c.driver.soft = cpu::soft_crypto_config(p);
  return c;
}

std::map<std::string, double> measured_for(const Variant& v, const Workload& w) {
  auto m = v.measured;
  const double mm = m.count("messages") ? m["messages"] : static_cast<double>(w.messages);
  const double mb = m.count("message_bytes") ? m["message_bytes"] : static_cast<double>(w.message_bytes);
  m.erase("messages");
  m.erase("message_bytes");
  if (mb != static_cast<double>(w.message_bytes)) return {};
  for (auto& [k, val] : m) val *= static_cast<double>(w.messages) / mm;
  return m;
}

void check_variant(const Scenario& sc, const Variant& v) {
  const Profile p = sc.profile_for(v);
  (void)emulator_config(p, v, false, sc.workload, sc.faults);
  if (cpu::soft_crypto_config(p).crypto == cpu::CpuCrypto::ce) {
    // The task's core runs the CE loops: it needs a CE table.
    const Param& task = p.param("cpu.task_cpu");
    const std::string core = cpu::task_core_type(p).name;
    const auto names = cpu::ce_core_names();
    if (std::find(names.begin(), names.end(), core) == names.end())
      throw ConfigError(task.origin_file, task.origin_path,
                        "a CPU whose core type has a CE table (" + join_names(names) + ") when cpu.crypto is ce",
                        fmt::format("CPU {}, a {}", task.value, quoted_input(core)));
  }
  // The crypto API would not pick QCE for an algorithm its era's driver does not register.
  const qce::QceRules rules = qce::qce_rules(p);
  if (v.engine == VariantEngine::qce && rules.era && !qce::qce_registers(rules, sc.workload.algorithm.name)) {
    const Param& era = p.param("driver.era");
    throw ConfigError(
        era.origin_file, era.origin_path,
        fmt::format("an era whose qce driver registers {} (variant {})", sc.workload.algorithm.name, v.name),
        std::to_string(rules.era));
  }
}

EmulatorConfig emulator_config(const Profile& p, const Variant& v, bool timing_only, const Workload& w,
                               const Faults& faults) {
  EmulatorConfig c = emulator_config(p, v, timing_only);
  if (w.tz.rate_per_s > 0 && v.engine == VariantEngine::qce) {
    c.tz.rate_per_s = w.tz.rate_per_s;
    c.tz.ee = c.soc.linux_ee == 1 ? 0 : 1;  // the other EE
    c.tz.message_bytes = w.tz.message_bytes;
    c.tz.lock = v.bam_lock && v.reg_io == qce::RegIo::bam;  // one protocol for the whole system
    c.tz.functional = !timing_only;
    c.tz.timeout = sc_time(w.tz.timeout_us, sc_core::SC_US);
    c.driver.request_timeout = c.tz.timeout;
    c.soc.bam.exact_elements = true;  // the two EEs' register writes interleave element by element
    c.tz.lock_hold = sc_time(faults.tz_lock_hold_us, sc_core::SC_US);
  }
  if (faults.any()) {
    c.soc.bam.faults = {faults.bam_data_error, faults.bam_descriptor_drop, faults.seed};
    c.soc.qce.faults = {faults.engine_axi_error, faults.engine_hang, faults.seed + 1};
    c.driver.request_timeout = sc_time(faults.timeout_us, sc_core::SC_US);
  }
  return c;
}

namespace {

// Checks the host clock every 256 requests of progress; reports when `every_s` has passed since the last, with
// the time left estimated from the current phase's own rate (simulating requests, or checking
// the bytes of the requests a fast-forward skipped: the two run at very different speeds).
class ProgressTicker {
 public:
  ProgressTicker(const ReplayProgress* p, std::uint64_t total, std::chrono::steady_clock::time_point start)
      : m_p(p && p->report ? p : nullptr), m_total(total), m_start(start), m_last(start), m_phase_start(start) {}
  void tick(std::uint64_t done, const char* phase = "requests") {
    // The clock is read once per 256 requests of progress (a simulated request, a repeated
    // cycle's worth, a chunk of checked ones: whatever each call brings).
    if (!m_p) return;
    const bool new_phase = phase != m_phase && std::strcmp(phase, m_phase) != 0;
    if (done < m_next_read && !new_phase) return;
    m_next_read = done + 256;
    const auto now = std::chrono::steady_clock::now();
    if (new_phase) {  // its rate starts here
      m_phase = phase;
      m_phase_start = now;
      m_phase_done = done;
    }
    if (std::chrono::duration<double>(now - m_last).count() < m_p->every_s) return;
    m_last = now;
    const double in_phase = std::chrono::duration<double>(now - m_phase_start).count();
    const double rate = done > m_phase_done && in_phase > 0 ? static_cast<double>(done - m_phase_done) / in_phase : 0;
    const double left = rate > 0 ? static_cast<double>(m_total - std::min(done, m_total)) / rate : -1;
    m_p->report(std::min(done, m_total), m_total, std::chrono::duration<double>(now - m_start).count(), left, phase);
  }

 private:
  const ReplayProgress* m_p;
  std::uint64_t m_total, m_next_read = 0, m_phase_done = 0;
  std::chrono::steady_clock::time_point m_start, m_last, m_phase_start;
  const char* m_phase = "requests";
};

}  // namespace

namespace {

// The messages the caller hashes: a pool of distinct ones in DRAM, each request reads one of
// them; their reference digests are computed once on the host. Whole host pages each, so
// that hash-ahead can make them read-only.
struct MessagePool {
  std::vector<cpu::DmaBuf> msgs;
  std::vector<std::vector<std::uint8_t>> refs;  // empty in timing-only runs
  std::size_t alloc = 0;                        // bytes per message, whole host pages

  MessagePool(Emulator& e, const Workload& w, bool check) {
    const std::size_t pool =
        std::max<std::size_t>(1, std::min<std::size_t>(64, (32u << 20) / std::max<std::uint32_t>(w.message_bytes, 1)));
    std::mt19937_64 rng(2026);
    const std::size_t page = ReadOnlyPages::page_size();
    alloc = (std::max<std::size_t>(w.message_bytes, 1) + page - 1) / page * page;
    for (std::size_t i = 0; i < pool; ++i) {
      msgs.push_back(e.host().dma_alloc(alloc, std::max<std::size_t>(page, 4096)));
      if (!check) continue;
      for (std::uint32_t b = 0; b < w.message_bytes; b += 8) {  // eight random bytes per draw
        const std::uint64_t r = rng();
        std::memcpy(msgs.back().ptr + b, &r, std::min<std::size_t>(8, w.message_bytes - b));
      }
      refs.push_back(sha_digest(w.alg, msgs.back().ptr, w.message_bytes));
    }
  }
  std::size_t size() const { return msgs.size(); }
};

// The kernel SHA library on this CPU (the CE loop, or sha256-neon on a core without crypto
// instructions), in the caller's task context: messages first .. first + n - 1 (two interleaved
// with finup2x on CE), their digests checked. The CPU path, and the caller's fallback after a
// failed engine request.
class CpuHash {
 public:
  CpuHash(Emulator& e, const Workload& w, const MessagePool& pool, VariantResult& res)
      : m_task(e.task()),
        m_costs(e.kernel().costs()),
        m_soft(e.qce().soft()),
        m_w(w),
        m_pool(pool),
        m_res(res),
        m_blocks((std::uint64_t{w.message_bytes} + 9 + 63) / 64) {}

  // n: 1, or 2 for one sha256_ce_finup2x call (the variant's ce_interleave).
  void hash(std::uint64_t first, unsigned n) {
    m_task.charge(m_costs(cpu::Cost::sha256_lib_call));
    m_soft.hash(m_task, m_costs, m_w.alg, m_blocks, n);
    m_res.digest_mismatches += check(first, n);
  }
  // The digests alone (with real data), checked: also the requests a fast-forward skips (from
  // two threads at once then). Returns the wrong ones.
  std::uint64_t check(std::uint64_t first, std::uint64_t n) const {
    std::uint64_t wrong = 0;
    if (m_pool.refs.empty()) return wrong;
    for (std::uint64_t k = 0; k < n; ++k) {
      const std::size_t m = (first + k) % m_pool.size();
      cpu::CeSha h(m_w.alg);
      h.update(m_pool.msgs[m].ptr, m_w.message_bytes);
      wrong += h.final() != m_pool.refs[m];
    }
    return wrong;
  }

 private:
  cpu::Runner& m_task;
  const cpu::Costs& m_costs;
  const cpu::SoftCrypto& m_soft;
  const Workload& m_w;
  const MessagePool& m_pool;
  VariantResult& m_res;
  std::uint64_t m_blocks;
};

// The CPU path: ce_interleave messages per call, each call's latency charged to its messages.
void run_ce_path(Emulator& e, const Variant& v, const Workload& w, CpuHash& cpu_hash, LatencyStats& lat,
                 VariantResult& res, ProgressTicker& ticker, FastForward& ff, std::size_t pool) {
  cpu::Runner& task = e.task();
  for (std::uint64_t i = 0; i < w.messages; i += v.ce_interleave) {
    if (const std::uint64_t skip = ff.at_boundary(i, w.messages, i % pool)) {
      res.digest_mismatches +=
          ff.check_skipped(i, skip, [&](std::uint64_t a, std::uint64_t k) { return cpu_hash.check(a, k); });
      i += skip;
      if (i >= w.messages) break;
    }
    ticker.tick(i);
    const unsigned n = static_cast<unsigned>(std::min<std::uint64_t>(v.ce_interleave, w.messages - i));
    const sc_time t0 = sc_core::sc_time_stamp();
    if (auto* tr = Tracer::active()) tr->set_request(static_cast<std::int64_t>(i));
    cpu_hash.hash(i, n);
    res.issued += n;
    res.completed += n;
    task.sync();
    const sc_time t1 = sc_core::sc_time_stamp();
    for (unsigned k = 0; k < n; ++k) record_latency(lat, i + k, t0, t1);
  }
}

// The QCE path: up to queue_depth requests in flight, one engine request per message.
class QcePath {
 public:
  QcePath(Emulator& e, const Scenario& sc, const EmulatorConfig& cfg, MessagePool& pool, CpuHash& cpu_hash,
          LatencyStats& lat, VariantResult& res, ProgressTicker& ticker, FastForward& ff)
      : m_e(e),
        m_task(e.task()),
        m_sc(sc),
        m_w(sc.workload),
        m_cfg(cfg),
        m_pool(pool),
        m_cpu_hash(cpu_hash),
        m_lat(lat),
        m_res(res),
        m_ticker(ticker),
        m_ff(ff),
        m_slots(sc.workload.queue_depth),
        m_freed(e.kernel()),
        // Failures are outcomes to count when another EE shares the engine or faults are
        // injected; otherwise a failure is a bug in the model and stops the run.
        m_failures_expected(e.tz() != nullptr || sc.faults.any()),
        m_iv(sha_initial_state(sc.workload.alg)) {
    start_hash_ahead();
  }

  void run() {
    while (m_finished < m_w.messages) {
      if (const std::uint64_t n = m_ff.at_boundary(m_submitted, m_w.messages, loop_state())) skip(n);
      for (Slot& s : m_slots)
        if (s.fallback) fall_back(s);
      for (Slot& s : m_slots)
        if (!s.busy && m_submitted < m_w.messages) submit(s);
      const bool fallback_due = std::any_of(m_slots.begin(), m_slots.end(), [](const Slot& s) { return s.fallback; });
      if (m_finished < m_w.messages && !fallback_due && !m_freed.wait_for(m_task, m_cfg.driver.timeout))
        throw qce::QceError("a request did not complete within " + m_cfg.driver.timeout.to_string());
      if (!m_failure.empty()) throw qce::QceError("request failed: " + m_failure);
    }
  }

 private:
  struct Slot {
    qce::ShaRequest req;
    sc_time t0;
    std::size_t msg = 0;
    std::uint64_t id = 0;  // the request's number in the run
    bool busy = false;
    bool fallback = false;  // failed: the caller hashes it on the CPU when it runs again
  };

  // The caller's next messages go to the hash-ahead helper while the current ones are
  // simulated: at least one request beyond those the queue holds, topped up four at a time
  // (one publish per batch). Only messages that one BAM descriptor carries: the engine gets a
  // longer one in pieces that do not end on a block.
  void start_hash_ahead() {
    const bool check = !m_pool.refs.empty();
    m_ahead = check && m_w.message_bytes <= bam::BAM_FIFO_SIZE ? m_e.soc().qce.hash_ahead() : nullptr;
    m_window = std::min<std::uint64_t>(m_w.queue_depth + 1, 4);
    // The pool is written once, before; read-only from here it cannot change between a post
    // and its take, so the helper hashes it in place and the engine skips the compare.
    if (m_ahead)
      for (const cpu::DmaBuf& m : m_pool.msgs) m_frozen.protect(m.ptr, m_pool.alloc);  // else copied and compared
  }

  // The loop's part of the state (studies/fast_forward.h): the next message's place in the
  // pool, the requests in flight and posted ahead, each slot.
  std::uint64_t loop_state() const {
    model::StateHash h(sc_core::sc_time_stamp());
    h.add(std::uint64_t{m_submitted % m_pool.size()});
    h.add(m_submitted - m_finished);
    if (m_ahead) h.add(m_posted - m_submitted);
    for (const Slot& s : m_slots) {
      h.add(s.busy);
      h.add(s.fallback);
      if (!s.busy && !s.fallback) continue;
      h.add(m_submitted - s.id);
      h.add_at(s.t0);
    }
    m_freed.fingerprint(h);
    return h.value();
  }

  // A fast-forward skipped n requests (whole cycles: the pool's messages come round in the
  // same order): with real data each one's digest by the engine's arithmetic, from the
  // request's IV (the driver's carry) as the engine compresses and pads it.
  void skip(std::uint64_t n) {
    if (!m_pool.refs.empty()) {
      const std::size_t blocks = m_w.message_bytes / kShaBlockBytes, tail = m_w.message_bytes % kShaBlockBytes;
      m_res.digest_mismatches += m_ff.check_skipped(m_submitted, n, [&](std::uint64_t from, std::uint64_t count) {
        std::uint64_t wrong = 0;
        for (std::uint64_t id = from; id < from + count; ++id) {
          const std::uint8_t* p = m_pool.msgs[id % m_pool.size()].ptr;
          ShaState st = m_iv;
          sha_compress(st, p, blocks);
          wrong += sha_finish(st, p + blocks * kShaBlockBytes, tail) != m_pool.refs[id % m_pool.size()];
        }
        return wrong;
      });
    }
    m_submitted += n;
    m_finished += n;
    if (m_ahead) m_posted += n;
    for (Slot& s : m_slots)
      if (s.busy || s.fallback) s.id += n;
    m_ticker.tick(m_finished);
  }

  void post_ahead() {
    constexpr std::uint64_t kBatch = 4;
    if (!m_ahead || m_posted >= std::min(m_submitted + m_window, m_w.messages)) return;
    for (; m_posted < std::min(m_submitted + m_window + kBatch - 1, m_w.messages); ++m_posted)
      m_ahead->post(m_iv, m_pool.msgs[m_posted % m_pool.size()].ptr, m_w.message_bytes, &m_frozen);
    m_ahead->publish();
  }

  void submit(Slot& s) {
    post_ahead();
    s.busy = true;
    s.msg = m_submitted % m_pool.size();
    s.req = qce::ShaRequest{};
    s.req.alg = m_w.alg;
    s.req.carry.iv = m_iv.h;
    s.req.src = {{m_pool.msgs[s.msg].addr, m_w.message_bytes}};
    s.req.nbytes = m_w.message_bytes;
    s.req.complete = [this, sp = &s](cpu::Runner& k, const qce::QceStatus& st) { complete(k, *sp, st); };
    // The caller starts the request when it has the CPU again.
    m_task.when_done([sp = &s](const sc_time& t) { sp->t0 = t; });
    s.id = m_submitted;
    if (auto* tr = Tracer::active()) tr->set_request(static_cast<std::int64_t>(m_submitted));
    ++m_submitted;
    ++m_res.issued;
    m_e.qce().enqueue(m_task, s.req);
  }

  // The request's completion, in the kworker.
  void complete(cpu::Runner& k, Slot& s, const qce::QceStatus& st) {
    if (st.failed()) {
      ++m_res.failed_requests;
      if (!m_failures_expected && m_failure.empty()) m_failure = st.why;
      if (m_res.race.empty()) m_res.race = st.why;
      if (m_sc.faults.cpu_fallback) {
        s.fallback = true;
        m_freed.complete(k);
        return;
      }
      ++m_res.failed;
    } else {
      ++m_res.completed;
    }
    // The callback's moment is when the kworker gets there: after the work charged before it
    // and after the softirq work that preempts it. The slot is reused before that moment: take
    // its request's number and start now.
    k.when_done([&lat = m_lat, id = s.id, t0 = s.t0](const sc_time& end) { record_latency(lat, id, t0, end); });
    if (!m_pool.refs.empty() && !st.failed() && s.req.digest != m_pool.refs[s.msg]) ++m_res.digest_mismatches;
    s.busy = false;
    ++m_finished;
    m_ticker.tick(m_finished);
    m_freed.complete(k);
  }

  // A failed request the caller hashes again on the CPU: its latency ends when that is done.
  void fall_back(Slot& s) {
    if (auto* tr = Tracer::active()) tr->set_request(static_cast<std::int64_t>(s.id));
    m_cpu_hash.hash(s.id, 1);
    m_task.when_done([&lat = m_lat, id = s.id, t0 = s.t0](const sc_time& end) { record_latency(lat, id, t0, end); });
    s.fallback = s.busy = false;
    ++m_res.fallback;
    ++m_finished;
  }

  Emulator& m_e;
  cpu::Runner& m_task;
  const Scenario& m_sc;
  const Workload& m_w;
  const EmulatorConfig& m_cfg;
  MessagePool& m_pool;
  CpuHash& m_cpu_hash;
  LatencyStats& m_lat;
  VariantResult& m_res;
  ProgressTicker& m_ticker;
  FastForward& m_ff;
  std::vector<Slot> m_slots;
  cpu::Completion m_freed;
  bool m_failures_expected;
  ShaState m_iv;
  std::string m_failure;
  std::uint64_t m_submitted = 0, m_finished = 0, m_posted = 0, m_window = 0;
  HashAhead* m_ahead = nullptr;
  ReadOnlyPages m_frozen;
};

// What the other EE, the injected faults and the helper did, after the run.
void collect_extras(Emulator& e, const EmulatorConfig& cfg, const Scenario& sc, VariantResult& res,
                    const Snapshot& end) {
  if (qce::TzAgent* tz = e.tz()) {
    const qce::TzStats t = tz->stats();
    res.tz = {{"lock", cfg.tz.lock},
              {"jobs", t.jobs},
              {"completed", t.completed},
              {"digest_mismatches", t.digest_mismatches},
              {"errors", t.errors},
              {"timeouts", t.timeouts},
              {"lock_wait_s", t.lock_wait.to_seconds()}};
    const auto& cfgd = e.qce().config();
    res.lock_wait_s =
        (e.soc().bam.pipe_stats(cfgd.rx_pipe).lock_wait + e.soc().bam.pipe_stats(cfgd.tx_pipe).lock_wait).to_seconds();
  }
  res.live_state_writes = end.live_state_writes;
  if (sc.faults.any()) {
    std::uint64_t errors = 0, drops = 0;
    for (unsigned p = 0; p < e.soc().bam.config().num_pipes; ++p) {
      errors += e.soc().bam.pipe_stats(p).injected_errors;
      drops += e.soc().bam.pipe_stats(p).injected_drops;
    }
    const qce::QceStats& q = e.soc().qce.stats();
    res.faults = {{"bam_data_errors", errors},
                  {"bam_descriptor_drops", drops},
                  {"engine_axi_errors", q.injected_axi_errors},
                  {"engine_hangs", q.injected_hangs},
                  {"timeouts", e.qce().stats().timeouts}};
  }
  if (HashAhead* ha = e.soc().qce.hash_ahead()) res.hash_ahead_hits = ha->stats().hits;
}

// Totals over all cores between the two snapshots (idle time over the cores the workload used),
// the latency statistics and the profile.
void fill_totals(VariantResult& res, const Snapshot& s0, const Snapshot& s1, const LatencyStats& lat, const Workload& w,
                 const std::string& name) {
  res.wall_s = (s1.at - s0.at).to_seconds();
  for (std::size_t c = 0; c < s1.cores.size(); ++c) {
    auto ctx = [&](cpu::Ctx x) { return (s1.cores[c].of(x) - s0.cores[c].of(x)).to_seconds(); };
    res.task_s += ctx(cpu::Ctx::task);
    res.kworker_s += ctx(cpu::Ctx::kworker);
    res.softirq_s += ctx(cpu::Ctx::softirq);
    res.ksoftirqd_s += ctx(cpu::Ctx::ksoftirqd);
    res.hardirq_s += ctx(cpu::Ctx::hardirq);
    if (s1.used[c]) res.idle_s += (s1.cores[c].idle - s0.cores[c].idle).to_seconds();
  }
  res.softirq_s += res.ksoftirqd_s;  // CONFIG_IRQ_TIME_ACCOUNTING counts ksoftirqd as softirq
  res.cpu_s = res.task_s + res.kworker_s + res.softirq_s + res.hardirq_s;
  res.requests = lat.count();
  if (res.completed + res.failed + res.fallback != res.issued)
    throw std::logic_error(fmt::format("{}: {} issued but {} completed + {} failed + {} fallback", name, res.issued,
                                       res.completed, res.failed, res.fallback));
  res.bytes = w.bytes_of_first(res.completed + res.fallback);  // done: failed requests give no output
  res.irqs = s1.irqs - s0.irqs;
  res.bam_descriptors = s1.descriptors - s0.descriptors;
  res.lat_mean_us = lat.mean() / 1e3;
  res.lat_p50_us = lat.quantile(0.5) / 1e3;
  res.lat_p99_us = lat.quantile(0.99) / 1e3;
  res.lat_max_us = lat.max() / 1e3;
  for (const auto& [key, t] : s1.profile) {
    auto it = s0.profile.find(key);
    const double sec = (t - (it == s0.profile.end() ? sc_core::SC_ZERO_TIME : it->second)).to_seconds();
    if (sec > 0) res.profile.push_back({cpu::ctx_name(key.first), key.second, sec});
  }
  std::sort(res.profile.begin(), res.profile.end(),
            [](const FunctionTime& a, const FunctionTime& b) { return a.seconds > b.seconds; });
}

}  // namespace

// Latency of one request, from t0 to `end`, into the statistics and the timeline.
void record_latency(LatencyStats& lat, std::uint64_t id, const sc_time& t0, const sc_time& end) {
  lat.add((end - t0).to_seconds() * 1e9);
  if (auto* tr = Tracer::active()) tr->request_span(static_cast<std::int64_t>(id), t0, end);
}

VariantResult run_variant(const Scenario& sc, const Variant& v, bool timing_only, bool hash_ahead,
                          const ReplayProgress* progress) {
  const auto host_start = std::chrono::steady_clock::now();
  ProgressTicker ticker(progress, sc.workload.messages, host_start);
  const Profile prof = sc.profile_for(v);
  EmulatorConfig cfg = emulator_config(prof, v, timing_only, sc.workload, sc.faults);
  cfg.soc.qce.hash_ahead = hash_ahead && v.engine == VariantEngine::qce;
  Emulator emu(cfg);
  LatencyStats lat;
  VariantResult res;
  res.name = v.name;
  res.measured = measured_for(v, sc.workload);
  res.timing_only = timing_only;
  // Randomness (service-time variation, another EE, faults) and a timeline need every request.
  const bool ff_allowed = (!prof.has("sim.fast_forward") || prof.num("sim.fast_forward") != 0) &&
                          (cfg.soc.costs.cost_cv == 0 || cfg.soc.costs.seed == 0) && cfg.tz.rate_per_s == 0 &&
                          !sc.faults.any();
  Snapshot s0, s1;
  emu.run([&](Emulator& e) {
    if (auto* tr = Tracer::active()) tr->set_own_ee(cfg.soc.linux_ee, cfg.driver.rx_pipe / 2);
    const bool ff_on = ff_allowed && !Tracer::active();
    // The replay between the two snapshots, with the fast-forward watching it; the skipped
    // cycles' share added at the end.
    const auto replay = [&](const std::function<void(FastForward&)>& workload) {
      e.task().sync();
      s0 = snapshot(e);
      FastForward ff(e, lat, res, ff_on, hash_ahead);
      ff.set_progress([&ticker](std::uint64_t d, const char* phase) { ticker.tick(d, phase); },
                      sc.workload.message_bytes);
      workload(ff);
      e.task().sync();
      s1 = snapshot(e);
      ff.extend(s1);
      res.fast_forward = ff.info();
      collect_extras(e, cfg, sc, res, s1);
    };
    if (sc.workload.cipher()) {
      replay([&](FastForward& ff) {
        run_cipher_workload(
            e, sc, v, cfg, !timing_only, lat, res, [&ticker](std::uint64_t d) { ticker.tick(d); }, ff);
      });
      return;
    }
    MessagePool pool(e, sc.workload, !timing_only);
    replay([&](FastForward& ff) {
      CpuHash cpu_hash(e, sc.workload, pool, res);
      if (v.engine == VariantEngine::ce) {
        run_ce_path(e, v, sc.workload, cpu_hash, lat, res, ticker, ff, pool.size());
      } else {
        QcePath(e, sc, cfg, pool, cpu_hash, lat, res, ticker, ff).run();
      }
    });
  });
  fill_totals(res, s0, s1, lat, sc.workload, v.name);
  res.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - host_start).count();
  return res;
}

json VariantResult::to_json() const {
  json j = {{"name", name},
            {"wall_s", wall_s},
            {"cpu_s", cpu_s},
            {"hardirq_s", hardirq_s},
            {"softirq_s", softirq_s},
            {"task_s", task_s},
            {"kworker_s", kworker_s},
            {"idle_s", idle_s},
            {"ksoftirqd_s", ksoftirqd_s},
            {"requests", requests},
            {"bytes", bytes},
            {"latency_us", {{"mean", lat_mean_us}, {"p50", lat_p50_us}, {"p99", lat_p99_us}, {"max", lat_max_us}}},
            {"irqs", irqs},
            {"bam_descriptors", bam_descriptors},
            {"digest_mismatches", digest_mismatches},
            {"measured", measured},
            {"timing_only", timing_only},
            {"host_seconds", host_seconds}};
  j["hash_ahead_hits"] = hash_ahead_hits;
  j["issued"] = issued;
  j["completed"] = completed;
  j["failed"] = failed;
  j["fallback"] = fallback;
  j["software"] = software;
  if (fast_forward.skipped)
    j["fast_forward"] = {{"skipped", fast_forward.skipped},
                         {"period", fast_forward.period},
                         {"found_at", fast_forward.found_at},
                         {"period_s", fast_forward.period_s}};
  if (!faults.is_null()) j["faults"] = faults;
  j["failed_requests"] = failed_requests;
  j["live_state_writes"] = live_state_writes;
  if (!tz.is_null()) {
    j["lock_wait_s"] = lock_wait_s;
    j["tz"] = tz;
  }
  if (!race.empty()) j["race"] = race;
  json prof = json::array();
  for (const auto& f : profile) prof.push_back({{"context", f.ctx}, {"function", f.function}, {"cpu_s", f.seconds}});
  j["profile"] = prof;
  return j;
}

VariantResult VariantResult::from_json(const json& j) {
  VariantResult r;
  r.name = j.at("name");
  r.wall_s = j.at("wall_s");
  r.cpu_s = j.at("cpu_s");
  r.hardirq_s = j.at("hardirq_s");
  r.softirq_s = j.at("softirq_s");
  r.task_s = j.at("task_s");
  r.kworker_s = j.at("kworker_s");
  r.idle_s = j.at("idle_s");
  r.ksoftirqd_s = j.value("ksoftirqd_s", 0.0);
  r.requests = j.at("requests");
  r.bytes = j.at("bytes");
  r.irqs = j.at("irqs");
  r.bam_descriptors = j.at("bam_descriptors");
  r.digest_mismatches = j.at("digest_mismatches");
  r.lat_mean_us = j.at("latency_us").at("mean");
  r.lat_p50_us = j.at("latency_us").at("p50");
  r.lat_p99_us = j.at("latency_us").at("p99");
  r.lat_max_us = j.at("latency_us").at("max");
  r.measured = j.at("measured").get<std::map<std::string, double>>();
  r.timing_only = j.at("timing_only");
  r.host_seconds = j.at("host_seconds");
  for (const auto& f : j.at("profile")) r.profile.push_back({f.at("context"), f.at("function"), f.at("cpu_s")});
  r.failed_requests = j.value("failed_requests", std::uint64_t{0});
  r.issued = j.value("issued", std::uint64_t{0});
  r.completed = j.value("completed", std::uint64_t{0});
  r.failed = j.value("failed", std::uint64_t{0});
  r.fallback = j.value("fallback", std::uint64_t{0});
  r.software = j.value("software", std::uint64_t{0});
  if (j.contains("fast_forward")) {
    const json& f = j["fast_forward"];
    r.fast_forward = {f.at("skipped"), f.at("period"), f.at("found_at"), f.at("period_s")};
  }
  if (j.contains("faults")) r.faults = j["faults"];
  r.hash_ahead_hits = j.value("hash_ahead_hits", std::uint64_t{0});
  r.live_state_writes = j.value("live_state_writes", std::uint64_t{0});
  r.lock_wait_s = j.value("lock_wait_s", 0.0);
  if (j.contains("tz")) r.tz = j["tz"];
  r.race = j.value("race", "");
  return r;
}

}  // namespace qcesim::studies
