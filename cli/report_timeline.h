// One request as a swimlane timeline in SVG, for the HTML report: a lane per track that did
// something for the request (each core's contexts, the BAM pipes, the engine) plus the BAM
// lock's owner and the interrupt line from their counters, on a time axis in µs from the
// request's submission, under a band naming the request's phases (submission on the CPU, the
// BAM and engine at work, completion). The data is the timeline recorder's (model/trace.h), as
// `--trace` writes it, for one request.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "model/trace.h"

namespace qcesim::cli {

// The recorder's record of `request` as JSON: its window, tracks, spans (times in µs from the
// window's start), counters and phases. What the report's child process hands back.
nlohmann::json timeline_json(const model::Tracer& tr, std::int64_t request);

// The SVG of timeline_json's document (title above it), its time axis `axis_us` long (at least
// the request's duration; 0: the duration), so that variants drawn on one axis compare by eye.
std::string timeline_svg(const nlohmann::json& timeline, const std::string& title, double axis_us = 0);

}  // namespace qcesim::cli
