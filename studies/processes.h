// One SystemC elaboration per process: runs, sweep points and calibration evaluations each
// simulate in a forked child that sends its result back as JSON, several at once.
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

namespace qcesim::studies {

// Whether each of n runs at up to `jobs` at once (0: cores) has a host core to spare for
// model/hash_ahead.h's helper thread.
bool spare_core_per_run(std::size_t n, unsigned jobs);

// Runs fn(i) for i in [0, n) each in a forked child, at most `jobs` at once; each child's
// stdout-free result is the JSON it returns. Errors come back as {"error": "..."}. The children
// are forked by a launcher process forked when fork_each begins: fn sees memory as it was then,
// not as on_done has changed it since.
std::vector<nlohmann::json> fork_each(std::size_t n, unsigned jobs,
                                      const std::function<nlohmann::json(std::size_t)>& fn,
                                      const std::function<void(std::size_t, const nlohmann::json&)>& on_done);

}  // namespace qcesim::studies
