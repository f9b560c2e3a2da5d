// Replays a scenario's workload for one variant on a freshly elaborated platform built from the
// variant's profile, and measures it the way the kernel would have: wall time of the loop,
// CPU time per context on every core, per-request latency, interrupt and descriptor counts,
// digest checks, and the per-function CPU profile. One variant per process.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "studies/fast_forward.h"
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

struct VariantResult {
  std::string name;
  double wall_s = 0, cpu_s = 0, hardirq_s = 0, softirq_s = 0, task_s = 0, kworker_s = 0, idle_s = 0;
  double ksoftirqd_s = 0;  // the part of softirq_s that ran in ksoftirqd
  std::uint64_t requests = 0, bytes = 0, irqs = 0, bam_descriptors = 0, digest_mismatches = 0;
  // What became of the requests: issued = completed + failed + fallback (checked at the end of
  // every run). completed: through the engine; failed: the error went back to the caller;
  // fallback: failed on the engine and hashed again on the CPU (faults.cpu_fallback).
  std::uint64_t issued = 0, completed = 0, failed = 0, fallback = 0;
  // Of the completed, those the driver's kernel-era rules sent to its software fallback (cipher
  // workloads: aes_sw_max_len, AES-192, ...), run in the caller's context.
  std::uint64_t software = 0;
  nlohmann::json faults;  // injected faults by kind (null without faults)
  double lat_mean_us = 0, lat_p50_us = 0, lat_p99_us = 0, lat_max_us = 0;
  std::map<std::string, double> measured;
  std::vector<FunctionTime> profile;  // CPU time per (context, function), largest first
  bool timing_only = false;
  double host_seconds = 0;            // how long the simulation took to run
  std::uint64_t hash_ahead_hits = 0;  // engine operations whose blocks the helper thread compressed
  // Sharing the engine with another EE (workload.tz): Linux's failed requests, the time Linux's
  // pipes waited for the other EE's BAM lock, AUTH_IV writes that hit a running operation, and
  // the other EE's own counts; `race` explains mismatches and failures in words.
  std::uint64_t failed_requests = 0;
  double lock_wait_s = 0;
  std::uint64_t live_state_writes = 0;
  nlohmann::json tz;  // null without another EE
  std::string race;
  // The steady-state cycles repeated instead of simulated (studies/fast_forward.h).
  FastForwardInfo fast_forward;

  nlohmann::json to_json() const;
  static VariantResult from_json(const nlohmann::json& j);
};

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
