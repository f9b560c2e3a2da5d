#include "cpu/power.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "model/profile.h"

namespace qcesim::cpu {

using sc_core::sc_time;

Governor parse_governor(const std::string& name) {
  if (name == "performance") return Governor::performance;
  if (name == "schedutil") return Governor::schedutil;
  if (name == "ondemand") return Governor::ondemand;
  throw std::invalid_argument("performance, schedutil or ondemand");
}

const char* governor_name(Governor g) {
  switch (g) {
    case Governor::schedutil:
      return "schedutil";
    case Governor::ondemand:
      return "ondemand";
    case Governor::performance:
      break;
  }
  return "performance";
}

double resolve_opp(const std::vector<double>& opps, double f, bool at_or_above) {
  if (opps.empty()) return f;
  const auto up = std::lower_bound(opps.begin(), opps.end(), f);
  if (up == opps.end()) return opps.back();
  if (at_or_above || up == opps.begin()) return *up;
  const double below = *(up - 1);
  return f - below <= *up - f ? below : *up;
}

double ondemand_target(const CpuPower& p, double load) {
  if (load > p.up_threshold) return p.freq_max;
  const double f = p.freq_min + std::clamp(load, 0.0, 1.0) * (p.freq_max - p.freq_min);
  return std::clamp(resolve_opp(p.opps, f, false), p.freq_min, p.freq_max);
}

CpuPower cpu_power_from_profile(const model::Profile& p) {
  CpuPower w;
  w.governor = model::parse_named(p.param("cpu.governor"), "a cpufreq governor", parse_governor);
  w.rate_limit = p.time("cpu.governor_rate_limit");
  w.up_threshold = p.num("cpu.ondemand.up_threshold");
  w.sampling_rate = p.time("cpu.ondemand.sampling_rate");
  // Every cpuidle.<state>.exit_latency with its target_residency, shallowest first.
  const std::string suffix = ".exit_latency";
  for (const auto& [name, prm] : p.params()) {
    if (name.rfind("cpuidle.", 0) != 0 || name.size() <= suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string state = name.substr(8, name.size() - 8 - suffix.size());
    const std::string residency = "cpuidle." + state + ".target_residency";
    if (!p.has(residency))
      throw model::ConfigError(prm.origin_file, "/parameters/" + residency,
                               "the target residency of the idle state " + state + " (a time)", "nothing");
    w.idle_states.push_back({state, p.time(name), p.time(residency)});
  }
  std::stable_sort(w.idle_states.begin(), w.idle_states.end(),
                   [](const IdleState& a, const IdleState& b) { return a.exit_latency < b.exit_latency; });
  if (p.num("cpuidle.off") != 0 && w.idle_states.size() > 1) w.idle_states.resize(1);
  return w;
}

void Pelt::account(const sc_time& dt, bool busy, double scale) {
  // y = 2^(-dt / 32 ms): the part of the old average still weighing after dt.
  const double y = std::exp2(-dt.to_seconds() / 32e-3);
  m_sum = m_sum * y + (busy ? scale : 0.0) * (1.0 - y);
  m_weight = m_weight * y + (1.0 - y);
  // Past 20 half-lives (640 ms) the missing history weighs under 2^-20: PELT's own average from
  // then on, exactly, so a steady state can repeat (the fast-forward looks for that).
  if (m_weight > 1.0 - 0x1p-20) m_weight = 1.0;
}

void IdlePredictor::observe(const sc_time& idle) {
  m_last[m_count % m_last.size()] = idle;
  ++m_count;
}

std::size_t IdlePredictor::choose(const std::vector<IdleState>& states) const {
  if (states.empty() || m_count == 0) return 0;
  const std::size_t n = std::min(m_count, m_last.size());
  sc_time sum;
  for (std::size_t i = 0; i < n; ++i) sum += m_last[i];
  const sc_time predicted = sum / static_cast<double>(n);
  std::size_t best = 0;
  for (std::size_t i = 0; i < states.size(); ++i)
    if (states[i].target_residency <= predicted) best = i;
  return best;
}

}  // namespace qcesim::cpu
