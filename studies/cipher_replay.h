// The replay of a cipher or AEAD workload (workload.algorithm names an skcipher or an AEAD):
// a pool of messages in DRAM with their reference outputs, encrypted or decrypted out of place
// one request per message. The CPU path runs the implementation the kernel would pick on the
// profile's core (cpu/soft_crypto.h); the QCE path goes through the driver with up to
// queue_depth requests in flight, its kernel era's rules sending some requests to the software
// fallback in the caller's context, as qce_skcipher_crypt and qce_aead_crypt do.
#pragma once

#include <cstdint>
#include <functional>

#include "model/stats.h"
#include "studies/replay.h"

namespace qcesim::studies {

// Told each finished request's number (progress on stderr).
using RequestTick = std::function<void(std::uint64_t done)>;

// A request's latency from t0 to end, into the statistics and the timeline (replay.cpp).
void record_latency(model::LatencyStats& lat, std::uint64_t id, const sc_core::sc_time& t0,
                    const sc_core::sc_time& end);

// Runs the workload inside the emulator's job; `check` computes real data and compares every
// output with its reference (output mismatches are counted as digest_mismatches).
// `ff` may skip whole cycles of the steady state (studies/fast_forward.h).
void run_cipher_workload(Emulator& e, const Scenario& sc, const Variant& v, const EmulatorConfig& cfg, bool check,
                         model::LatencyStats& lat, VariantResult& res, const RequestTick& tick, FastForward& ff);

}  // namespace qcesim::studies
