// The SoC's CPUs by number and what each is: a core type (Cortex-X4, A720, A520, A7, ...) with its
// maximum and minimum clock and the instructions per cycle it sustains on kernel code. Work cost
// items are instruction counts and run on whichever core charges them at that core's IPC and
// clock, so the same kernel function costs what it costs on the core that runs it: the benchmark
// task on one core, the BAM interrupt on another (cpu.task_cpu, cpu.irq_cpu). Waits (a bus round
// trip, an SMMU sync) take the same time on every core.
#pragma once

#include <string>
#include <vector>

namespace qcesim::model {
class Profile;
}

namespace qcesim::cpu {

struct CoreType {
  std::string name;       // "cortex-x4": the DT cpu node's compatible without "arm,"
  double freq_max = 0;    // GHz: cpu.<name>.freq
  double freq_min = 0;    // GHz: cpu.<name>.freq_min (schedutil's floor)
  double kernel_ipc = 1;  // instructions per cycle on kernel code: cpu.<name>.kernel_ipc
  // MB/s a single core copies at its maximum clock (cpu.<name>.copy_bandwidth): a system call's
  // copy of a user buffer (copy_from_user) is bound by the memory system, not by instructions.
  double copy_bandwidth = 0;
  // The clock driver's frequencies (cpu.<name>.opps, GHz ascending; absent: any frequency).
  std::vector<double> opps;
  // Nanoseconds for `instructions` of kernel code at the maximum clock.
  double ns(double instructions) const {
    return freq_max > 0 && kernel_ipc > 0 ? instructions / (kernel_ipc * freq_max) : 0.0;
  }
  // Nanoseconds to copy `bytes` at the maximum clock.
  double copy_ns(double bytes) const { return copy_bandwidth > 0 ? bytes / copy_bandwidth * 1e3 : 0.0; }
};

// cpu.cpus (the core type of each CPU, by number, comma separated) and each listed type's
// cpu.<type>.freq, .freq_min, .kernel_ipc and .copy_bandwidth (and .opps if given); ConfigError
// naming what is missing or malformed.
std::vector<CoreType> cpus_from_profile(const model::Profile& p);
// The CPU the benchmark task runs on (cpu.task_cpu), checked against cpu.cpus.
unsigned task_cpu_from_profile(const model::Profile& p);
// The CPU the BAM interrupt is routed to (cpu.irq_cpu), checked against cpu.cpus.
unsigned irq_cpu_from_profile(const model::Profile& p);
// The task CPU's type.
CoreType task_core_type(const model::Profile& p);

}  // namespace qcesim::cpu
