#include "studies/fast_forward.h"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <thread>

#include <spdlog/fmt/fmt.h>

#include "model/state_hash.h"
#include "model/timing_state.h"
#include "studies/replay.h"

namespace qcesim::studies {

using sc_core::sc_time;

namespace {

// The longest cycle looked for, in loop boundaries (requests, at queue depth 1): the window
// keeps two of them and a bit.
constexpr std::size_t kMaxCycle = 4096;
constexpr std::size_t kWindow = 2 * kMaxCycle + 64;

sc_time times(const sc_time& t, std::uint64_t n) { return sc_time::from_value(t.value() * n); }

// The result's request counters a cycle adds to (kCycle in QCESIM_RESULT_FIELDS; the data
// checks are made per request).
void add_counter(std::vector<std::uint64_t*>& v, std::uint64_t& c, unsigned flags) {
  if (flags & kCycle) v.push_back(&c);
}
void add_counter(std::vector<std::uint64_t*>&, double&, unsigned flags) {
  if (flags & kCycle) throw std::logic_error("a cycle counter must be a count");
}
std::vector<std::uint64_t*> counters(VariantResult& r) {
  std::vector<std::uint64_t*> v;
#define QCESIM_RESULT_COUNTER(member, key, kind, flags, ...) add_counter(v, r.member, flags);
#define QCESIM_RESULT_SKIP(...)
  QCESIM_RESULT_FIELDS(QCESIM_RESULT_COUNTER, QCESIM_RESULT_SKIP, QCESIM_RESULT_SKIP, QCESIM_RESULT_SKIP)
#undef QCESIM_RESULT_COUNTER
#undef QCESIM_RESULT_SKIP
  return v;
}
std::vector<std::uint64_t> counter_values(VariantResult& r) {
  std::vector<std::uint64_t> v;
  for (const std::uint64_t* c : counters(r)) v.push_back(*c);
  return v;
}

}  // namespace

Snapshot snapshot(soc::Emulator& e) {
  Snapshot s;
  for (unsigned c = 0; c < e.kernel().num_cores(); ++c) {
    s.cores.push_back(e.kernel().core(c).times());
    s.used.push_back(e.kernel().core(c).used());
    for (const auto& [k, t] : e.kernel().core(c).profile()) s.profile[k] += t;
  }
  s.irqs = e.kernel().hardirqs();
  for (unsigned p = 0; p < e.soc().bam.config().num_pipes; ++p) s.descriptors += e.soc().bam.pipe_stats(p).descriptors;
  s.live_state_writes = e.soc().qce.stats().live_state_writes;
  s.lock_pairs = e.bam_dma().chan(e.qce().config().rx_pipe).stats.lock_pairs;
  s.at = sc_core::sc_time_stamp();
  return s;
}

FastForward::FastForward(soc::Emulator& e, model::LatencyStats& lat, VariantResult& res, bool enabled, bool spare_core)
    : m_e(e),
      m_spare_core(spare_core),
      m_lat(lat),
      m_res(res),
      // A part that draws random numbers deciding timing (faults, varying costs, another EE)
      // never repeats a state: it switches the fast-forward off by saying so.
      m_phase(enabled && e.random_part().empty() ? Phase::searching : Phase::done) {
  if (m_phase == Phase::done) return;
  m_lat.set_tap(&m_tap);
  m_last_at = sc_core::sc_time_stamp();
  for (unsigned c = 0; c < e.kernel().num_cores(); ++c) {
    m_last_times.push_back(e.kernel().core(c).times());
    e.kernel().core(c).digest_charges(true);
  }
  m_last_irqs = e.kernel().hardirqs();
}

FastForward::~FastForward() { stop_watching(); }

// Done: no more digests, so no latency tap and no charge digests either.
void FastForward::stop_watching() {
  m_phase = Phase::done;
  m_lat.set_tap(nullptr);
  for (unsigned c = 0; c < m_e.kernel().num_cores(); ++c) m_e.kernel().core(c).digest_charges(false);
}

// The platform's state now and what the stretch since the last boundary did.
std::uint64_t FastForward::digest(std::uint64_t loop_state) {
  const sc_time now = sc_core::sc_time_stamp();
  model::StateHash h(now);
  m_e.fingerprint(h);
  h.add(loop_state);
  h.add_span(now - m_last_at);
  m_last_at = now;
  for (unsigned c = 0; c < m_e.kernel().num_cores(); ++c) {
    cpu::Core& core = m_e.kernel().core(c);
    h.add(core.take_charge_digest());
    const cpu::CpuTimes t = core.times();
    for (std::size_t x = 0; x < cpu::kNumCtx; ++x) h.add_span(t.ctx[x] - m_last_times[c].ctx[x]);
    h.add_span(t.idle - m_last_times[c].idle);
    m_last_times[c] = t;
  }
  h.add(m_e.kernel().hardirqs() - m_last_irqs);
  m_last_irqs = m_e.kernel().hardirqs();
  // The latencies recorded since: while confirming, the cycle's are kept (the skip repeats them).
  const std::size_t from = m_phase == Phase::confirming ? m_tap_hashed : 0;
  h.add(std::uint64_t{m_tap.size() - from});
  for (std::size_t i = from; i < m_tap.size(); ++i) h.add(m_tap[i]);
  if (m_phase == Phase::confirming) {
    m_tap_hashed = m_tap.size();
  } else {
    m_tap.clear();
  }
  return h.value();
}

void FastForward::restart_search() {
  m_phase = Phase::searching;
  m_history.clear();
  m_seen.clear();
  m_tap.clear();
  m_tap_hashed = 0;
}

std::uint64_t FastForward::at_boundary(std::uint64_t submitted, std::uint64_t total, std::uint64_t loop_state) {
  if (m_phase == Phase::done) return 0;
  const std::uint64_t f = digest(loop_state);
  const std::size_t i = m_history.size();
  m_history.push_back(f);
  if (m_phase == Phase::searching) {
    auto it = m_seen.find(f);
    if (it != m_seen.end()) {
      // Seen at j: a candidate cycle of i - j boundaries, taken if the cycle before it was the
      // same too, then confirmed over one more.
      const std::size_t j = it->second, p = i - j;
      bool twice = j + 1 >= p;
      for (std::size_t k = 1; twice && k < p; ++k) twice = m_history[i - k] == m_history[j - k];
      if (twice) {
        m_phase = Phase::confirming;
        m_cycle = p;
        m_cycle_end = i + p;
        model::TimingState::cycle_start_all();
        m_start = snapshot(m_e);
        m_start_submitted = submitted;
        m_start_counters = counter_values(m_res);
        m_tap.clear();
        m_tap_hashed = 0;
        return 0;
      }
    }
    m_seen[f] = i;
    if (m_history.size() >= kWindow) restart_search();
    return 0;
  }
  // Confirming: every boundary as the same one a cycle earlier.
  if (f != m_history[i - m_cycle]) {
    restart_search();
    return 0;
  }
  if (i < m_cycle_end) return 0;
  const std::uint64_t per_cycle = submitted - m_start_submitted;
  if (per_cycle == 0) {  // a cycle that issues nothing cannot be skipped by requests
    restart_search();
    return 0;
  }
  const std::uint64_t to_end = (total - submitted) / per_cycle;
  // As many cycles as fit before the end, or before a part's next change by the clock (an
  // ondemand governor's look): then the search starts again after it.
  const Snapshot end = snapshot(m_e);
  const sc_time span = end.at - m_start.at;
  const sc_time horizon = model::TimingState::repeat_horizon_all();
  // Strictly before the horizon: k cycles fit when k * span < horizon.
  std::uint64_t fit = to_end;
  if (span != sc_core::SC_ZERO_TIME && horizon != sc_core::sc_max_time())
    fit = horizon == sc_core::SC_ZERO_TIME ? 0 : (horizon.value() - 1) / span.value();
  const std::uint64_t cycles = std::min(to_end, fit);
  // After it (or when none fits) the search starts again, unless this was the end's.
  const auto search_again = [this, last = cycles == to_end] {
    restart_search();
    if (last) stop_watching();
  };
  if (cycles == 0) {
    search_again();
    return 0;
  }
  // The skipped cycles: each the one just simulated.
  // SystemC counts time in 64 bits of its resolution (1 ps: 213 days); simulating every request
  // would run out of it too.
  const long double reach = static_cast<long double>(end.at.value()) +
                            static_cast<long double>(m_skipped_time.value()) +
                            static_cast<long double>(span.value()) * static_cast<long double>(cycles + 1);
  if (reach >= static_cast<long double>(sc_core::sc_max_time().value()))
    throw std::runtime_error(
        fmt::format("the run would last about {:.3g} s of simulated time, more than SystemC's time "
                    "range ({:.3g} s at its resolution): fewer requests",
                    static_cast<double>(reach * 1e-12L), sc_core::sc_max_time().to_seconds()));
  Stretch st;
  st.cycles = cycles;
  Snapshot& delta = st.delta;
  delta.at = span;
  for (std::size_t c = 0; c < end.cores.size(); ++c) {
    cpu::CpuTimes d;
    for (std::size_t x = 0; x < cpu::kNumCtx; ++x) d.ctx[x] = end.cores[c].ctx[x] - m_start.cores[c].ctx[x];
    d.idle = end.cores[c].idle - m_start.cores[c].idle;
    delta.cores.push_back(d);
  }
  for (const auto& [key, t] : end.profile) {
    auto it = m_start.profile.find(key);
    const sc_time d = t - (it == m_start.profile.end() ? sc_core::SC_ZERO_TIME : it->second);
    if (d != sc_core::SC_ZERO_TIME) delta.profile[key] = d;
  }
  delta.irqs = end.irqs - m_start.irqs;
  delta.descriptors = end.descriptors - m_start.descriptors;
  delta.live_state_writes = end.live_state_writes - m_start.live_state_writes;
  delta.lock_pairs = end.lock_pairs - m_start.lock_pairs;
  m_skipped_time += times(span, cycles);
  // Latencies in the order the full run records them: the cycles' come before what follows.
  m_lat.repeat(m_tap, cycles, [&](std::uint64_t k) {
    if (m_progress) m_progress(submitted + k * per_cycle, "requests");
  });
  const std::vector<std::uint64_t*> now = counters(m_res);
  for (std::size_t k = 0; k < now.size(); ++k) *now[k] += cycles * (*now[k] - m_start_counters[k]);
  // The parts' clock-bound state moves on by the skipped time (the simulation's clock stays).
  model::TimingState::skip_cycles_all(cycles, span);
  m_stretches.push_back(std::move(st));
  const std::uint64_t skipped = cycles * per_cycle;
  // The cycle reported: the steady state's, the stretch no part bounded (it runs to the end);
  // where every stretch was bounded (a governor that never settles), the one that repeated the
  // most requests.
  if (horizon == sc_core::sc_max_time() || skipped > m_most_skipped) {
    m_most_skipped = skipped;
    m_info.period = per_cycle;
    m_info.found_at = m_start_submitted;
    m_info.period_s = span.to_seconds();
  }
  m_info.skipped += skipped;
  ++m_info.stretches;
  search_again();
  return skipped;
}

std::uint64_t FastForward::check_skipped(std::uint64_t first, std::uint64_t n, const CheckOutputs& check) const {
  // In chunks, so that a long check (52 GB of skipped 1 MiB messages) reports its progress.
  std::uint64_t wrong = 0;
  for (std::uint64_t done = 0; done < n;) {
    const std::uint64_t k = std::min(m_check_chunk, n - done);
    wrong += check_in_halves(first + done, k, m_spare_core, check);
    done += k;
    if (m_progress) m_progress(first + done, "skipped requests' outputs checked");
  }
  return wrong;
}

std::uint64_t FastForward::check_in_halves(std::uint64_t first, std::uint64_t n, bool helper_thread,
                                           const CheckOutputs& check) {
  if (!helper_thread || n < 128) return check(first, n);
  const std::uint64_t half = n / 2;
  std::uint64_t second = 0;
  std::exception_ptr failure;
  std::thread helper([&] {
    try {
      second = check(first + half, n - half);
    } catch (...) {
      failure = std::current_exception();
    }
  });
  std::uint64_t wrong = 0;
  try {
    wrong = check(first, half);
  } catch (...) {
    helper.join();
    throw;
  }
  helper.join();
  if (failure) std::rethrow_exception(failure);
  return wrong + second;
}

void FastForward::extend(Snapshot& end) const {
  for (const Stretch& st : m_stretches) {
    const std::uint64_t n = st.cycles;
    const Snapshot& d = st.delta;
    end.at += times(d.at, n);
    for (std::size_t c = 0; c < end.cores.size() && c < d.cores.size(); ++c) {
      for (std::size_t x = 0; x < cpu::kNumCtx; ++x) end.cores[c].ctx[x] += times(d.cores[c].ctx[x], n);
      end.cores[c].idle += times(d.cores[c].idle, n);
    }
    for (const auto& [key, t] : d.profile) end.profile[key] += times(t, n);
    end.irqs += n * d.irqs;
    end.descriptors += n * d.descriptors;
    end.live_state_writes += n * d.live_state_writes;
    end.lock_pairs += n * d.lock_pairs;
  }
}

}  // namespace qcesim::studies
