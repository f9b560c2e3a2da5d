// The ARMv8 Crypto Extensions core model: cycles per 64-byte SHA-256 block, from scheduling the
// instructions of the kernel's SHA-256 CE loop (lib/crypto/arm64/sha256-ce.S: 16 groups of 4
// rounds, each ADD W+K, SHA256SU0/SU1 for the first 12, MOV, SHA256H, SHA256H2) on a core's
// latencies and issue pipes. One buffer, or two interleaved (sha256_ce_finup2x). And cycles per
// 16-byte AES block of the kernel's AES CE loops (arch/arm64/crypto/aes-ce.S, aes-modes.S,
// aes-ce-ccm-core.S): AESE/AESMC pairs per round, CBC encryption and CCM's MAC as one serial
// chain, ECB/CBC-decrypt/CTR/XTS four blocks interleaved, XTS's tweak update and CTR's counter
// between them.
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
  unsigned loop_overhead = 4;    // branch, pointer and count updates per iteration (beside the chain out of order)
  unsigned crypto_interval = 1;  // cycles a crypto pipe is held per instruction (1: fully pipelined)
  std::string provenance;
  // AES: AESE/AESD/AESMC/AESIMC latency, the pipes that run them, and whether an AESE/AESMC
  // (AESD/AESIMC) pair issues fused as one operation of lat_aes.
  unsigned lat_aes = 2, aes_pipes = 1;
  bool aes_fused = true;
  std::string aes_provenance;
};

// The built-in tables; throws std::invalid_argument for an unknown core.
const CeCoreTable& ce_core_table(const std::string& core);
std::vector<std::string> ce_core_names();

// Steady-state cycles per block per message (interleave 1 or 2).
double sha256_ce_cycles_per_block(const CeCoreTable& t, unsigned interleave);

// The kernel's AES CE loops: serial (CBC encryption: each block waits for the one before),
// parallel (ECB, CBC decryption: four independent blocks), ctr (parallel with a counter
// increment per block), xts (parallel with the tweak multiplied by x per block), ccm (the
// CBC-MAC chain and the counter block of each 16 bytes in lockstep).
enum class AesLoop { serial, parallel, ctr, xts, ccm };
const char* aes_loop_name(AesLoop l);
// Steady-state cycles per 16-byte block; rounds 10 (AES-128), 12 or 14 (AES-256).
double aes_ce_cycles_per_block(const CeCoreTable& t, unsigned rounds, AesLoop loop);

}  // namespace qcesim::cpu
