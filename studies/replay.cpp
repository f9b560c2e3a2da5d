#include "studies/replay.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <spdlog/fmt/fmt.h>

#include "cpu/ce_core.h"
#include "cpu/core_type.h"
#include "drivers/crypto/qce/fallback.h"
#include "model/hash_ahead.h"
#include "model/stats.h"
#include "model/trace.h"
#include "studies/workloads.h"
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
  c.driver.coherent_ce = v.coherent_ce;
  c.driver.lock_mmio = v.bam_lock && v.reg_io == qce::RegIo::mmio;
  c.driver.lock_batch = v.lock_batch;
  c.driver.lock_when_shared = v.lock_when_shared;
  c.driver.lock_inline = v.lock_inline;
  c.driver.poll = v.poll;
  c.driver.poll_at_load = v.poll_at_load;
  c.driver.rx_interrupt = v.rx_interrupt;
  c.driver.unlock_interrupt = v.unlock_interrupt;
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
  // Times scale with the number of messages; a count per request does not.
  for (auto& [k, val] : m)
    if (k != kIrqsPerRequest) val *= static_cast<double>(w.messages) / mm;
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
    c.tz.lock = v.bam_lock;  // one protocol for the whole system
    c.tz.seed = w.tz.seed;
    c.tz.share_hold = sc_time(w.tz.share_hold_us, sc_core::SC_US);
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
    if (cfg.driver.lock_when_shared) {
      res.tz["share_wait_s"] = t.share_wait.to_seconds();
      res.tz["share_switches"] = t.share_switches;
    }
    const auto& cfgd = e.qce().config();
    res.lock_wait_s =
        (e.soc().bam.pipe_stats(cfgd.rx_pipe).lock_wait + e.soc().bam.pipe_stats(cfgd.tx_pipe).lock_wait).to_seconds();
  }
  res.live_state_writes = end.live_state_writes;
  if (sc.faults.any()) {
    // Each fault kind's count from the block that injects it (QCESIM_FAULT_KINDS).
    std::map<std::string, std::uint64_t> injected;
    for (unsigned p = 0; p < e.soc().bam.config().num_pipes; ++p) {
      injected["bam_data_error"] += e.soc().bam.pipe_stats(p).injected_errors;
      injected["bam_descriptor_drop"] += e.soc().bam.pipe_stats(p).injected_drops;
    }
    injected["engine_axi_error"] = e.soc().qce.stats().injected_axi_errors;
    injected["engine_hang"] = e.soc().qce.stats().injected_hangs;
    res.faults = {{"timeouts", e.qce().stats().timeouts}};
    for (const FaultKind& k : fault_kinds()) {
      if (!injected.count(k.key)) throw std::logic_error(std::string("fault kind ") + k.key + " has no count");
      res.faults[k.counter] = injected[k.key];
    }
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
  res.lock_pairs = s1.lock_pairs - s0.lock_pairs;
  res.lat_mean_us = lat.mean() / 1e3;
  res.lat_p50_us = lat.quantile(0.5) / 1e3;
  res.lat_p99_us = lat.quantile(0.99) / 1e3;
  res.lat_max_us = lat.max() / 1e3;
  for (const auto& [key, t] : s1.profile) {
    auto it = s0.profile.find(key);
    const double sec = (t - (it == s0.profile.end() ? sc_core::SC_ZERO_TIME : it->second)).to_seconds();
    if (sec > 0) res.profile.push_back({cpu::ctx_name(key.first), key.second, sec});
    // The kernel counts interrupt edges on an idle core as idle: not CPU time, nor a mechanism's.
    if (sec <= 0 || key.first == cpu::Ctx::idle) continue;
    switch (mechanism_of(key.second)) {
#define QCESIM_MECHANISM_ADD(A, name, ...) \
  case Mechanism::name:                    \
    res.mech_##name##_s += sec;            \
    break;
      QCESIM_MECHANISMS(QCESIM_MECHANISM_ADD, _)
#undef QCESIM_MECHANISM_ADD
    }
  }
  std::sort(res.profile.begin(), res.profile.end(),
            [](const FunctionTime& a, const FunctionTime& b) { return a.seconds > b.seconds; });
}

}  // namespace

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
  // A timeline needs every request; the parts that draw random numbers (service-time variation,
  // another EE, faults) switch the fast-forward off themselves (model/timing_state.h).
  const bool ff_allowed = !prof.has("sim.fast_forward") || prof.num("sim.fast_forward") != 0;
  Snapshot s0, s1;
  emu.run([&](Emulator& e) {
    if (auto* tr = Tracer::active()) tr->set_own_ee(cfg.soc.linux_ee, cfg.driver.rx_pipe / 2);
    const bool ff_on = ff_allowed && !Tracer::active();
    const bool engine = v.engine == VariantEngine::qce;
    const std::unique_ptr<RequestWorkload> workload =
        sc.workload.cipher() ? make_cipher_workload(e, sc.workload, cfg, engine, !timing_only)
                             : make_hash_workload(e, sc.workload, v, !timing_only);
    RequestLoopConfig loop;
    loop.messages = sc.workload.messages;
    loop.queue_depth = sc.workload.queue_depth;
    loop.failures_expected = e.tz() != nullptr || sc.faults.any();
    loop.cpu_fallback = sc.faults.cpu_fallback;
    loop.timeout = cfg.driver.timeout;
    // The caller's charges by message size, built once per size (a size mix has at most 16); an
    // in-kernel caller's are its wait alone.
    std::map<std::uint32_t, CallerCharges> caller_by_size;
    loop.caller = [&wl = sc.workload, &k = e.kernel().costs(),
                   &caller_by_size](std::uint32_t bytes) -> const CallerCharges& {
      auto it = caller_by_size.find(bytes);
      if (it == caller_by_size.end()) it = caller_by_size.emplace(bytes, caller_charges(wl, k, bytes)).first;
      return it->second;
    };
    // The replay between the two snapshots, with the fast-forward watching it; the skipped
    // cycles' share added at the end.
    e.task().sync();
    s0 = snapshot(e);
    FastForward ff(e, lat, res, ff_on, hash_ahead);
    ff.set_progress([&ticker](std::uint64_t d, const char* phase) { ticker.tick(d, phase); },
                    sc.workload.message_bytes);
    run_requests(
        e, *workload, loop, engine, lat, res, [&ticker](std::uint64_t d) { ticker.tick(d); }, ff);
    e.task().sync();
    s1 = snapshot(e);
    ff.extend(s1);
    res.fast_forward = ff.info();
    collect_extras(e, cfg, sc, res, s1);
  });
  fill_totals(res, s0, s1, lat, sc.workload, v.name);
  res.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - host_start).count();
  return res;
}

namespace {

template <class T>
void read_field(const json& j, const char* key, unsigned flags, T& out) {
  const json* v = find_result_key(j, key);
  if (!v) {
    if (flags & kRequired) throw std::out_of_range(fmt::format("key '{}' not found", key));
    out = 0;
    return;
  }
  out = v->get<T>();
}

}  // namespace

json VariantResult::to_json() const {
  json j = {{"name", name}, {"measured", measured}, {"timing_only", timing_only}};
#define QCESIM_RESULT_WRITE(member, key, kind, flags, ...) \
  if (!((flags)&kWithTz) || !tz.is_null()) result_key_slot(j, key) = member;
#define QCESIM_RESULT_SKIP(...)
  QCESIM_RESULT_FIELDS(QCESIM_RESULT_WRITE, QCESIM_RESULT_SKIP, QCESIM_RESULT_SKIP, QCESIM_RESULT_SKIP)
#undef QCESIM_RESULT_WRITE
  if (fast_forward.skipped)
    j["fast_forward"] = {{"skipped", fast_forward.skipped},
                         {"period", fast_forward.period},
                         {"found_at", fast_forward.found_at},
                         {"period_s", fast_forward.period_s},
                         {"stretches", fast_forward.stretches}};
  if (!faults.is_null()) j["faults"] = faults;
  if (!tz.is_null()) j["tz"] = tz;
  if (!race.empty()) j["race"] = race;
  json prof = json::array();
  for (const auto& f : profile) prof.push_back({{"context", f.ctx}, {"function", f.function}, {"cpu_s", f.seconds}});
  j["profile"] = prof;
  return j;
}

std::vector<FunctionTime> profile_from_json(const json& profile) {
  std::vector<FunctionTime> out;
  out.reserve(profile.size());
  for (const auto& f : profile) out.push_back({f.at("context"), f.at("function"), f.at("cpu_s")});
  return out;
}

VariantResult VariantResult::from_json(const json& j) {
  VariantResult r;
  r.name = j.at("name");
#define QCESIM_RESULT_READ(member, key, kind, flags, ...) read_field(j, key, flags, r.member);
  QCESIM_RESULT_FIELDS(QCESIM_RESULT_READ, QCESIM_RESULT_SKIP, QCESIM_RESULT_SKIP, QCESIM_RESULT_SKIP)
#undef QCESIM_RESULT_READ
#undef QCESIM_RESULT_SKIP
  r.measured = j.at("measured").get<std::map<std::string, double>>();
  r.timing_only = j.at("timing_only");
  r.profile = profile_from_json(j.at("profile"));
  if (j.contains("fast_forward")) {
    const json& f = j["fast_forward"];
    r.fast_forward = {f.at("skipped"), f.at("period"), f.at("found_at"), f.at("period_s"),
                      f.value("stretches", std::uint64_t{1})};
  }
  if (j.contains("faults")) r.faults = j["faults"];
  if (j.contains("tz")) r.tz = j["tz"];
  r.race = j.value("race", "");
  return r;
}

}  // namespace qcesim::studies
