// `run --compare NAME`: each variant against one of them, per request: wall and CPU time, and
// the CPU difference split by mechanism (studies/mechanisms.h), with interrupts, descriptors and
// lock pairs per request beside.
#pragma once

#include <string>
#include <vector>

#include "studies/replay.h"

namespace qcesim::cli {

std::string format_compare(const std::vector<studies::VariantResult>& results, const std::string& base);

}  // namespace qcesim::cli
