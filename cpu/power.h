// A core's clock and idle states: the cpufreq governor that sets the frequency the CPU-bound cost
// items run at, and the cpuidle states an idle core sleeps in, whose exit latency an interrupt
// pays before its handler starts. Event-driven like the core itself: the governor looks at the
// utilisation when the core switches work (at most once per rate limit), and the idle governor
// chooses a state when the core goes idle. Nothing ticks.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <systemc>
#include <vector>

namespace qcesim::model {
class Profile;
}

namespace qcesim::cpu {

enum class Governor : std::uint8_t {
  performance,  // always the maximum frequency
  schedutil,    // kernel/sched/cpufreq_schedutil.c: f = 1.25 * f_max * util, util from PELT
  ondemand,     // drivers/cpufreq/cpufreq_ondemand.c: f from the busy share of the last sampling period
};

// One cpuidle state (the DT's idle-state node, or the driver's WFI state 0).
struct IdleState {
  std::string name;
  sc_core::sc_time exit_latency;      // wake-up: the interrupt waits this long
  sc_core::sc_time target_residency;  // the governor picks it only for idle periods at least this long
};

struct CpuPower {
  Governor governor = Governor::performance;
  double freq_max = 0;          // GHz; the core type's (cpu/core_type.h): work items are timed at this clock
  double freq_min = 0;          // GHz; schedutil's floor (the lowest OPP)
  sc_core::sc_time rate_limit;  // schedutil's rate_limit_us: at most one change per this long
  // The frequencies the clock driver offers (the DT's OPP table), GHz ascending; empty: any.
  std::vector<double> opps;
  double up_threshold = 0.95;      // ondemand: a busier period than this goes straight to f_max
  sc_core::sc_time sampling_rate;  // ondemand: one look per this long
  // Shallowest first; empty: an idle core takes an interrupt at once (the untimed emulator).
  std::vector<IdleState> idle_states;
};

// The governors from the profile: cpu.governor, cpu.governor_rate_limit
// and the cpuidle.* states (cpuidle.off = 1 keeps only WFI, as booting with cpuidle.off=1 does).
CpuPower cpu_power_from_profile(const model::Profile& p);
Governor parse_governor(const std::string& name);  // std::invalid_argument if unknown
const char* governor_name(Governor g);

// The OPP a governor's target resolves to, as cpufreq_frequency_table_target does: `at_or_above`
// (CPUFREQ_RELATION_L, schedutil's) the lowest at or above the target, else (RELATION_C,
// ondemand's) the nearest, a tie to the lower; the target itself when there is no table.
double resolve_opp(const std::vector<double>& opps, double f, bool at_or_above);
// ondemand's od_update for a period that was busy `load` of the time (0..1): above up_threshold
// f_max, else f_min + load (f_max - f_min), resolved to the nearest OPP.
double ondemand_target(const CpuPower& p, double load);

// PELT's utilisation as a continuous exponential average: a 32 ms half-life (y^32 = 1/2 per
// 1024 us period), frequency-invariant (busy time counts at f / f_max). The measured benchmarks
// ran for seconds (P1 4.85 s, openssl speed 3 s per size) and a replay simulates milliseconds of
// them, so the average is over the time seen, weighted as PELT weights it, with no idle history
// assumed before the run: the exponential sum divided by the weight it has gathered (1 - y^t).
// From a few rate limits in, the governor sees the steady state such a run reaches, not the ramp
// from an idle core; after 20 half-lives (640 ms) it is PELT's own average.
class Pelt {
 public:
  // `busy` for `dt` at `scale` = f / f_max.
  void account(const sc_core::sc_time& dt, bool busy, double scale);
  // 0 before any time has passed.
  double util() const { return m_weight > 0 ? m_sum / m_weight : 0.0; }
  template <class H>
  void fingerprint(H& h) const {
    h.add(m_sum);
    h.add(m_weight);
  }

 private:
  double m_sum = 0;     // the exponential average with a zero history
  double m_weight = 0;  // 1 - y^t: the weight the seen time carries in it
};

// menu-like idle prediction: the mean of the last 8 idle periods; the deepest state whose
// target residency fits it. With no history yet, the shallowest.
class IdlePredictor {
 public:
  void observe(const sc_core::sc_time& idle);
  std::size_t choose(const std::vector<IdleState>& states) const;
  // The periods it remembers, newest first (what choose() and the next observe() depend on).
  template <class H>
  void fingerprint(H& h) const {
    const std::size_t n = std::min(m_count, m_last.size());
    h.add(std::uint64_t{n});
    for (std::size_t k = 1; k <= n; ++k) h.add_span(m_last[(m_count - k) % m_last.size()]);
  }

 private:
  std::array<sc_core::sc_time, 8> m_last{};
  std::size_t m_count = 0;
};

}  // namespace qcesim::cpu
