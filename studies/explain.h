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

// Why a step happens, by kernel function or hardware step name ("" if unknown).
std::string why(const std::string& step, const std::string& track_kind);

// The messages a replay needs for `request` to be narrated whole: the requests after it do not
// change it (they start after it, or queue behind it), so the replay stops after the one that
// follows it, plus what the queue keeps in flight (at most the workload's own).
std::uint64_t messages_to_explain(const Workload& w, std::int64_t request);

// The narration of `request` (the tracer must have kept it and the request after it).
std::string narrate(const Tracer& tr, std::int64_t request, const Scenario& sc, const Variant& v,
                    const VariantResult& r);

}  // namespace qcesim::studies
