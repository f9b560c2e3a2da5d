// splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA
// 2014): a counter-based generator whose stream depends only on its seed, so a sample, a Morris
// trajectory or a core's service-time draws come out the same whatever runs beside them.
#pragma once

#include <cmath>
#include <cstdint>

namespace qcesim::model {

inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Uniform in (0, 1), from the top 53 bits.
inline double unit_uniform(std::uint64_t& state) {
  return (static_cast<double>(splitmix64(state) >> 11) + 0.5) / 9007199254740992.0;
}

// The standard normal's 95th percentile: a 90 % interval is this many standard deviations
// either side of its middle.
constexpr double kNormalP95 = 1.6448536269514722;

// A standard normal (Box-Muller; the second value is dropped: the stream is a counter anyway).
inline double standard_normal(std::uint64_t& state) {
  const double u1 = unit_uniform(state), u2 = unit_uniform(state);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace qcesim::model
