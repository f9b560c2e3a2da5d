// The parts whose state decides what the platform does next, each registered by itself. Every
// SystemC module of the SoC and every driver derives from TimingState: its constructor puts it on
// the process's list (one elaboration per process), its destructor takes it off. The replay's
// fast-forward (studies/fast_forward.h) digests the listed parts' fingerprints, in construction
// order, and stays off while any part's future cannot repeat (it draws random numbers that decide
// timing). tests/test_timing_state.cpp fails when a module of the SoC is not on the list.
#pragma once

#include <string>
#include <vector>

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

  // The listed parts, in construction order; their digest; whether all of them can repeat.
  static const std::vector<const TimingState*>& all();
  static void fingerprint_all(StateHash& h);
  static bool all_repeat();
  // The first part that cannot repeat ("" when all can), for messages.
  static std::string first_random();

 protected:
  TimingState();
  virtual ~TimingState();
};

}  // namespace qcesim::model
