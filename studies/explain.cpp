#include "studies/explain.h"

#include <algorithm>
#include <map>
#include <spdlog/fmt/fmt.h>
#include <string_view>

#include "cpu/costs.h"
#include "drivers/crypto/qce/fallback.h"
#include "drivers/crypto/qce/sha.h"

namespace qcesim::studies {

using namespace model;

namespace {

// One line per step that is not a cost item (those are in cpu/costs.h): what the kernel or
// the hardware is doing and why the request needs it. Kernel names as in drivers/crypto/qce and
// drivers/dma/qcom/bam_dma.c.
const std::map<std::string, std::string>& reasons() {
  static const std::map<std::string, std::string> m = {
      {"dma_tasklet", "bam_dma's tasklet: starts descriptors still waiting for FIFO room"},
      {"bam_dma_work", "bam_dma's BH work item: starts descriptors still waiting for FIFO room"},
      {"wakeup_softirqd", "softirq work raised outside interrupt context goes to ksoftirqd"},
      {"__udelay",
       "a busy wait between two polls of a BAM pipe's offset: completion by polling, or (MMIO inside a lock pair) "
       "until the BAM has taken the LOCK"},
      {"sha256_ce_transform", "the ARMv8 Crypto Extensions block loop (SHA256H/H2/SU0/SU1), one buffer"},
      {"sha256_ce_finup2x", "the ARMv8 CE loop hashing two buffers interleaved"},
      {"sha1_ce_transform", "the ARMv8 Crypto Extensions SHA-1 block loop"},
      {"sha256_block_data_order_neon",
       "sha256-neon: the SHA-256 block loop on a core without crypto instructions (NEON message schedule, integer "
       "rounds)"},
      {"sha1_transform_neon", "sha1-neon: the SHA-1 block loop with NEON"},
      {"__aes_arm_encrypt",
       "aes-arm: scalar table-based AES, one block at a time (CBC encryption is serial, so the bit-sliced code cannot "
       "take it; a synchronous tfm, the qce driver's fallback before v5.9, gets it for every mode)"},
      {"__aes_arm_decrypt", "aes-arm: scalar table-based AES decryption, one block at a time (a synchronous tfm)"},
      {"aesbs_ecb_encrypt", "aes-neonbs: bit-sliced AES with NEON, eight blocks per pass (fewer still cost a pass)"},
      {"aesbs_ecb_decrypt", "aes-neonbs: bit-sliced AES decryption, eight blocks per pass"},
      {"aesbs_cbc_decrypt", "aes-neonbs: CBC decryption, eight blocks in parallel per pass"},
      {"aesbs_ctr_encrypt", "aes-neonbs: CTR, eight counter blocks per pass"},
      {"aesbs_xts_encrypt", "aes-neonbs: XTS, eight blocks and their tweaks per pass"},
      {"aesbs_xts_decrypt", "aes-neonbs: XTS decryption, eight blocks per pass"},
      {"qce_dma_error", "the driver handles a DMA error"},
      {"af_alg_free_resources",
       "AF_ALG frees the request's source table and the request itself (kfree), after the call: in the read, or "
       "in an AIO read's completion"},
      {"copy_from_user",
       "AF_ALG's sendmsg copies the text into the socket's pages, at the core's copy bandwidth "
       "(cpu.<type>.copy_bandwidth): bound by the memory system, not by instructions"},
      {"bam_make_lock_desc",
       "allocates a LOCK or UNLOCK descriptor with its one command element (kzalloc_flex, GFP_NOWAIT), mapped next"},
      {"bam_dma_free_lock_desc", "frees a finished LOCK or UNLOCK descriptor after unmapping its command element"},
      {"finish: result registers",
       "the engine's fixed end-of-operation time before the result registers and dump are ready (qce.finish)"},
  };
  return m;
}

std::string us(const sc_core::sc_time& t) { return fmt::format("{:.3f}", t.to_seconds() * 1e6); }

}  // namespace

std::string why_plain(const std::string& step, const std::string& kind, int item);

// Where a step of the locking series comes from: the v20 patch and the function (docs/reference/
// v20-series.md); "" for mainline steps.
std::string origin(const std::string& step, const std::string& kind) {
  static const std::map<std::string, std::string> m = {
      {"bam_make_lock_desc", "v20 06/14, bam_setup_pipe_lock in bam_start_dma"},
      {"bam_dma_free_lock_desc", "v20 06/14, in process_channel_irqs or, via terminate_all, bam_dma_free_desc"},
      {"qce_write", "v20 13/14, qce_write_dma -> qce_prep_dma_cmd_desc"},
      {"qce_submit_cmd_desc", "v20 13/14 and 14/14"},
      {"bam_dma_work", "v20 03/14, bam_dma_work on system_bh_highpri_wq"},
      {"bh_worker", "v20 03/14"},
  };
  if (auto it = m.find(step); it != m.end()) return it->second;
  if (kind == "bam" && step.find("LOCK") != std::string::npos)
    return "v20 06/14: LOCK prepended, UNLOCK appended by bam_start_dma";
  if (kind == "bam" && step.find("CMD desc") != std::string::npos)
    return "v20 13/14: the register writes as command elements";
  return "";
}

std::string why(const std::string& step, const std::string& kind, int item) {
  std::string w = why_plain(step, kind, item);
  const std::string o = origin(step, kind);
  return o.empty() ? w : w + " [" + o + "]";
}

std::string why_plain(const std::string& step, const std::string& kind, int item) {
  // The cost item the step charged, where it runs under the item's own name: several items
  // share a kernel function's name (queue_work_on from softirq or for BH work, try_to_wake_up
  // here or on another CPU, the switch into a thread or out of one, a DSB after a page-table
  // update or after cache maintenance), and each says which it is.
  if (item >= 0 && static_cast<std::size_t>(item) < cpu::kNumCosts) {
    const cpu::CostItem& c = cpu::kCostItems[static_cast<std::size_t>(item)];
    if (step == c.label) return c.doc;
  }
  if (const cpu::CostItem* c = cpu::cost_item_for_label(step)) return c->doc;
  const auto& m = reasons();
  if (auto it = m.find(step); it != m.end()) return it->second;
  if (kind == "bam" && step.rfind("waiting for EE", 0) == 0)
    return "another execution environment holds the BAM lock: this pipe fetches nothing until its UNLOCK";
  if (kind == "bam") {
    if (step.find("SMMU page walk") != std::string::npos)
      return "the SMMU walks the page tables for IOVA pages mapped for this request (an IOTLB miss on the BAM's first "
             "access to each): the pipe waits";
    if (step.find("CMD") != std::string::npos)
      return "BAM executes command descriptors: each element is a register write into QCE (LOCK/UNLOCK keep other EEs "
             "out)";
    if (step.find("from QCE") != std::string::npos)
      return "BAM's producer pipe writes what the engine sends out to memory: a cipher's output, then the result dump "
             "(EOT on its last byte: the interrupt)";
    return "BAM's consumer pipe reads the message from memory in 64-byte bursts into QCE's input FIFO";
  }
  if (kind == "qce") {
    if (step.find("padding") != std::string::npos)
      return "the engine hashes the padding block(s) after the last data block";
    if (step.find("crypt") != std::string::npos)  // "AES-256-XTS encrypt", "HMAC-SHA-256 + AES-128-CBC decrypt"
      return "the engine encrypts or decrypts (and, for an AEAD, authenticates) the data block by block as BAM "
             "delivers "
             "it, its output going back through the producer pipe";
    return "the engine hashes the data block by block as BAM delivers it (pipelined with the bursts)";
  }
  if (kind == "request") return "from the caller's submission to the completion callback";
  if (kind == "held")
    return "the interrupt reached this core while it switched a sleeping thread out (__schedule runs with interrupts "
           "off): it waits for the switch's end";
  if (kind == "idle")
    return "the core slept in this cpuidle state (the deepest whose target residency its last idle periods reached): "
           "the interrupt waits its exit latency before the handler runs";
  if (step.rfind("ce_aes_", 0) == 0)
    return "the ARMv8 Crypto Extensions AES loop (AESE/AESMC pairs: aes-ce-blk, aes-ce-ccm)";
  return "";
}

namespace {

// The track a span was drawn on.
const TraceTrack& track_of(const Tracer& tr, const TraceSpan& s) {
  return tr.tracks()[static_cast<std::size_t>(s.track)];
}

// The request's own spans in time order, its request span, and the start of the next request.
struct RequestSpans {
  std::vector<const TraceSpan*> mine;
  const TraceSpan* request_span = nullptr;
  sc_core::sc_time t0, window_end;  // its first step; the next request's first step (or its own last end)
};

RequestSpans request_spans(const Tracer& tr, std::int64_t request) {
  RequestSpans rs;
  sc_core::sc_time next_start = sc_core::sc_max_time();
  for (const TraceSpan& s : tr.spans()) {
    const std::string& kind = track_of(tr, s).kind;
    if (kind == "request") {
      if (s.request == request) rs.request_span = &s;
      continue;
    }
    if (s.request == request) rs.mine.push_back(&s);
    if (s.request == request + 1 && s.start < next_start) next_start = s.start;
  }
  if (rs.mine.empty()) return rs;
  std::stable_sort(rs.mine.begin(), rs.mine.end(),
                   [](const TraceSpan* a, const TraceSpan* b) { return a->start < b->start; });
  rs.t0 = rs.mine.front()->start;
  sc_core::sc_time last_end = rs.t0;
  for (const TraceSpan* s : rs.mine) last_end = std::max(last_end, s->end);
  rs.window_end = next_start == sc_core::sc_max_time() ? last_end : next_start;
  return rs;
}

// One line per step: start, duration, where, what, why.
std::string narrate_steps(const Tracer& tr, const RequestSpans& rs) {
  std::string out = fmt::format("{:>9} {:>8}  {:<30} {:<38} {}\n", "start us", "dur us", "where", "step", "why");
  for (const TraceSpan* s : rs.mine) {
    const TraceTrack& t = track_of(tr, *s);
    std::string where = t.group + " " + t.name;
    out += fmt::format("{:>9} {:>8}  {:<30} {:<38} {}\n", us(s->start - rs.t0), us(s->end - s->start), where, s->name,
                       why(s->name, t.kind, s->item));
  }
  return out;
}

// The request's CPU time by context, against the replay's average; the part of it spent waiting
// for cache lines the other core wrote (cpu.line_transfer each; 0: none modelled).
std::string cpu_accounting(const Tracer& tr, std::int64_t request, const RequestSpans& rs, const VariantResult& r,
                           const sc_core::sc_time& line_transfer) {
  std::map<std::string, sc_core::sc_time> by_ctx;
  sc_core::sc_time cpu = sc_core::SC_ZERO_TIME;
  for (const TraceSpan* s : rs.mine) {
    const TraceTrack& t = track_of(tr, *s);
    if (t.kind != "cpu") continue;
    const std::string ctx = t.context == "ksoftirqd" ? "softirq" : t.context;
    by_ctx[ctx] += s->end - s->start;
    if (ctx != "idle") cpu += s->end - s->start;
  }
  std::string split, moved_split;
  sc_core::sc_time moved = sc_core::SC_ZERO_TIME;
  for (const char* c : {"task", "kworker", "softirq", "hardirq"}) {
    if (by_ctx.count(c)) split += fmt::format("{}{} {} us", split.empty() ? "" : " + ", c, us(by_ctx[c]));
    if (const sc_core::sc_time t = tr.tallied(request, c); t != sc_core::SC_ZERO_TIME) {
      moved += t;
      moved_split += fmt::format("{}{} {}", moved_split.empty() ? "" : ", ", c, us(t));
    }
  }
  std::string out = fmt::format("  CPU   {} us = {}\n", us(cpu), split);
  if (moved != sc_core::SC_ZERO_TIME && line_transfer != sc_core::SC_ZERO_TIME)
    out += fmt::format(
        "        of which {} us waiting for {:.1f} cache lines the other core wrote last ({}; cpu.line_transfer {} ns "
        "each)\n",
        us(moved), moved / line_transfer, moved_split, line_transfer.to_seconds() * 1e9);
  if (by_ctx.count("idle"))
    out += fmt::format(
        "        not counted: {} us of interrupt entry and exit on an idle core, outside the irqtime clock (in no "
        "busy column of /proc/stat)\n",
        us(by_ctx["idle"]));
  const double n = static_cast<double>(std::max<std::uint64_t>(r.requests, 1));
  out += fmt::format(
      "        (this replay's average over {} requests, request 0's first-use set-up included: {:.3f} us; task {:.3f}, "
      "kworker {:.3f}, softirq {:.3f}, hardirq {:.3f})\n",
      r.requests, r.cpu_s / n * 1e6, r.task_s / n * 1e6, r.kworker_s / n * 1e6, r.softirq_s / n * 1e6,
      r.hardirq_s / n * 1e6);
  return out;
}

// Each core's busy time (any request's CPU steps) and idle time over the request's window.
// With the clock each core's steps ran at (the cpufreq governor's, as charged), or its range.
std::string wall_accounting(const Tracer& tr, const RequestSpans& rs, const VariantResult& r) {
  std::map<std::string, sc_core::sc_time> busy, waking;
  std::map<std::string, std::string> woken_from;
  std::map<std::string, std::pair<double, double>> clock;  // lowest and highest GHz
  for (const TraceSpan& s : tr.spans()) {
    const TraceTrack& t = track_of(tr, s);
    const sc_core::sc_time a = std::max(s.start, rs.t0), b = std::min(s.end, rs.window_end);
    if (b <= a) continue;
    if (t.kind == "idle") {
      waking[t.group] += b - a;
      std::string_view state = s.name;
      if (state.substr(0, model::kIdleExitSpan.size()) == model::kIdleExitSpan)
        state.remove_prefix(model::kIdleExitSpan.size());
      if (woken_from[t.group].find(state) == std::string::npos)
        woken_from[t.group] += (woken_from[t.group].empty() ? "" : ", ") + std::string(state);
      continue;
    }
    if (t.kind != "cpu") continue;
    busy[t.group] += b - a;
    if (s.ghz <= 0) continue;
    auto [it, fresh] = clock.try_emplace(t.group, s.ghz, s.ghz);
    if (!fresh) it->second = {std::min(it->second.first, s.ghz), std::max(it->second.second, s.ghz)};
  }
  const sc_core::sc_time window = rs.window_end - rs.t0;
  std::string out =
      fmt::format("  wall  {} us from this request's first step to the next request's first step\n", us(window));
  for (const auto& [core, b] : busy) {
    std::string at;
    if (const auto c = clock.find(core); c != clock.end())
      at = c->second.first == c->second.second
               ? fmt::format(" at {:.3f} GHz", c->second.first)
               : fmt::format(" at {:.3f}-{:.3f} GHz", c->second.first, c->second.second);
    const auto w = waking.find(core);
    const std::string wake =
        w == waking.end() ? "" : fmt::format("; {} us of it waking from {}", us(w->second), woken_from[core]);
    out += fmt::format("        {}{}: busy {} us + idle {} us (waiting for the hardware{})\n", core, at, us(b),
                       us(window - b), wake);
  }
  const double n = static_cast<double>(std::max<std::uint64_t>(r.requests, 1));
  out += fmt::format("        (this replay's average: {:.3f} us per request)\n", r.wall_s / n * 1e6);
  return out;
}

// Hardware busy time per track: the union of its spans (sub-steps nest inside operations).
std::string hardware_accounting(const Tracer& tr, const RequestSpans& rs) {
  std::map<std::string, std::vector<std::pair<sc_core::sc_time, sc_core::sc_time>>> hw;
  for (const TraceSpan* s : rs.mine) {
    const TraceTrack& t = track_of(tr, *s);
    if (t.kind == "bam" || t.kind == "qce") hw[t.group + " " + t.name].emplace_back(s->start, s->end);
  }
  std::string out;
  for (auto& [name, iv] : hw) {
    std::sort(iv.begin(), iv.end());
    sc_core::sc_time total = sc_core::SC_ZERO_TIME, a = iv.front().first, b = iv.front().second;
    for (const auto& [s, e] : iv) {
      if (s > b) {
        total += b - a;
        a = s;
        b = e;
      } else {
        b = std::max(b, e);
      }
    }
    total += b - a;
    out += fmt::format("  {:<30} busy {} us\n", name, us(total));
  }
  return out;
}

// The race that decides the third interrupt (docs/reference/v20-series.md section 4), per engine
// request: how far the UNLOCK's INT came from the tx EOT's handler's read of IRQ_SRCS_EE, and on
// which side (before it: that call saw it). None for an UNLOCK that asked for no interrupt.
struct UnlockRace {
  sc_core::sc_time margin;
  bool seen_by_tx_handler = false;
};

// A BAM span's flags: the last word of its name, joined by '+'.
bool has_bam_flag(const std::string& name, std::string_view flag) {
  std::string_view f(name);
  f.remove_prefix(std::min(f.size(), f.rfind(' ') + 1));
  for (std::size_t at = 0; at <= f.size();) {
    const std::size_t end = std::min(f.find('+', at), f.size());
    if (f.substr(at, end - at) == flag) return true;
    at = end + 1;
  }
  return false;
}

std::vector<UnlockRace> unlock_races(const Tracer& tr, const RequestSpans& rs) {
  const auto kind = [&](const TraceSpan* s) -> const std::string& { return track_of(tr, *s).kind; };
  std::vector<UnlockRace> out;
  const TraceSpan* dump = nullptr;  // the latest tx EOT before the UNLOCK (spans in start order)
  for (const TraceSpan* u : rs.mine) {
    if (kind(u) != "bam") continue;
    if (u->name.find(model::kBamFromQceSpan) != std::string::npos && has_bam_flag(u->name, "EOT")) dump = u;
    if (u->name.find(model::kBamCmdRunSpan) == std::string::npos || !has_bam_flag(u->name, "UNLOCK") ||
        !has_bam_flag(u->name, "INT") || !dump || dump->end > u->end)
      continue;
    // The tx EOT's handler: the first bam_dma_irq after it, and its IRQ_SRCS_EE read right behind.
    const TraceSpan *irq = nullptr, *read = nullptr;
    for (const TraceSpan* s : rs.mine) {
      if (kind(s) != "cpu") continue;
      if (!irq && s->name == "bam_dma_irq" && s->start >= dump->end) irq = s;
      if (irq && s->track == irq->track && s->name == "readl" && s->start >= irq->start &&
          s->start <= irq->end + sc_core::sc_time(10, sc_core::SC_NS)) {
        read = s;
        break;
      }
    }
    if (!read) continue;
    const bool seen = u->end < read->start;
    out.push_back({seen ? read->start - u->end : u->end - read->start, seen});
    dump = nullptr;
  }
  return out;
}

// Interrupts the request took (the BAM's, and the IPIs that woke the caller), and where the
// series' LOCK and UNLOCK descriptors were freed: the race between the UNLOCK's completion and the
// tx EOT decides both (docs/reference/v20-series.md).
std::string interrupt_accounting(const Tracer& tr, const RequestSpans& rs) {
  unsigned bam = 0, ipi = 0;
  std::map<std::string, unsigned> freed;
  for (const TraceSpan* s : rs.mine) {
    const TraceTrack& t = track_of(tr, *s);
    if (t.kind != "cpu") continue;
    if (s->name == "bam_dma_irq") ++bam;
    if (s->name == "sched_ttwu_pending") ++ipi;
    if (s->name == "bam_dma_free_lock_desc") ++freed[t.context];
  }
  std::string out = fmt::format("  interrupts {} from the BAM, {} IPI{} to wake the caller on its CPU\n", bam, ipi,
                                ipi == 1 ? "" : "s");
  if (!freed.empty()) {
    std::string where;
    for (const auto& [ctx, n] : freed) where += fmt::format("{}{} in {}", where.empty() ? "" : ", ", n, ctx);
    std::string why;
    if (freed.count("softirq")) {
      why = " (terminate_all found the UNLOCK still in the FIFO: pipe reset)";
    } else {
      const std::vector<UnlockRace> races = unlock_races(tr, rs);
      for (std::size_t i = 0; i < races.size(); ++i) {
        const UnlockRace& race = races[i];
        why += fmt::format("{}{}the UNLOCK's INT came {} us {} the tx EOT's handler read IRQ_SRCS_EE: {}",
                           i ? "; " : " (", races.size() > 1 ? fmt::format("engine request {}: ", i + 1) : "",
                           us(race.margin), race.seen_by_tx_handler ? "before" : "after",
                           race.seen_by_tx_handler ? "seen in that call" : "an interrupt of its own");
      }
      if (!races.empty()) why += ")";
    }
    out += fmt::format("        LOCK/UNLOCK freed: {}{}\n", where, why);
  }
  return out;
}

// The data path's rate per byte for this workload: the engine's cycles per block at its clock,
// and the BAM's burst rate; the slower one sets the stream once a request is under way.
std::string per_byte(const Scenario& sc, const Variant& v, const Profile& p) {
  if (v.engine != VariantEngine::qce) return "";
  const AlgName& a = sc.workload.algorithm;
  std::string key;
  double block = 16;
  if (a.kind == AlgKind::hash) {
    key = a.hash == HashAlg::sha1 ? "sha1" : "sha256";
    block = 64;
  } else if (a.cipher == CipherAlg::aes) {
    const std::size_t k = sc.workload.key_bytes ? sc.workload.key_bytes : a.default_key_bytes();
    key = (a.mode == CipherMode::xts ? k / 2 : k) > 16 ? "aes256" : "aes128";
  } else {
    key = a.cipher == CipherAlg::des ? "des" : "3des";
    block = 8;
  }
  const double mhz = p.num("qce.clock"), cycles = p.num("qce.cycles_per_block_" + key), mbps = p.num("bam.bandwidth");
  const double engine_ns = cycles / mhz * 1e3 / block, bam_ns = 1e3 / mbps;
  return fmt::format(
      "  per byte: engine {:.2f} ns ({} cycles per {:.0f}-byte {} block at qce.clock {} MHz), BAM {:.2f} ns "
      "(bam.bandwidth {} MB/s): the {} sets the stream\n",
      engine_ns, cycles, block, key, mhz, bam_ns, mbps, engine_ns >= bam_ns ? "engine" : "BAM");
}

}  // namespace

std::uint64_t messages_to_explain(const Workload& w, std::int64_t request) {
  return std::min<std::uint64_t>(w.messages, static_cast<std::uint64_t>(request) + 2 + w.queue_depth);
}

namespace {
constexpr std::uint64_t kFirstWarmRequest = 10;  // the driver's first use and the first map calls are behind
constexpr std::uint64_t kNoCycleRequest = 100;   // no cycle: far enough in for queues and caches
constexpr std::uint64_t kSteadyProbeMessages = 5000;
}  // namespace

std::int64_t steady_request(const FastForwardInfo& ff, std::uint64_t messages, unsigned batch) {
  if (messages == 0) return 0;
  const std::uint64_t b = std::max(batch, 1u);
  const std::uint64_t want = found_steady_cycle(ff) ? std::max(ff.found_at, kFirstWarmRequest) : kNoCycleRequest;
  const std::uint64_t up = (want + b - 1) / b * b, last = (messages - 1) / b * b;
  return static_cast<std::int64_t>(std::min(up, last));
}

unsigned traced_batch(const Variant& v) { return v.engine == VariantEngine::ce ? v.ce_interleave : 1; }

bool found_steady_cycle(const FastForwardInfo& ff) { return ff.skipped > 0 && ff.found_at <= kSteadyProbeMessages; }

std::uint64_t messages_to_find_steady_state(const Workload& w) { return std::min(w.messages, kSteadyProbeMessages); }

std::string steady_request_note(const FastForwardInfo& ff, std::int64_t request, std::uint64_t probed) {
  if (found_steady_cycle(ff))
    return fmt::format(
        "request {}, in the steady state: the replay repeats a cycle of {} request{}, recognised at request {}",
        request, ff.period, ff.period == 1 ? "" : "s", ff.found_at);
  return fmt::format("request {}: no repeating cycle found in the first {} requests (or sim.fast_forward = 0)", request,
                     probed);
}

std::string narrate(const Tracer& tr, std::int64_t request, const Scenario& sc, const Variant& v,
                    const VariantResult& r) {
  const RequestSpans rs = request_spans(tr, request);
  if (rs.mine.empty()) return fmt::format("request {} left no trace (the run has {} requests)\n", request, r.requests);
  const bool calls = sc.workload.hash_calls == Workload::HashCalls::init_update_final && v.engine == VariantEngine::qce;
  const Profile p = sc.profile_for(v);
  // The update sends what the driver does not hold back for the final (docs/run.md).
  const std::uint32_t later =
      qce::ahash_hash_later(sc.workload.message_bytes, qce::ahash_holds_last_block(qce::qce_rules(p).era));
  std::string out = fmt::format(
      "{} / {}: request {} of {} ({} x {} B, queue depth {}{})\n", sc.name, v.name, request, r.requests, r.requests,
      sc.workload.message_bytes, sc.workload.queue_depth,
      !calls ? ""
      : later == 0
          ? "; init, update and final: one engine request, the update's (the 2020 driver's final has nothing left "
            "and writes no result)"
      : later < sc.workload.message_bytes
          ? "; init, update and final: two engine requests, the update's and the final's"
          : "; init, update and final: one engine request, the final's");
  out += narrate_steps(tr, rs);
  out += fmt::format("\naccounting for request {}:\n", request);
  out += cpu_accounting(tr, request, rs, r,
                        p.has("cpu.line_transfer") ? p.time("cpu.line_transfer") : sc_core::SC_ZERO_TIME);
  out += wall_accounting(tr, rs, r);
  out += interrupt_accounting(tr, rs);
  if (rs.request_span)
    out += fmt::format("  latency {} us from the caller's submission to the completion callback\n",
                       us(rs.request_span->end - rs.request_span->start));
  out += hardware_accounting(tr, rs);
  out += per_byte(sc, v, p);
  return out;
}

}  // namespace qcesim::studies
