// Per-function timings from the kernel's tracer, as the board kit collects them: the function
// profiler's trace_stat tables (hits and total time per function, callees included) or a
// function_graph trace (each call's duration; a function's own time is its duration minus its
// traced callees'). Function names are the kernel's, which the cost items carry
// (cost.<function>); kernel_function_item maps a traced name onto its cost item.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace qcesim::ingest {

struct FunctionStat {
  std::string function;
  std::uint64_t calls = 0;
  double total_us = 0;  // callees included
  double self_us = 0;   // without the traced callees (function_graph only; the profiler: = total)
  double max_us = 0;
  int cpu = -1;  // the CPU most calls ran on (function_graph; -1: not known)
};

struct FtraceTable {
  std::string kind;                     // "graph", "profile" or "" (none)
  std::vector<FunctionStat> functions;  // by name
};

// `text` is the member's bytes; `file`/`member` name it in errors.
FtraceTable parse_function_graph(const std::string& text, const std::string& file, const std::string& member);
FtraceTable parse_function_profile(const std::string& text, const std::string& file, const std::string& member);

// A kernel function's name without a compiler's clone suffix (".isra.0", ".constprop.0",
// ".part.0", ".cold"): the same function.
inline std::string kernel_function_base(const std::string& name) { return name.substr(0, name.find('.')); }

// The cost item a traced kernel function is evidence for ("cost.dma_map_sg" for
// iommu_dma_map_sg), or "" when no item models that function.
std::string kernel_function_item(const std::string& function, const std::vector<std::string>& cost_items);

}  // namespace qcesim::ingest
