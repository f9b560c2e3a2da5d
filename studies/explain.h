// `qcesim explain`: one request narrated step by step from the timeline recorder's spans: every
// CPU and hardware step with its context, start, duration and a line on why it happens, then
// the accounting that closes the request's wall and CPU time.
#pragma once

#include <cstdint>
#include <string>

#include "studies/replay.h"
#include "model/trace.h"

namespace qcesim::studies {

using model::Tracer;

// Why a step happens, by the cost item it charged (a CPU step under the item's own name) or by
// kernel function or hardware step name ("" if unknown).
std::string why(const std::string& step, const std::string& track_kind, int item = -1);

// The messages a replay needs for `request` to be narrated whole: the requests after it do not
// change it (they start after it, or queue behind it), so the replay stops after the one that
// follows it, plus what the queue keeps in flight (at most the workload's own).
std::uint64_t messages_to_explain(const Workload& w, std::int64_t request);

// The request explain and report narrate when none is named: one inside the cycle the replay
// settles into, where the fast-forward recognised it (the cpufreq governor settled, the queues, the
// IOVA allocator and the idle governor's history warm), at least the 10th, at most the last. A
// replay with no such cycle within messages_to_find_steady_state's requests (schedutil's average,
// service-time variation, injected faults, too short a workload, sim.fast_forward = 0) gives the
// 100th, or the last. A multiple of `batch`: the CPU path's interleaved calls (ce_interleave)
// trace the first request of each call.
std::int64_t steady_request(const FastForwardInfo& ff, std::uint64_t messages, unsigned batch = 1);
// The `batch` steady_request takes for a variant: the CPU path's calls per trace (ce_interleave),
// 1 on the engine.
unsigned traced_batch(const Variant& v);
// Whether steady_request found the cycle (else it took the 100th).
bool found_steady_cycle(const FastForwardInfo& ff);
// How many messages a probe replay (untraced, timing only) runs to find that cycle.
std::uint64_t messages_to_find_steady_state(const Workload& w);
// One line on the request steady_request chose and why.
std::string steady_request_note(const FastForwardInfo& ff, std::int64_t request, std::uint64_t probed);

// The narration of `request` (the tracer must have kept it and the request after it).
std::string narrate(const Tracer& tr, std::int64_t request, const Scenario& sc, const Variant& v,
                    const VariantResult& r);

}  // namespace qcesim::studies
