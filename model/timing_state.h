// The parts whose state decides what the platform does next, each registered by itself. Every
// SystemC module of the SoC and every driver derives from TimingState: its constructor puts it on
// the process's list (one elaboration per process), its destructor takes it off. The replay's
// fast-forward (studies/fast_forward.h) digests the listed parts' fingerprints, in construction
// order, and stays off while any part's future cannot repeat (it draws random numbers that decide
// timing). tests/test_timing_state.cpp fails when a module of the SoC is not on the list.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include "model/state_hash.h"

namespace qcesim::model {

class TimingState {
 public:
  TimingState(const TimingState&) = delete;
  TimingState& operator=(const TimingState&) = delete;

  // Adds what decides this part's next steps, every time relative to h.now() (state_hash.h); not
  // data, register contents or totals, which change no timing. A part with no such state adds
  // nothing and says why.
  virtual void fingerprint(StateHash& h) const = 0;
  // False while the part draws random numbers that decide timing (injected faults, varying CPU
  // costs, another EE's arrivals): no state of it repeats, so no cycle can be skipped.
  virtual bool repeats() const { return true; }
  // The part's name in messages (its SystemC name for a module).
  virtual std::string timing_name() const = 0;

  // State the fingerprint leaves out because it only accumulates, with time and work, towards a
  // change the part makes by the clock (an ondemand governor's period: its length and busy time
  // so far decide its next look, not the steps before it). Such a part bounds how far ahead
  // cycles may be repeated, and moves that state on when they are:
  // the simulated time from now within which no such change can come: skipped cycles end
  // strictly before it (none: sc_max_time);
  virtual sc_core::sc_time repeat_horizon() const { return sc_core::sc_max_time(); }
  // a cycle that may be repeated starts now;
  virtual void cycle_start() {}
  // `n` cycles of `span` each, the same as the one since cycle_start(), were skipped instead of
  // simulated (the clock stays): account them as if they had run.
  virtual void skip_cycles(std::uint64_t /*n*/, const sc_core::sc_time& /*span*/) {}

  // The listed parts, in construction order; their digest; whether all of them can repeat.
  static const std::vector<TimingState*>& all();
  static void fingerprint_all(StateHash& h);
  static bool all_repeat();
  // The first part that cannot repeat ("" when all can), for messages.
  static std::string first_random();
  // The hooks above over all listed parts (the horizon: the nearest).
  static sc_core::sc_time repeat_horizon_all();
  static void cycle_start_all();
  static void skip_cycles_all(std::uint64_t n, const sc_core::sc_time& span);

 protected:
  TimingState();
  virtual ~TimingState();
};

}  // namespace qcesim::model
