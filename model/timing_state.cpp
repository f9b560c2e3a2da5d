#include "model/timing_state.h"

#include <algorithm>

namespace qcesim::model {

namespace {
// Never destroyed: a part that outlives static destruction (a platform held by a static, as the
// fuzzer's is) still takes itself off the list at its end.
std::vector<const TimingState*>& listed() {
  static auto* parts = new std::vector<const TimingState*>;
  return *parts;
}
}  // namespace

TimingState::TimingState() { listed().push_back(this); }

TimingState::~TimingState() {
  auto& v = listed();
  v.erase(std::remove(v.begin(), v.end(), this), v.end());
}

const std::vector<const TimingState*>& TimingState::all() { return listed(); }

void TimingState::fingerprint_all(StateHash& h) {
  for (const TimingState* p : listed()) p->fingerprint(h);
}

bool TimingState::all_repeat() { return first_random().empty(); }

std::string TimingState::first_random() {
  for (const TimingState* p : listed())
    if (!p->repeats()) return p->timing_name();
  return "";
}

}  // namespace qcesim::model
