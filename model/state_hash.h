// A digest of a model's state at one instant, with every time taken relative to that instant: two
// instants whose digests are equal are (up to a collision of 64-bit hashes) the same state shifted
// in time, so a deterministic model runs the same from both. The replay's fast-forward
// (studies/fast_forward.h) compares these to find the period of a steady state.
#pragma once

#include <cstdint>
#include <cstring>
#include <systemc>

namespace qcesim::model {

class StateHash {
 public:
  explicit StateHash(const sc_core::sc_time& now) : m_now(now) {}

  void add(std::uint64_t v) {
    // One multiply-xorshift round per word: order-sensitive and well enough mixed for equality.
    m_h = (m_h ^ v) * 0xBF58476D1CE4E5B9ull;
    m_h ^= m_h >> 29;
  }
  void add(bool b) { add(std::uint64_t{b ? 1u : 0u}); }
  void add(double d) {
    std::uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    add(bits);
  }
  // A pointer names an object of this run (a runner, a queued function): the same object at
  // both instants.
  void add(const void* p) { add(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p))); }
  // A duration.
  void add_span(const sc_core::sc_time& t) { add(static_cast<std::uint64_t>(t.value())); }
  // An instant, as its signed distance from now.
  void add_at(const sc_core::sc_time& t) {
    add(t >= m_now ? std::uint64_t{1} : std::uint64_t{2});
    add_span(t >= m_now ? t - m_now : m_now - t);
  }

  const sc_core::sc_time& now() const { return m_now; }
  std::uint64_t value() const { return m_h; }

 private:
  sc_core::sc_time m_now;
  std::uint64_t m_h = 0x243F6A8885A308D3ull;
};

}  // namespace qcesim::model
