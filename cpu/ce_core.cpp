#include "cpu/ce_core.h"

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>

namespace qcesim::cpu {

namespace {

enum class Op { load, simd, su0, su1, h, h2, aes };

struct Insn {
  Op op;
  int dst;                 // register number, -1 none
  std::array<int, 3> src;  // -1 unused
};

// One block of the kernel loop for one message; registers offset by `base` so two messages
// interleave without false dependencies. v16..v19 message, dg0/dg1/dg2, t0/t1, dga/dgb.
void emit_block(std::vector<Insn>& out, int base) {
  const int msg[4] = {base + 0, base + 1, base + 2, base + 3};
  const int dg0 = base + 4, dg1 = base + 5, dg2 = base + 6, t[2] = {base + 7, base + 8}, dga = base + 9,
            dgb = base + 10;
  out.push_back({Op::load, msg[0], {-1, -1, -1}});
  out.push_back({Op::load, msg[2], {-1, -1, -1}});
  for (int i = 0; i < 4; ++i) out.push_back({Op::simd, msg[i], {msg[i], -1, -1}});  // rev32
  out.push_back({Op::simd, t[0], {msg[0], -1, -1}});                                // add W+K
  out.push_back({Op::simd, dg0, {dga, -1, -1}});                                    // mov
  out.push_back({Op::simd, dg1, {dgb, -1, -1}});
  for (int g = 0; g < 16; ++g) {
    const int w = msg[g % 4], w1 = msg[(g + 1) % 4], w2 = msg[(g + 2) % 4], w3 = msg[(g + 3) % 4];
    const int tc = t[g % 2], tn = t[(g + 1) % 2];
    if (g < 12) out.push_back({Op::su0, w, {w, w1, -1}});
    out.push_back({Op::simd, dg2, {dg0, -1, -1}});            // mov dg2, dg0
    if (g < 15) out.push_back({Op::simd, tn, {w1, -1, -1}});  // add next W+K
    out.push_back({Op::h, dg0, {dg0, dg1, tc}});
    out.push_back({Op::h2, dg1, {dg1, dg2, tc}});
    if (g < 12) out.push_back({Op::su1, w, {w, w2, w3}});
  }
  out.push_back({Op::simd, dga, {dga, dg0, -1}});
  out.push_back({Op::simd, dgb, {dgb, dg1, -1}});
}

// Greedy list scheduling; returns the cycle each instruction completes. Flat tables indexed by
// register and by cycle: every process that builds a CPU runs this for each loop it times.
std::vector<long> schedule(const CeCoreTable& t, const std::vector<Insn>& prog) {
  constexpr long kUnset = -1;
  constexpr std::size_t kClasses = 4;
  std::vector<long> ready;       // register -> cycle its value is ready (kUnset: not yet written)
  std::vector<unsigned> busy;    // cycle * kClasses + pipe class -> issued
  std::vector<unsigned> issued;  // cycle -> instructions issued
  std::vector<long> done(prog.size());
  long last_issue = 0;
  auto pipe_class = [](Op op) { return op == Op::load ? 0u : op == Op::simd ? 1u : op == Op::aes ? 3u : 2u; };
  auto ready_of = [&](int reg) {
    return static_cast<std::size_t>(reg) < ready.size() ? ready[static_cast<std::size_t>(reg)] : kUnset;
  };
  auto grow = [&](long cycle) {
    const auto need = static_cast<std::size_t>(cycle) + 1;
    if (issued.size() < need) {
      issued.resize(need * 2, 0);
      busy.resize(need * 2 * kClasses, 0);
    }
  };
  for (std::size_t i = 0; i < prog.size(); ++i) {
    const Insn& in = prog[i];
    long c = t.in_order ? last_issue : 0;
    for (int s : in.src)
      if (s >= 0 && ready_of(s) != kUnset) c = std::max(c, ready_of(s));
    if (in.dst >= 0 && ready_of(in.dst) != kUnset) c = std::max(c, ready_of(in.dst) - 1);  // write-after-write order
    const unsigned pc = pipe_class(in.op);
    const unsigned cap = pc == 0 ? t.load_pipes : pc == 1 ? t.simd_pipes : pc == 3 ? t.aes_pipes : t.crypto_pipes;
    const unsigned hold = pc >= 2 ? t.crypto_interval : 1u;
    auto pipe_free = [&](long at) {
      grow(at + static_cast<long>(hold));
      for (unsigned k = 0; k < hold; ++k)
        if (busy[static_cast<std::size_t>(at + static_cast<long>(k)) * kClasses + pc] >= cap) return false;
      return true;
    };
    while (!pipe_free(c) || issued[static_cast<std::size_t>(c)] >= t.issue_width) ++c;
    for (unsigned k = 0; k < hold; ++k) ++busy[static_cast<std::size_t>(c + static_cast<long>(k)) * kClasses + pc];
    ++issued[static_cast<std::size_t>(c)];
    last_issue = c;
    unsigned lat = t.lat_simd;
    switch (in.op) {
      case Op::load:
        lat = t.lat_load;
        break;
      case Op::simd:
        lat = t.lat_simd;
        break;
      case Op::su0:
        lat = t.lat_sha256su0;
        break;
      case Op::su1:
        lat = t.lat_sha256su1;
        break;
      case Op::h:
        lat = t.lat_sha256h;
        break;
      case Op::h2:
        lat = t.lat_sha256h2;
        break;
      case Op::aes:
        lat = t.lat_aes;
        break;
    }
    done[i] = c + lat;
    if (in.dst >= 0) {
      const auto d = static_cast<std::size_t>(in.dst);
      if (ready.size() <= d) ready.resize(d + 1, kUnset);
      ready[d] = c + lat;
    }
  }
  return done;
}

// The loop's branch, pointer and count updates per iteration: an in-order core issues them in line
// with the chain; an out-of-order one runs them beside it, so they cost only their issue slots.
double loop_overhead(const CeCoreTable& t) {
  return t.in_order ? static_cast<double>(t.loop_overhead)
                    : static_cast<double>(t.loop_overhead) / static_cast<double>(t.issue_width);
}

}  // namespace

const CeCoreTable& ce_core_table(const std::string& core) {
  auto with_aes = [](CeCoreTable t, unsigned lat, unsigned pipes, const char* why) {
    t.lat_aes = lat;
    t.aes_pipes = pipes;
    t.aes_fused = true;
    t.aes_provenance = why;
    return t;
  };
  static const std::map<std::string, CeCoreTable> tables = {
      {"cortex-x4",
       with_aes(
           {"cortex-x4", false, 10, 4, 4, 2, 2, 2, 6, 1, 4, 3, 4, 1,
            "estimate: SHA256H/H2 4, SU0/SU1 2 cycles on one vector pipe (V0) as the Neoverse-V2 optimization guide "
            "tables in the gem5 Grace model list them (darchr/novoverse grace_o3_cpu.py); X4 assumed the same "
            "generation. 4 ASIMD pipes, 3 load pipes, 10-wide dispatch.",
            0, 0, true, ""},
           2, 4,
           "estimate: AESE/AESD/AESMC/AESIMC 2 cycles on all four vector pipes (V0-V3), as the Neoverse-V2 "
           "guide's tables in the gem5 Grace model list them (SimdAes, SimdAesMix); AESE+AESMC pairs fused, as "
           "Arm's optimization guides since Cortex-A57 recommend [I]; X4 assumed the V2's generation.")},
      {"cortex-a720",
       with_aes({"cortex-a720", false, 5, 4, 4, 2, 2, 2, 6, 1, 2, 2, 4, 1,
                 "estimate: crypto latencies as the X4 table; 2 ASIMD pipes of which one does crypto, 2 load pipes, "
                 "5-wide dispatch (Cortex-A720 public overview).",
                 0, 0, true, ""},
                2, 2, "estimate: AES latency as the X4 table, on both ASIMD pipes, pairs fused [I].")},
      {"cortex-a520",
       with_aes({"cortex-a520", true, 3, 4, 4, 2, 2, 3, 4, 1, 2, 1, 6, 2,
                 "estimate: in-order issue, 3-wide; crypto in the vector datapath shared by two cores, held 2 cycles "
                 "per instruction, with the X4 table's latencies, ASIMD latency 3. Chosen so 2-way interleave gains "
                 "stay in the +8..25% measured on A55/A510 (linux-qce-bam.md section 5).",
                 0, 0, true, ""},
                3, 1,
                "estimate: AES in the shared vector datapath, one pipe held 2 cycles per instruction (as the SHA "
                "instructions), latency 3 (the ASIMD latency), pairs fused [I].")},
  };
  auto it = tables.find(core);
  if (it == tables.end()) throw std::invalid_argument("unknown CE core '" + core + "'");
  return it->second;
}

std::vector<std::string> ce_core_names() { return {"cortex-x4", "cortex-a720", "cortex-a520"}; }

double sha256_ce_cycles_per_block(const CeCoreTable& t, unsigned interleave) {
  if (interleave != 1 && interleave != 2) throw std::invalid_argument("interleave must be 1 or 2");
  // Steady state: schedule several blocks back to back and measure the last one's span.
  constexpr int kBlocks = 6;
  std::vector<Insn> prog;
  std::vector<std::size_t> block_end;
  for (int b = 0; b < kBlocks; ++b) {
    if (interleave == 1) {
      emit_block(prog, 0);
    } else {
      // finup2x interleaves the two messages instruction by instruction.
      std::vector<Insn> a, c;
      emit_block(a, 0);
      emit_block(c, 16);
      for (std::size_t i = 0; i < std::max(a.size(), c.size()); ++i) {
        if (i < a.size()) prog.push_back(a[i]);
        if (i < c.size()) prog.push_back(c[i]);
      }
    }
    block_end.push_back(prog.size());
  }
  const std::vector<long> done = schedule(t, prog);
  auto end_of = [&](int b) {
    long m = 0;
    for (std::size_t i = b ? block_end[static_cast<std::size_t>(b - 1)] : 0; i < block_end[static_cast<std::size_t>(b)];
         ++i)
      m = std::max(m, done[i]);
    return m;
  };
  const double span = static_cast<double>(end_of(kBlocks - 1) - end_of(kBlocks - 3)) / 2.0;
  return (span + loop_overhead(t)) / interleave;
}

const char* aes_loop_name(AesLoop l) {
  switch (l) {
    case AesLoop::serial:
      return "serial";
    case AesLoop::parallel:
      return "parallel";
    case AesLoop::ctr:
      return "ctr";
    case AesLoop::xts:
      return "xts";
    case AesLoop::ccm:
      return "ccm";
  }
  return "?";
}

namespace {

// One AES block's rounds on register `x` (round keys live in registers the loop never writes):
// rounds - 1 AESE/AESMC pairs, the last AESE, the EOR with the last round key.
void emit_aes_rounds(std::vector<Insn>& out, const CeCoreTable& t, unsigned rounds, int x) {
  for (unsigned r = 0; r + 1 < rounds; ++r) {
    out.push_back({Op::aes, x, {x, -1, -1}});                    // AESE (or the fused pair)
    if (!t.aes_fused) out.push_back({Op::aes, x, {x, -1, -1}});  // AESMC
  }
  out.push_back({Op::aes, x, {x, -1, -1}});
  out.push_back({Op::simd, x, {x, -1, -1}});
}

// Interleaved rounds of several blocks, round by round (as aes-modes.S's 4x macros do).
void emit_aes_rounds_x(std::vector<Insn>& out, const CeCoreTable& t, unsigned rounds, const std::vector<int>& xs) {
  for (unsigned r = 0; r + 1 < rounds; ++r) {
    for (int x : xs) out.push_back({Op::aes, x, {x, -1, -1}});
    if (!t.aes_fused)
      for (int x : xs) out.push_back({Op::aes, x, {x, -1, -1}});
  }
  for (int x : xs) out.push_back({Op::aes, x, {x, -1, -1}});
  for (int x : xs) out.push_back({Op::simd, x, {x, -1, -1}});
}

// One loop iteration; returns the blocks it processes. Registers: 0 chain/MAC, 1 counter,
// 2 tweak, 3 previous ciphertext (carried from one iteration to the next), `base` + 10.. the
// iteration's own (an out-of-order core renames them, so iterations overlap).
unsigned emit_aes_iteration(std::vector<Insn>& out, const CeCoreTable& t, unsigned rounds, AesLoop loop, int base) {
  constexpr int kChain = 0, kCtr = 1, kTweak = 2, kPrev = 3;
  if (loop == AesLoop::serial) {
    out.push_back({Op::load, base + 10, {-1, -1, -1}});
    out.push_back({Op::simd, kChain, {kChain, base + 10, -1}});  // EOR with the previous ciphertext
    emit_aes_rounds(out, t, rounds, kChain);
    return 1;
  }
  if (loop == AesLoop::ccm) {  // aes-ce-ccm-core.S: MAC and counter block in lockstep
    const int in = base + 10, ks = base + 11;
    out.push_back({Op::load, in, {-1, -1, -1}});
    out.push_back({Op::simd, kCtr, {kCtr, -1, -1}});  // counter + 1
    out.push_back({Op::simd, ks, {kCtr, -1, -1}});    // byte-reversed into the block
    emit_aes_rounds_x(out, t, rounds, {kChain, ks});
    out.push_back({Op::simd, kChain, {kChain, in, -1}});  // MAC ^= plaintext
    out.push_back({Op::simd, base + 12, {ks, in, -1}});   // out = keystream ^ in
    return 1;
  }
  std::vector<int> xs;
  for (int b = 0; b < 4; ++b) {
    const int x = base + 10 + b, tmp = base + 20;
    xs.push_back(x);
    out.push_back({Op::load, x, {-1, -1, -1}});
    if (loop == AesLoop::ctr) {
      out.push_back({Op::simd, kCtr, {kCtr, -1, -1}});
      out.push_back({Op::simd, x, {kCtr, -1, -1}});
    } else if (loop == AesLoop::xts) {
      // next_tweak: SSHR, ADD, AND, EXT, EOR on the running tweak, then EOR into the block.
      out.push_back({Op::simd, tmp, {kTweak, -1, -1}});
      out.push_back({Op::simd, kTweak, {kTweak, -1, -1}});
      out.push_back({Op::simd, tmp, {tmp, -1, -1}});
      out.push_back({Op::simd, tmp, {tmp, -1, -1}});
      out.push_back({Op::simd, kTweak, {kTweak, tmp, -1}});
      out.push_back({Op::simd, x, {x, kTweak, -1}});
    }
  }
  emit_aes_rounds_x(out, t, rounds, xs);
  for (int x : xs) {
    if (loop == AesLoop::ctr) out.push_back({Op::simd, x + 30, {x, -1, -1}});     // EOR keystream into the data
    if (loop == AesLoop::xts) out.push_back({Op::simd, x, {x, kTweak, -1}});      // EOR with the tweak again
    if (loop == AesLoop::parallel) out.push_back({Op::simd, x, {x, kPrev, -1}});  // CBC decryption's EOR
  }
  return 4;
}

}  // namespace

double aes_ce_cycles_per_block(const CeCoreTable& t, unsigned rounds, AesLoop loop) {
  if (rounds != 10 && rounds != 12 && rounds != 14) throw std::invalid_argument("AES has 10, 12 or 14 rounds");
  constexpr int kIterations = 8;
  std::vector<Insn> prog;
  std::vector<std::size_t> iter_end;
  unsigned blocks = 1;
  for (int i = 0; i < kIterations; ++i) {
    blocks = emit_aes_iteration(prog, t, rounds, loop, t.in_order ? 0 : 100 * i);
    iter_end.push_back(prog.size());
  }
  const std::vector<long> done = schedule(t, prog);
  auto end_of = [&](int i) {
    long m = 0;
    for (std::size_t k = i ? iter_end[static_cast<std::size_t>(i - 1)] : 0; k < iter_end[static_cast<std::size_t>(i)];
         ++k)
      m = std::max(m, done[k]);
    return m;
  };
  const double span = static_cast<double>(end_of(kIterations - 1) - end_of(kIterations - 3)) / 2.0;
  return (span + loop_overhead(t)) / blocks;
}

}  // namespace qcesim::cpu
