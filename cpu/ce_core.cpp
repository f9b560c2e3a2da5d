#include "cpu/ce_core.h"

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>

namespace qcesim::cpu {

namespace {

enum class Op { load, simd, su0, su1, h, h2 };

struct Insn {
  Op op;
  int dst;                // register number, -1 none
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
  out.push_back({Op::simd, t[0], {msg[0], -1, -1}});                                  // add W+K
  out.push_back({Op::simd, dg0, {dga, -1, -1}});                                      // mov
  out.push_back({Op::simd, dg1, {dgb, -1, -1}});
  for (int g = 0; g < 16; ++g) {
    const int w = msg[g % 4], w1 = msg[(g + 1) % 4], w2 = msg[(g + 2) % 4], w3 = msg[(g + 3) % 4];
    const int tc = t[g % 2], tn = t[(g + 1) % 2];
    if (g < 12) out.push_back({Op::su0, w, {w, w1, -1}});
    out.push_back({Op::simd, dg2, {dg0, -1, -1}});  // mov dg2, dg0
    if (g < 15) out.push_back({Op::simd, tn, {w1, -1, -1}});  // add next W+K
    out.push_back({Op::h, dg0, {dg0, dg1, tc}});
    out.push_back({Op::h2, dg1, {dg1, dg2, tc}});
    if (g < 12) out.push_back({Op::su1, w, {w, w2, w3}});
  }
  out.push_back({Op::simd, dga, {dga, dg0, -1}});
  out.push_back({Op::simd, dgb, {dgb, dg1, -1}});
}

// Greedy list scheduling; returns the cycle each instruction completes.
std::vector<long> schedule(const CeCoreTable& t, const std::vector<Insn>& prog) {
  std::map<int, long> ready;  // register -> cycle its value is ready
  std::map<std::pair<int, long>, unsigned> busy;  // (pipe class, cycle) -> issued
  std::map<long, unsigned> issued;                // cycle -> instructions issued
  std::vector<long> done(prog.size());
  long last_issue = 0;
  auto pipe_class = [](Op op) { return op == Op::load ? 0 : op == Op::simd ? 1 : 2; };
  for (std::size_t i = 0; i < prog.size(); ++i) {
    const Insn& in = prog[i];
    long c = t.in_order ? last_issue : 0;
    for (int s : in.src)
      if (s >= 0 && ready.count(s)) c = std::max(c, ready[s]);
    if (in.dst >= 0 && ready.count(in.dst)) c = std::max(c, ready[in.dst] - 1);  // write-after-write order
    const int pc = pipe_class(in.op);
    const unsigned cap = pc == 0 ? t.load_pipes : pc == 1 ? t.simd_pipes : t.crypto_pipes;
    const unsigned hold = pc == 2 ? t.crypto_interval : 1u;
    auto pipe_free = [&](long at) {
      for (unsigned k = 0; k < hold; ++k)
        if (busy[{pc, at + static_cast<long>(k)}] >= cap) return false;
      return true;
    };
    while (!pipe_free(c) || issued[c] >= t.issue_width) ++c;
    for (unsigned k = 0; k < hold; ++k) ++busy[{pc, c + static_cast<long>(k)}];
    ++issued[c];
    last_issue = c;
    unsigned lat = t.lat_simd;
    switch (in.op) {
      case Op::load: lat = t.lat_load; break;
      case Op::simd: lat = t.lat_simd; break;
      case Op::su0: lat = t.lat_sha256su0; break;
      case Op::su1: lat = t.lat_sha256su1; break;
      case Op::h: lat = t.lat_sha256h; break;
      case Op::h2: lat = t.lat_sha256h2; break;
    }
    done[i] = c + lat;
    if (in.dst >= 0) ready[in.dst] = c + lat;
  }
  return done;
}

}  // namespace

const CeCoreTable& ce_core_table(const std::string& core) {
  static const std::map<std::string, CeCoreTable> tables = {
      {"cortex-x4",
       {"cortex-x4", false, 10, 4, 4, 2, 2, 2, 6, 1, 4, 3, 4, 1,
        "estimate: SHA256H/H2 4, SU0/SU1 2 cycles on one vector pipe (V0) as the Neoverse-V2 optimization guide "
        "tables in the gem5 Grace model list them (darchr/novoverse grace_o3_cpu.py); X4 assumed the same "
        "generation. 4 ASIMD pipes, 3 load pipes, 10-wide dispatch."}},
      {"cortex-a720",
       {"cortex-a720", false, 5, 4, 4, 2, 2, 2, 6, 1, 2, 2, 4, 1,
        "estimate: crypto latencies as the X4 table; 2 ASIMD pipes of which one does crypto, 2 load pipes, "
        "5-wide dispatch (Cortex-A720 public overview)."}},
      {"cortex-a520",
       {"cortex-a520", true, 3, 4, 4, 2, 2, 3, 4, 1, 2, 1, 6, 2,
        "estimate: in-order issue, 3-wide; crypto in the vector datapath shared by two cores, held 2 cycles "
        "per instruction, with the X4 table's latencies, ASIMD latency 3. Chosen so 2-way interleave gains "
        "stay in the +8..25% measured on A55/A510 (linux-qce-bam.md section 5)."}},
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
    for (std::size_t i = b ? block_end[static_cast<std::size_t>(b - 1)] : 0; i < block_end[static_cast<std::size_t>(b)]; ++i)
      m = std::max(m, done[i]);
    return m;
  };
  const double span = static_cast<double>(end_of(kBlocks - 1) - end_of(kBlocks - 3)) / 2.0;
  return (span + t.loop_overhead) / interleave;
}

}  // namespace qcesim::cpu
