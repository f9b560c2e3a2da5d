// The replay's request loop, one for every workload (hash, skcipher, AEAD): the caller's loop
// that issues one request per message and waits for them, on the CPU path (the software
// implementation in the caller's task context) or through the QCE driver with up to queue_depth
// requests in flight. The workload plugs in what differs (RequestWorkload: its messages, how a
// request is built, how the software implementation does one, how outputs are checked); the
// loop owns what must behave the same for all of them: the slots, the latencies, the accounting
// (issued = completed + failed + fallback), failures and injected faults, the software fallback
// of failed requests, the fast-forward's boundaries and skips, and progress.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "cpu/costs.h"
#include "drivers/crypto/qce/core.h"
#include "model/stats.h"
#include "studies/caller_path.h"
#include "studies/fast_forward.h"
#include "studies/replay.h"

namespace qcesim::studies {

// Told each finished request's number (progress on stderr).
using RequestTick = std::function<void(std::uint64_t done)>;

// What a workload plugs into the loop. Request i of the run carries message i % pool_size():
// the pool comes round in the same order, which the fast-forward's whole cycles rely on.
class RequestWorkload {
 public:
  virtual ~RequestWorkload() = default;

  virtual std::size_t pool_size() const = 0;
  // Whether the messages carry real data whose outputs are checked (not --timing-only).
  virtual bool real_data() const = 0;
  // Message m's text in bytes (what a user-space caller copies or pins).
  virtual std::uint32_t message_bytes(std::size_t m) const = 0;
  // Messages per call on the CPU path (2: sha256_ce_finup2x hashes two at once).
  virtual unsigned cpu_batch() const { return 1; }

  // The software implementation in the caller's task context for requests first .. first + n - 1
  // (n <= cpu_batch()): its CPU time charged, with real data its outputs checked. Returns the
  // wrong ones. The CPU path, the driver's own fallback, and the caller's redo of a failed request.
  virtual std::uint64_t software(std::uint64_t first, unsigned n) = 0;

  // The driver's decision by message (qce_skcipher_crypt, qce_aead_crypt): the cost of its entry
  // when it hands message m to its software fallback tfm at once, nothing when m goes to the engine.
  virtual std::optional<cpu::Cost> driver_fallback(std::size_t /*m*/) const { return std::nullopt; }

  // The engine requests message m takes, one after another, each waited for by the caller before
  // it issues the next: 1 (a digest, a cipher request), 2 (a hash's update and final).
  virtual unsigned engine_steps(std::size_t /*m*/) const { return 1; }
  // The engine request for step `step` of message m in slot `slot` (0 .. queue_depth - 1), built
  // afresh (a later step from the slot's request before it); the loop sets its completion. It
  // lives until the slot's next request.
  virtual qce::QceAsyncRequest& engine_request(std::size_t slot, std::size_t m, unsigned step) = 0;
  // With real data, whether the slot's completed engine request computed a wrong output.
  virtual bool engine_output_wrong(std::size_t slot, std::size_t m) const = 0;

  // For the requests a fast-forward skips: counts the wrong outputs of requests from .. from +
  // count - 1 computed as the engine path (engine) or the CPU path computes them; callable from
  // two threads at once. Empty without real data. Asked on the simulation thread (may throw).
  virtual FastForward::CheckOutputs skipped_checker(bool engine) const = 0;

  // The engine path's hooks for a workload that works ahead of the loop (hash-ahead): before
  // request `id` is submitted, its part of the loop's state, and `n` requests skipped.
  virtual void before_submit(std::uint64_t /*id*/) {}
  virtual void add_state(model::StateHash& /*h*/, std::uint64_t /*submitted*/) const {}
  virtual void skipped(std::uint64_t /*n*/) {}
};

// How the loop runs: the workload's size and queue, and what a failed request means.
struct RequestLoopConfig {
  std::uint64_t messages = 0;
  unsigned queue_depth = 1;
  // Failures are outcomes to count when another EE shares the engine or faults are injected;
  // otherwise a failure is a bug in the model and stops the run (qce::QceError).
  bool failures_expected = false;
  // A failed request is redone by the caller with the software implementation (faults.cpu_fallback).
  bool cpu_fallback = false;
  sc_core::sc_time timeout;  // the caller's wait for a completion (the driver's timeout)
  // What the caller pays per message of so many bytes around the crypto call, on either path
  // (studies/caller_path.h), and per wait; empty: nothing (tests of the loop alone).
  std::function<const CallerCharges&(std::uint32_t bytes)> caller;
};

// Runs the workload inside the emulator's job on the CPU path (engine false) or through the
// driver, into the latency statistics and the result's counters.
void run_requests(soc::Emulator& e, RequestWorkload& w, const RequestLoopConfig& c, bool engine,
                  model::LatencyStats& lat, VariantResult& res, const RequestTick& tick, FastForward& ff);

// A request's latency from t0 to end, into the statistics and the timeline.
void record_latency(model::LatencyStats& lat, std::uint64_t id, const sc_core::sc_time& t0,
                    const sc_core::sc_time& end);

}  // namespace qcesim::studies
