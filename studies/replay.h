// Replays a scenario's workload for one variant on a freshly elaborated platform built from the
// variant's profile, and measures it the way the kernel would have: wall time of the loop,
// CPU time per context on every core, per-request latency, interrupt and descriptor counts,
// digest checks, and the per-function CPU profile. One variant per process.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "studies/fast_forward.h"
#include "studies/result_fields.h"
#include "studies/scenario.h"
#include "soc/soc.h"

namespace qcesim::studies {

using soc::Emulator;
using soc::EmulatorConfig;
using soc::soc_config;
using soc::SocConfig;

struct FunctionTime {
  std::string ctx, function;
  double seconds;
};

// One run's results: the numbers of QCESIM_RESULT_FIELDS (studies/result_fields.h, where each
// is documented) as members, and what is not a number.
template <ResultKind K>
using result_type_t = std::conditional_t<K == ResultKind::count, std::uint64_t, double>;

struct VariantResult {
  std::string name;
#define QCESIM_RESULT_MEMBER(member, key, kind, ...) result_type_t<ResultKind::kind> member = 0;
#define QCESIM_RESULT_SKIP(...)
  QCESIM_RESULT_FIELDS(QCESIM_RESULT_MEMBER, QCESIM_RESULT_SKIP, QCESIM_RESULT_SKIP, QCESIM_RESULT_SKIP)
#undef QCESIM_RESULT_MEMBER
#undef QCESIM_RESULT_SKIP
  nlohmann::json faults;  // injected faults by kind (null without faults)
  std::map<std::string, double> measured;
  std::vector<FunctionTime> profile;  // CPU time per (context, function), largest first
  bool timing_only = false;
  nlohmann::json tz;  // the other EE's counts (null without another EE)
  std::string race;   // the first failure in words
  // The steady-state cycles repeated instead of simulated (studies/fast_forward.h).
  FastForwardInfo fast_forward;

  nlohmann::json to_json() const;
  static VariantResult from_json(const nlohmann::json& j);
};

// A run's JSON `profile` (context, function, cpu_s per entry) read back.
std::vector<FunctionTime> profile_from_json(const nlohmann::json& profile);

// The emulator configuration a profile and a variant describe.
EmulatorConfig emulator_config(const Profile& p, const Variant& v, bool timing_only);
// With the workload's other execution environment (workload.tz) and the scenario's injected
// faults, if any.
EmulatorConfig emulator_config(const Profile& p, const Variant& v, bool timing_only, const Workload& w,
                               const Faults& faults);

// Measured values belong to the workload they were taken with: scaled to this workload's
// message count, none when the message size differs.
std::map<std::string, double> measured_for(const Variant& v, const Workload& w);

// Everything run_variant would refuse, checked without simulating: the profile with the
// scenario's and the variant's overrides, the platform configuration, the CE core (ConfigError).
void check_variant(const Scenario& sc, const Variant& v);

// Told how far a long run is, about every `every_s` seconds of host time: `done` of `total`
// requests in `phase` ("requests": simulated or repeated by the fast-forward; "skipped requests'
// outputs checked": their bytes computed), the host seconds so far, and the seconds left at the
// phase's rate (negative: not known yet).
struct ReplayProgress {
  double every_s = 5;
  std::function<void(std::uint64_t done, std::uint64_t total, double host_seconds, double left_s, const char* phase)>
      report;
};

// hash_ahead: the host has a spare core for a helper thread, which compresses the next messages
// ahead, and takes half of the data checks of the requests a fast-forward skips (the results are
// identical either way, only the host time differs).
VariantResult run_variant(const Scenario& sc, const Variant& v, bool timing_only, bool hash_ahead = false,
                          const ReplayProgress* progress = nullptr);

}  // namespace qcesim::studies
