// Streaming latency statistics: count, mean, max and quantiles from a log-bucketed histogram
// (about 1% relative resolution). Nothing is kept per sample, so a million requests cost the
// same memory as ten.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace qcesim::model {

class LatencyStats {
 public:
  void add(double ns) {
    if (m_tap) m_tap->push_back(ns);
    ++m_count;
    m_sum += ns;
    if (ns > m_max) m_max = ns;
    ++m_buckets[bucket(ns)];
  }
  // The samples of `cycle`, in order, `times` times over: the same statistics as that many
  // add() calls (the sum is still added sample by sample, so it rounds as they would), with the
  // buckets found once. `each` is told every finished repetition (for progress); no tap.
  template <typename Each>
  void repeat(const std::vector<double>& cycle, std::uint64_t times, Each&& each) {
    if (cycle.empty() || times == 0) return;
    for (const double ns : cycle) {
      m_buckets[bucket(ns)] += times;
      if (ns > m_max) m_max = ns;
    }
    m_count += times * cycle.size();
    for (std::uint64_t k = 0; k < times; ++k) {
      for (const double ns : cycle) m_sum += ns;
      each(k + 1);
    }
  }
  std::uint64_t count() const { return m_count; }
  // Every sample from now on is also appended to `tap` (null: none); the replay's fast-forward
  // watches and repeats them.
  void set_tap(std::vector<double>* tap) { m_tap = tap; }
  double mean() const { return m_count ? m_sum / static_cast<double>(m_count) : 0; }
  double max() const { return m_max; }
  // The smallest bucket value with at least q of the samples at or below it.
  double quantile(double q) const {
    if (!m_count) return 0;
    const double target = q * static_cast<double>(m_count);
    double seen = 0;
    for (std::size_t i = 0; i < kBuckets; ++i) {
      seen += static_cast<double>(m_buckets[i]);
      if (seen >= target) return std::min(upper(i), m_max);
    }
    return m_max;
  }

 private:
  static constexpr std::size_t kBuckets = 2400;  // 1 ns .. ~20 s at 1% steps
  static constexpr double kStep = 1.01;
  static std::size_t bucket(double ns) {
    if (ns <= 1) return 0;
    const auto b = static_cast<std::size_t>(std::log(ns) / std::log(kStep)) + 1;
    return b < kBuckets ? b : kBuckets - 1;
  }
  static double upper(std::size_t b) { return std::pow(kStep, static_cast<double>(b)); }

  std::uint64_t m_count = 0;
  double m_sum = 0, m_max = 0;
  std::array<std::uint64_t, kBuckets> m_buckets{};
  std::vector<double>* m_tap = nullptr;
};

}  // namespace qcesim::model
