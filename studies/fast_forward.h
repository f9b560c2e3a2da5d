// Fast-forward through a replay's steady state. A replay sends the same requests again and again
// into a deterministic model, which settles after a few of them into a cycle: the platform's
// state at the top of the workload loop repeats, shifted in time. Once it has repeated, every
// further cycle is the one just simulated, so the replay simulates two cycles to be sure, skips
// as many whole cycles as fit before the end (their time, CPU time per context and function,
// interrupts, descriptors, counters and latencies added exactly), and simulates the rest, the
// drain at the end included. A part whose clock-bound state the digest leaves out (an unsettled
// ondemand governor's period) can stop a skip short of its next change
// (TimingState::repeat_horizon); the change is then simulated and the search starts again. The
// results are those of simulating every request (tests compare the two on every shipped
// scenario); only the host time differs.
//
// "The state" is the digest of everything that decides what the platform does next
// (every part registered as a model::TimingState: the cores, their threads and governors, kernel
// queues and timers, dma-mapping, the BAM's pipes and lock, the engine, both drivers, the
// interrupt lines; and the workload loop's slots and next message), taken with every time
// relative to now, together with what the last stretch did (the CPU work charged on each core,
// item by item, the time per context, the latencies recorded). Off with sim.fast_forward = 0 and
// with a timeline (whose records need every request), and off by itself while a part says its
// state cannot repeat (TimingState::repeats: service-time variation, another EE, injected faults).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/stats.h"
#include "soc/soc.h"

namespace qcesim::studies {

struct VariantResult;

// Totals over all cores at one instant (replay.cpp takes one before and one after the workload).
struct Snapshot {
  std::vector<cpu::CpuTimes> cores;
  std::vector<bool> used;  // per core: has anything run there (cpu::Core::used)
  std::map<std::pair<cpu::Ctx, std::string>, sc_core::sc_time> profile;
  std::uint64_t irqs = 0, descriptors = 0, live_state_writes = 0, lock_pairs = 0;
  sc_core::sc_time at;
};
Snapshot snapshot(soc::Emulator& e);

// What the fast-forward did, for the results (all zero when it did not skip). A run skips once,
// to its end, unless a part bounds how far (an ondemand governor that has not settled: up to its
// next look); then it skips again once the state repeats after it. The cycle is that of the skip
// no part bounded (to the end), else of the one that repeated the most requests.
struct FastForwardInfo {
  std::uint64_t skipped = 0;    // requests not simulated, in all skips
  std::uint64_t period = 0;     // requests per cycle
  std::uint64_t found_at = 0;   // requests submitted when the cycle was seen twice (confirming began)
  double period_s = 0;          // simulated time per cycle
  std::uint64_t stretches = 0;  // skips (1 unless a part bounded one)
};

class FastForward {
 public:
  // `enabled` false: at_boundary() never skips (and costs nothing). `spare_core`: the host has a
  // core for a helper thread (check_skipped).
  FastForward(soc::Emulator& e, model::LatencyStats& lat, VariantResult& res, bool enabled, bool spare_core = false);
  ~FastForward();
  FastForward(const FastForward&) = delete;
  FastForward& operator=(const FastForward&) = delete;

  // At the top of the workload loop, on the task's thread: `submitted` of `total` requests
  // issued so far; `loop_state` the loop's own digest (its slots, the next message's place in
  // the pool). Returns how many requests to skip (whole cycles, 0 mostly): the caller then
  // moves its counters on by that many and processes their data (with real data), and the
  // skipped cycles' time, CPU, counters and latencies have been accounted here.
  std::uint64_t at_boundary(std::uint64_t submitted, std::uint64_t total, std::uint64_t loop_state);

  // The skipped requests' data, first .. first + n - 1: `check(from, count)` computes and checks
  // that many outputs and returns how many were wrong; with a spare core, a helper thread takes
  // the second half (check must then be callable from two threads at once). The sum.
  using CheckOutputs = std::function<std::uint64_t(std::uint64_t from, std::uint64_t count)>;
  std::uint64_t check_skipped(std::uint64_t first, std::uint64_t n, const CheckOutputs& check) const;
  static std::uint64_t check_in_halves(std::uint64_t first, std::uint64_t n, bool helper, const CheckOutputs& check);

  // The skipped cycles' share of the totals after the run: into the final snapshot (time, CPU
  // per context and function, interrupts, descriptors, engine counters).
  void extend(Snapshot& end) const;
  const FastForwardInfo& info() const { return m_info; }

  // Told how far a long skip is: `done` requests of the run accounted for, in `phase` ("requests"
  // while the skipped cycles' latencies are added, "skipped requests' outputs checked" while
  // their bytes are computed). Called often; the receiver decides when to print.
  using Progress = std::function<void(std::uint64_t done, const char* phase)>;
  // `request_bytes` sizes the chunks a check reports after (about 256 MiB, at least 128 requests).
  void set_progress(Progress p, std::uint64_t request_bytes) {
    m_progress = std::move(p);
    m_check_chunk = std::max<std::uint64_t>(128, (256u << 20) / std::max<std::uint64_t>(1, request_bytes));
  }

 private:
  enum class Phase { searching, confirming, done };
  std::uint64_t digest(std::uint64_t loop_state);
  void restart_search();
  void stop_watching();

  soc::Emulator& m_e;
  bool m_spare_core;
  model::LatencyStats& m_lat;
  VariantResult& m_res;
  Phase m_phase;
  // Searching: the digest of every boundary in a window, and where each was last seen.
  std::vector<std::uint64_t> m_history;
  std::unordered_map<std::uint64_t, std::size_t> m_seen;
  sc_core::sc_time m_last_at;
  std::vector<cpu::CpuTimes> m_last_times;
  std::uint64_t m_last_irqs = 0;
  // Confirming: the cycle's length in boundaries, where it began, what it started from.
  std::size_t m_cycle = 0, m_cycle_end = 0;
  Snapshot m_start;
  std::uint64_t m_start_submitted = 0;
  std::vector<std::uint64_t> m_start_counters;
  Progress m_progress;
  std::uint64_t m_check_chunk = 4096;
  std::vector<double> m_tap;  // latencies recorded since the last boundary, or in the confirming cycle
  std::size_t m_tap_hashed = 0;
  // Each skip: how many cycles, and one cycle's totals.
  struct Stretch {
    std::uint64_t cycles = 0;
    Snapshot delta;
  };
  std::vector<Stretch> m_stretches;
  sc_core::sc_time m_skipped_time;
  std::uint64_t m_most_skipped = 0;  // the most requests one skip has repeated so far
  FastForwardInfo m_info;
};

}  // namespace qcesim::studies
