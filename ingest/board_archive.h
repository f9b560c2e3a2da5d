// A board kit archive (board/qcesim-measure, docs/board.md), read and checked: the manifest,
// the system's facts, the AF_ALG runs, tcrypt's kernel-log lines and the optional ftrace
// timings. Every member is hostile input: numbers are parsed strictly and range-checked, names
// that reach an output are checked against the name rule, and an error names the archive, the
// member and line, what was expected and what was found (model::ConfigError).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ingest/fdt_facts.h"
#include "ingest/ftrace_table.h"
#include "ingest/tar_reader.h"

namespace qcesim::ingest {

constexpr int kArchiveFormat = 1;  // the manifest's first line: "qcesim-board-archive 1"

struct ManifestItem {
  std::string path, status, note;  // status: collected, absent, skipped, partial, failed, optional, present
};

struct IrqDelta {
  std::string label, name;  // "42", "GICv3 304 Level bam_dma" (chip, hwirq, trigger, actions)
  std::uint64_t count = 0;
  int cpu = -1;                 // the CPU that took most of them (irq_cpu), -1 not said
  std::uint64_t cpu_count = 0;  // and how many
};

// One CPU's cpuidle state during a run: how often it was entered and how long it was held.
struct IdleDelta {
  unsigned cpu = 0, state = 0;
  std::uint64_t entries = 0;
  double time_us = 0;
  std::string name;  // the state's sysfs name ("WFI", "cpu-sleep-0", ...)
};

// One afalg-bench run (runs/NAME).
struct BenchRun {
  std::string member, type, alg, driver, status, check;
  std::string send = "whole";  // hashes: "more" sent with MSG_MORE, finalised by the read
  std::uint64_t bytes = 0, messages = 0, requested = 0, key_bytes = 0;
  double wall_s = 0, cpu_s = 0, hardirq_s = 0, softirq_s = 0;  // as the seed measurement reports them
  double task_cpu_s = 0;                                       // the loop's process alone (getrusage)
  int cpu = -1;                                                // where the loop started
  int cpu_end = -1;                                            // and where it ended
  std::vector<IrqDelta> irqs;
  std::vector<IdleDelta> idle;  // the states entered during the loop (no cpuidle driver: none)
};

struct CryptoDriver {
  std::string name, driver, module;
  long priority = 0;
};

struct CpuId {
  unsigned implementer = 0, part = 0;  // MIDR fields from /proc/cpuinfo
};

struct CpufreqPolicy {
  std::string name, governor, driver;
  std::vector<unsigned> cpus;
  double max_khz = 0, min_khz = 0;
  std::vector<double> available_khz;  // scaling_available_frequencies (cpufreq-dt's OPPs), ascending
};

struct IdleState {
  unsigned cpu = 0;
  std::string state, name;
  double latency_us = 0, residency_us = 0;
  bool disabled = false;
};

struct IommuDevice {
  unsigned group = 0;
  std::string type, device;  // type: DMA (strict), DMA-FQ (lazy), identity (passthrough)
};

// tcrypt: one driver's rate at one size. mode=400 (hash): operations per second with `updates`
// updates of `update_bytes` (the "1 updates" rows are one-shot digests); mode=500 (skcipher):
// operations in a second, one direction, one key size.
struct TcryptRow {
  std::string driver, direction;  // direction: "" (hash), "encryption" or "decryption"
  std::uint64_t block_bytes = 0, update_bytes = 0, updates = 0, key_bits = 0;
  double ops_per_s = 0;
};

struct BoardArchive {
  std::string file;
  std::string kit, started, finished, options;
  std::vector<ManifestItem> items;
  std::string uname, release, cmdline;
  std::vector<CpuId> cpus;
  bool has_config = false;
  std::map<std::string, std::string> config;  // CONFIG_X -> y/m/value
  bool has_fdt = false;
  FdtFacts fdt;
  std::vector<CryptoDriver> drivers;
  std::vector<CpufreqPolicy> cpufreq;
  std::string cpuidle_driver;
  std::vector<IdleState> idle;
  std::vector<IommuDevice> iommu;
  std::vector<std::string> qce_parameters;  // the qcrypto module's parameters, by name
  // The qce and BAM drivers' function names in /proc/kallsyms (system/kallsyms-crypto), a
  // compiler's suffix (".constprop.0", ".isra.0", ".cold") taken off: what tells the BAM-locking
  // series' kernel from mainline. has_kernel_symbols: the kit recorded the list.
  bool has_kernel_symbols = false;
  std::set<std::string> kernel_symbols;
  // The functions the kit's trace filter matched (ftrace/functions): traceable, whether or not
  // the traced run called them (the profiler lists only those it saw called).
  std::set<std::string> ftrace_traceable;
  std::optional<std::uint64_t> aes_sw_max_len;  // its aes_sw_max_len, where it has one
  std::vector<BenchRun> runs;
  std::vector<ManifestItem> failed_runs;  // runs/ members the kit marked failed, skipped or partial-less
  std::vector<TcryptRow> tcrypt;
  FtraceTable ftrace;

  const ManifestItem* item(const std::string& path) const;
};

// Reads FILE (a regular file of at most 64 MiB), its tar members, and parses them.
BoardArchive read_board_archive(const std::string& file);
// The archive's bytes (tar, or gzip inflated under 64 MiB), as read_board_archive reads them.
BoardArchive parse_board_archive(std::string bytes, const std::string& file);
BoardArchive parse_board_archive(const TarMembers& members, const std::string& file);

}  // namespace qcesim::ingest
