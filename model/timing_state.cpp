#include "model/timing_state.h"

#include <algorithm>

namespace qcesim::model {

namespace {
// Never destroyed: a part that outlives static destruction (a platform held by a static, as the
// fuzzer's is) still takes itself off the list at its end.
std::vector<TimingState*>& listed() {
  static auto* parts = new std::vector<TimingState*>;
  return *parts;
}
}  // namespace

TimingState::TimingState() { listed().push_back(this); }

TimingState::~TimingState() {
  auto& v = listed();
  v.erase(std::remove(v.begin(), v.end(), this), v.end());
}

const std::vector<TimingState*>& TimingState::all() { return listed(); }

void TimingState::fingerprint_all(StateHash& h) {
  for (const TimingState* p : listed()) p->fingerprint(h);
}

bool TimingState::all_repeat() { return first_random().empty(); }

std::string TimingState::first_random() {
  for (const TimingState* p : listed())
    if (!p->repeats()) return p->timing_name();
  return "";
}

sc_core::sc_time TimingState::repeat_horizon_all() {
  sc_core::sc_time h = sc_core::sc_max_time();
  for (const TimingState* p : listed()) h = std::min(h, p->repeat_horizon());
  return h;
}

void TimingState::cycle_start_all() {
  for (TimingState* p : listed()) p->cycle_start();
}

void TimingState::skip_cycles_all(std::uint64_t n, const sc_core::sc_time& span) {
  for (TimingState* p : listed()) p->skip_cycles(n, span);
}

}  // namespace qcesim::model
