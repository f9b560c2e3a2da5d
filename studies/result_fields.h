// The result of one run (VariantResult), declared once. Every number a run reports is one row
// of QCESIM_RESULT_FIELDS; the struct's members, the JSON written and read (--json, shard files,
// the sweep's rows), the sweep's metrics and CSV columns with their axis labels, the counters a
// fast-forward cycle adds to, the checks a merge makes on other processes' runs, and the tables
// of docs/run.md and docs/sweep.md all come from it (tests/test_result_fields.cpp checks the
// docs; QCESIM_UPDATE_DOCS=1 rewrites them). docs/architecture.md has the recipe for a new field.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "studies/mechanisms.h"

namespace qcesim::studies {

// What a stored number is: its C++ type, its unit, the merge's check.
enum class ResultKind {
  seconds,       // simulated seconds (double, >= 0)
  host_seconds,  // the host's seconds (double, >= 0; differs run to run)
  micros,        // simulated microseconds (double, >= 0)
  count,         // a whole number (std::uint64_t)
};

// Row flags.
enum ResultFlag : unsigned {
  kRequired = 1,  // every result file has it (older ones may lack the others: read as 0)
  kMetric = 2,    // a sweep metric and CSV column
  kCycle = 4,     // a request counter a fast-forward's skipped cycle adds to (the loop counts it)
  kWithTz = 8,    // written only with another EE on the engine (workload.tz)
};

// How a derived sweep metric comes from the run's numbers.
enum class Derive {
  per_request_us,  // base / requests, in microseconds
  per_wall_mb,     // base / wall_s, in MB (1e6 bytes) per second
};

// F(member, "json key", kind, flags, "sweep label", "meaning"): a stored number; a dotted key is
//   nested in the JSON ("latency_us.mean": {"latency_us": {"mean": ...}}), and is the metric's name.
// D(name, "base key", derive, "sweep label", "meaning"): a sweep metric computed from the run.
// T(name, "sweep label", "meaning"): the other EE's count or time, "tz.<name>" (from the tz object).
// O("json key", "meaning"): a key that is not a number (text, flags, objects): documented here,
//   written by hand in replay.cpp.
// The order is the CSV's column order and the docs' row order.
// The CPU time per mechanism (studies/mechanisms.h), one field each: cpu_by_mechanism.<name>.
#define QCESIM_MECHANISM_FIELD(F, name, label, doc) \
  F(mech_##name##_s, "cpu_by_mechanism." #name, seconds, kMetric, "CPU in " label " [s]", "CPU time in " doc)
#define QCESIM_RESULT_FIELDS(F, D, T, O)                                                                              \
  O("name", "variant name")                                                                                           \
  F(wall_s, "wall_s", seconds, kRequired | kMetric, "wall time [s]",                                                  \
    "simulated time from the first request's submission to the last one's completion")                                \
  F(cpu_s, "cpu_s", seconds, kRequired | kMetric, "CPU time [s]",                                                     \
    "busy CPU time on all modelled cores: `task_s + kworker_s + softirq_s + hardirq_s`")                              \
  F(hardirq_s, "hardirq_s", seconds, kRequired | kMetric, "hardirq time [s]",                                         \
    "time in hardirq context, from account_hardirq_enter to account_hardirq_exit (CONFIG_IRQ_TIME_ACCOUNTING)")       \
  F(softirq_s, "softirq_s", seconds, kRequired | kMetric, "softirq time [s]",                                         \
    "time in softirq context, from account_softirq_enter to account_softirq_exit, ksoftirqd's included "              \
    "(CONFIG_IRQ_TIME_ACCOUNTING)")                                                                                   \
  F(task_s, "task_s", seconds, kRequired | kMetric, "task time [s]", "time in the caller's task context")             \
  F(kworker_s, "kworker_s", seconds, kRequired | kMetric, "kworker time [s]",                                         \
    "time in kworker threads (workqueue items)")                                                                      \
  F(idle_s, "idle_s", seconds, kRequired | kMetric, "idle time [s]",                                                  \
    "idle time on the CPUs the workload used (the task's, the interrupt's), as Linux counts it: wall x CPUs used - "  \
    "their busy time; an interrupt's entry and exit on an idle core count as idle (Linux books them in no busy "      \
    "column)")                                                                                                        \
  F(ksoftirqd_s, "ksoftirqd_s", seconds, kMetric, "ksoftirqd time [s]",                                               \
    "the part of `softirq_s` that ran in ksoftirqd threads")                                                          \
  F(requests, "requests", count, kRequired | kMetric, "requests finished",                                            \
    "requests that finished (completed, failed or redone on the CPU)")                                                \
  F(bytes, "bytes", count, kRequired | kMetric, "bytes hashed",                                                       \
    "the bytes hashed, encrypted or decrypted (completed and fallback requests)")                                     \
  F(lat_mean_us, "latency_us.mean", micros, kRequired | kMetric, "mean latency per request [µs]",                     \
    "mean latency per request, from the caller's submission to the completion callback "                              \
    "(`crypto_request_complete`)")                                                                                    \
  F(lat_p50_us, "latency_us.p50", micros, kRequired | kMetric, "median latency per request [µs]",                     \
    "median latency (streaming histogram, 1 % resolution)")                                                           \
  F(lat_p99_us, "latency_us.p99", micros, kRequired | kMetric, "99th-percentile latency [µs]",                        \
    "99th-percentile latency")                                                                                        \
  F(lat_max_us, "latency_us.max", micros, kRequired | kMetric, "largest latency [µs]", "largest latency")             \
  F(irqs, "irqs", count, kRequired | kMetric, "interrupts", "hardirqs taken")                                         \
  F(bam_descriptors, "bam_descriptors", count, kRequired | kMetric, "BAM descriptors",                                \
    "BAM hardware descriptors processed, all pipes")                                                                  \
  F(digest_mismatches, "digest_mismatches", count, kRequired | kMetric, "wrong digests (Linux)",                      \
    "requests whose output (digest; ciphertext, plaintext or tag for ciphers: \"output mismatches\" in the text) "    \
    "differed from the host's reference (0 unless something is wrong)")                                               \
  F(lock_pairs, "lock_pairs", count, kMetric, "BAM lock pairs (Linux)",                                               \
    "LOCK/UNLOCK pairs Linux's driver put around its work: one per request with the series, fewer with "              \
    "`lock_batch` or `lock_when: shared` ([locking-designs.md](locking-designs.md))")                                 \
  QCESIM_MECHANISMS(QCESIM_MECHANISM_FIELD, F)                                                                        \
  D(us_per_request, "wall_s", per_request_us, "wall time per request [µs]", "`wall_s` / `requests`")                  \
  D(cpu_us_per_request, "cpu_s", per_request_us, "CPU time per request [µs]", "`cpu_s` / `requests`")                 \
  D(hardirq_us_per_request, "hardirq_s", per_request_us, "hardirq time per request [µs]", "`hardirq_s` / `requests`") \
  D(softirq_us_per_request, "softirq_s", per_request_us, "softirq time per request [µs]", "`softirq_s` / `requests`") \
  D(mb_per_s, "bytes", per_wall_mb, "throughput [MB/s]", "`bytes` / `wall_s`, in 10^6 bytes per second")              \
  F(host_seconds, "host_seconds", host_seconds, kRequired | kMetric, "simulation host time [s]",                      \
    "how long the simulation of this variant took (elaboration, the message pool and the replay)")                    \
  F(failed_requests, "failed_requests", count, kMetric | kCycle, "failed requests (Linux)",                           \
    "requests that completed with an error (counted, not fatal, with another EE on the engine or faults injected)")   \
  F(live_state_writes, "live_state_writes", count, kMetric, "AUTH_IV writes into a running operation",                \
    "AUTH_IV writes that landed while an operation ran and changed its hash state (the race)")                        \
  F(lock_wait_s, "lock_wait_s", seconds, kMetric | kWithTz, "Linux's wait for the other EE's lock [s]",               \
    "with `workload.tz`: time Linux's pipes had work but waited for the other EE's BAM lock")                         \
  F(issued, "issued", count, kMetric | kCycle, "requests issued",                                                     \
    "requests issued = `completed` + `failed` + `fallback` (checked at the end of every run)")                        \
  F(completed, "completed", count, kMetric | kCycle, "requests completed",                                            \
    "requests that completed without an error: through the engine, in the driver's software fallback "                \
    "(`software`), or on the CPU path")                                                                               \
  F(failed, "failed", count, kMetric | kCycle, "requests failed", "requests whose error went back to the caller")     \
  F(fallback, "fallback", count, kMetric | kCycle, "requests redone on the CPU",                                      \
    "requests that failed and were redone by the caller on the CPU (`faults.cpu_fallback`)")                          \
  F(software, "software", count, kMetric | kCycle, "requests the driver ran in software",                             \
    "cipher workloads: of the completed, those the driver's kernel-era rules sent to its software fallback in the "   \
    "caller's context (`driver.aes_sw_max_len`, AES-192, ...; "                                                       \
    "[cipher.md](cipher.md#the-driver-driverscryptoqceskcipher-aead-fallback))")                                      \
  F(hash_ahead_hits, "hash_ahead_hits", count, 0, "hash-ahead hits",                                                  \
    "engine operations whose data blocks a helper thread had already compressed (host speed only; 0 when the run "    \
    "had no spare core: [emulator.md](emulator.md#hash-ahead-host-speed-only))")                                      \
  T(jobs, "TrustZone jobs", "the other EE's jobs")                                                                    \
  T(completed, "TrustZone jobs completed", "of them, completed")                                                      \
  T(digest_mismatches, "TrustZone wrong digests", "of them, with a wrong digest")                                     \
  T(errors, "TrustZone engine errors", "of them, failed by an engine error")                                          \
  T(timeouts, "TrustZone timeouts", "of them, reset by the watchdog")                                                 \
  T(lock_wait_s, "TrustZone's wait for Linux's lock [s]", "the other EE's wait for Linux's BAM lock [s]")             \
  O("measured", "the measured values, scaled as in the table")                                                        \
  O("timing_only", "whether bytes were skipped")                                                                      \
  O("profile",                                                                                                        \
    "`[{context, function, cpu_s}]`, every function's CPU time, largest first; context `idle`: an interrupt's "       \
    "entry and exit on an idle core, outside the irqtime clock (not in `cpu_s`)")                                     \
  O("tz",                                                                                                             \
    "with `workload.tz`: the other EE's `{lock, jobs, completed, digest_mismatches, errors, timeouts, "               \
    "lock_wait_s}`, and with `lock_when: shared` `share_wait_s` (its waits for Linux's unlocked requests) and "       \
    "`share_switches` (times it asked Linux to lock)")                                                                \
  O("race", "the first failure's message, when there was one")                                                        \
  O("fast_forward",                                                                                                   \
    "when the run repeated steady-state cycles instead of simulating them: "                                          \
    "`{skipped, period, found_at, period_s, stretches}`, the requests repeated, the requests per cycle, the request " \
    "the cycle was first seen at, the cycle's simulated seconds, and in how many stretches (more than one when an "   \
    "unsettled `ondemand` governor's looks came between; the cycle is that of the last stretch when nothing "         \
    "bounded it, else of the stretch that repeated the most requests) "                                               \
    "([emulator.md](emulator.md#fast-forward-host-speed-only)); absent when every request was simulated; "            \
    "the text output says it in a line under the variant")                                                            \
  O("faults",                                                                                                         \
    "with `faults`: how many of each were injected and how many requests the watchdog failed: "                       \
    "`{bam_data_errors, bam_descriptor_drops, engine_axi_errors, engine_hangs, timeouts}`")

// One stored number's row, for code that goes over all of them.
struct ResultField {
  const char* key;  // the JSON key, dotted when nested; the sweep metric's name
  ResultKind kind;
  unsigned flags;
  const char* label;
  const char* doc;
};
const std::vector<ResultField>& result_fields();

// The sweep's metrics in CSV column order: stored numbers flagged kMetric, derived ones, the
// other EE's ("tz.jobs").
struct SweepMetric {
  std::string name, label, doc;
  const ResultField* field = nullptr;  // a stored number's row
  const char* base = nullptr;          // a derived one's: the key it is computed from, and how
  Derive derive = Derive::per_request_us;
};
const std::vector<SweepMetric>& sweep_metrics_table();

// A dotted key's place in a run's JSON ("latency_us.mean": j["latency_us"]["mean"], "tz.jobs"):
// the value, or null when it is absent; and the slot to write it to.
const nlohmann::json* find_result_key(const nlohmann::json& j, const std::string& key);
nlohmann::json& result_key_slot(nlohmann::json& j, const std::string& key);

// The docs' tables, generated: docs/run.md's JSON keys and docs/sweep.md's metrics.
std::string result_fields_markdown();
std::string sweep_metrics_markdown();

}  // namespace qcesim::studies
