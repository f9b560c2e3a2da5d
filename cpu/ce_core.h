// The ARMv8 Crypto Extensions core model: cycles per 64-byte SHA-256 block, from scheduling the
// instructions of the kernel's SHA-256 CE loop (lib/crypto/arm64/sha256-ce.S: 16 groups of 4
// rounds, each ADD W+K, SHA256SU0/SU1 for the first 12, MOV, SHA256H, SHA256H2) on a core's
// latencies and issue pipes. One buffer, or two interleaved (sha256_ce_finup2x).
#pragma once

#include <string>
#include <vector>

namespace qcesim::cpu {

// Latencies (cycles) and how many pipes can issue each class; provenance per table.
struct CeCoreTable {
  std::string core;       // "cortex-x4", "cortex-a720", "cortex-a520"
  bool in_order = false;  // A520 issues in program order
  unsigned issue_width = 8;
  unsigned lat_sha256h = 4, lat_sha256h2 = 4, lat_sha256su0 = 2, lat_sha256su1 = 2;
  unsigned lat_simd = 2;  // ADD.4S, MOV, REV32
  unsigned lat_load = 6;  // LD1 of 64 bytes
  unsigned crypto_pipes = 1, simd_pipes = 2, load_pipes = 2;
  unsigned loop_overhead = 4;  // branch, pointer and count updates per block
  unsigned crypto_interval = 1;  // cycles a crypto pipe is held per instruction (1: fully pipelined)
  std::string provenance;
};

// The built-in tables; throws std::invalid_argument for an unknown core.
const CeCoreTable& ce_core_table(const std::string& core);
std::vector<std::string> ce_core_names();

// Steady-state cycles per block per message (interleave 1 or 2).
double sha256_ce_cycles_per_block(const CeCoreTable& t, unsigned interleave);

}  // namespace qcesim::cpu
