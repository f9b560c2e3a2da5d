#include <algorithm>
#include <cstring>
#include <random>

#include "bam/bam_hw.h"
#include "cpu/ce_sha.h"
#include "drivers/crypto/qce/sha.h"
#include "model/hash_ahead.h"
#include "model/read_only_pages.h"
#include "studies/workloads.h"

namespace qcesim::studies {

using namespace model;

namespace {

// The messages the caller hashes: a pool of distinct ones in DRAM, each request reads one of
// them; their reference digests are computed once on the host. Whole host pages each, so
// that hash-ahead can make them read-only.
struct MessagePool {
  std::vector<cpu::DmaBuf> msgs;
  std::vector<std::vector<std::uint8_t>> refs;  // empty in timing-only runs
  std::size_t alloc = 0;                        // bytes per message, whole host pages

  MessagePool(Emulator& e, const Workload& w, bool check) {
    const std::size_t pool =
        std::max<std::size_t>(1, std::min<std::size_t>(64, (32u << 20) / std::max<std::uint32_t>(w.message_bytes, 1)));
    std::mt19937_64 rng(2026);
    const std::size_t page = ReadOnlyPages::page_size();
    alloc = (std::max<std::size_t>(w.message_bytes, 1) + page - 1) / page * page;
    for (std::size_t i = 0; i < pool; ++i) {
      msgs.push_back(e.host().dma_alloc(alloc, std::max<std::size_t>(page, 4096)));
      if (!check) continue;
      for (std::uint32_t b = 0; b < w.message_bytes; b += 8) {  // eight random bytes per draw
        const std::uint64_t r = rng();
        std::memcpy(msgs.back().ptr + b, &r, std::min<std::size_t>(8, w.message_bytes - b));
      }
      refs.push_back(sha_digest(w.alg, msgs.back().ptr, w.message_bytes));
    }
  }
  std::size_t size() const { return msgs.size(); }
};

class HashWorkload : public RequestWorkload {
 public:
  HashWorkload(Emulator& e, const Workload& w, const Variant& v, bool check)
      : m_e(e),
        m_w(w),
        m_pool(e, w, check),
        m_batch(v.ce_interleave),
        m_blocks((std::uint64_t{w.message_bytes} + 9 + 63) / 64),
        m_iv(sha_initial_state(w.alg)),
        m_reqs(w.queue_depth),
        m_calls(w.hash_calls == Workload::HashCalls::init_update_final),
        m_later(qce::ahash_hash_later(w.message_bytes, qce::ahash_holds_last_block(e.qce().config().rules.era))) {
    if (m_calls)
      for (unsigned i = 0; i < w.queue_depth; ++i) m_tmpbuf.push_back(e.host().dma_alloc(kShaBlockBytes, 64));
    start_hash_ahead();
  }

  std::size_t pool_size() const override { return m_pool.size(); }
  bool real_data() const override { return !m_pool.refs.empty(); }
  std::uint32_t message_bytes(std::size_t /*m*/) const override { return m_w.message_bytes; }
  unsigned cpu_batch() const override { return m_batch; }

  // The kernel SHA library on this CPU (the CE loop, or sha256-neon on a core without crypto
  // instructions): two messages interleaved per sha256_ce_finup2x call on CE.
  std::uint64_t software(std::uint64_t first, unsigned n) override {
    m_e.task().charge(m_e.kernel().costs()(cpu::Cost::sha256_lib_call));
    m_e.qce().soft().hash(m_e.task(), m_e.kernel().costs(), m_w.alg, m_blocks, n);
    return check_cpu(first, n);
  }

  // init_update_final: the update sends something when the message is longer than a block, the
  // final when the update held something back (the 2020 driver's update sends a message that ends
  // on a block whole, and its final returns without a request or a result).
  unsigned engine_steps(std::size_t /*m*/) const override {
    if (!m_calls) return 1;
    return (m_later < m_w.message_bytes ? 1u : 0u) + (m_later > 0 ? 1u : 0u);
  }

  qce::QceAsyncRequest& engine_request(std::size_t slot, std::size_t m, unsigned step) override {
    qce::ShaRequest& r = m_reqs[slot];
    const qce::ShaCarry update_out = r.carry;  // the slot's update before its final
    r = qce::ShaRequest{};
    r.alg = m_w.alg;
    r.carry.iv = m_iv.h;
    if (!m_calls) {
      r.src = {{m_pool.msgs[m].addr, m_w.message_bytes}};
      r.nbytes = m_w.message_bytes;
      return r;
    }
    // crypto_ahash_init, _update, _final (sha.c): the update queues all but the tail it holds back
    // (since 2021 a whole block when the message ends on one: the BAM does no empty transfer for
    // the final; the 2020 driver sends it all, and its final returns with nothing to send and no
    // result), copied to rctx->buf; the final copies that to rctx->tmpbuf and queues it with LAST. The
    // model's update transfer ends at the cut; the kernel's scatterlist entry still covers the
    // whole message (nbytes is the cut), and what the BAM does with the bytes the engine does not
    // take is not documented (docs/run.md).
    const std::uint32_t later = m_later, sent = m_w.message_bytes - later;
    const cpu::DmaBuf& tmp = m_tmpbuf[slot];
    if (step == 0) std::memcpy(tmp.ptr, m_pool.msgs[m].ptr + sent, later);  // scatterwalk_map_and_copy
    if (step == 0 && sent > 0) {
      r.last = false;
      r.src = {{m_pool.msgs[m].addr, sent}};
      r.nbytes = sent;
      r.calls = {cpu::Cost::qce_ahash_update};
      return r;
    }
    if (sent > 0) r.carry = update_out;  // the update's partial digest and byte count (qce_ahash_done)
    r.first = sent == 0;
    r.src = {{tmp.addr, later}};
    r.nbytes = later;
    // A message of at most a block: the update only buffered it, and the final is its one request.
    r.calls = {cpu::Cost::qce_ahash_final};
    if (sent == 0) r.calls.insert(r.calls.begin(), cpu::Cost::qce_ahash_update);
    r.opens_message = sent == 0;
    return r;
  }
  bool engine_output_wrong(std::size_t slot, std::size_t m) const override {
    return !m_pool.refs.empty() && m_reqs[slot].digest != m_pool.refs[m];
  }

  FastForward::CheckOutputs skipped_checker(bool engine) const override {
    if (m_pool.refs.empty()) return {};
    if (!engine) return [this](std::uint64_t from, std::uint64_t n) { return check_cpu(from, n); };
    // Each one's digest by the engine's arithmetic, from the request's IV (the driver's carry)
    // as the engine compresses and pads it.
    // The 2020 driver's final writes no result for a message its update sent whole: all wrong.
    if (m_calls && m_later == 0) return [](std::uint64_t, std::uint64_t count) { return count; };
    return [this](std::uint64_t from, std::uint64_t count) {
      const std::size_t blocks = m_w.message_bytes / kShaBlockBytes, tail = m_w.message_bytes % kShaBlockBytes;
      std::uint64_t wrong = 0;
      for (std::uint64_t id = from; id < from + count; ++id) {
        const std::uint8_t* p = m_pool.msgs[id % m_pool.size()].ptr;
        ShaState st = m_iv;
        sha_compress(st, p, blocks);
        wrong += sha_finish(st, p + blocks * kShaBlockBytes, tail) != m_pool.refs[id % m_pool.size()];
      }
      return wrong;
    };
  }

  // The caller's next messages go to the hash-ahead helper while the current ones are
  // simulated: at least one request beyond those the queue holds, topped up four at a time
  // (one publish per batch).
  void before_submit(std::uint64_t id) override {
    constexpr std::uint64_t kBatch = 4;
    if (!m_ahead || m_posted >= std::min(id + m_window, m_w.messages)) return;
    for (; m_posted < std::min(id + m_window + kBatch - 1, m_w.messages); ++m_posted)
      m_ahead->post(m_iv, m_pool.msgs[m_posted % m_pool.size()].ptr, m_w.message_bytes, &m_frozen);
    m_ahead->publish();
  }
  void add_state(model::StateHash& h, std::uint64_t submitted) const override {
    if (m_ahead) h.add(m_posted - submitted);
  }
  void skipped(std::uint64_t n) override {
    if (m_ahead) m_posted += n;
  }

 private:
  // The digests alone (with real data), checked: also the requests a fast-forward skips (from
  // two threads at once then). Returns the wrong ones.
  std::uint64_t check_cpu(std::uint64_t first, std::uint64_t n) const {
    std::uint64_t wrong = 0;
    if (m_pool.refs.empty()) return wrong;
    for (std::uint64_t k = 0; k < n; ++k) {
      const std::size_t m = (first + k) % m_pool.size();
      cpu::CeSha h(m_w.alg);
      h.update(m_pool.msgs[m].ptr, m_w.message_bytes);
      wrong += h.final() != m_pool.refs[m];
    }
    return wrong;
  }

  // With the SoC's helper thread (the engine path's). Only messages that one BAM descriptor
  // carries: the engine gets a longer one in pieces that do not end on a block.
  void start_hash_ahead() {
    const bool check = !m_pool.refs.empty();
    m_ahead = check && !m_calls && m_w.message_bytes <= bam::BAM_FIFO_SIZE ? m_e.soc().qce.hash_ahead() : nullptr;
    m_window = std::min<std::uint64_t>(m_w.queue_depth + 1, 4);
    // The pool is written once, before; read-only from here it cannot change between a post
    // and its take, so the helper hashes it in place and the engine skips the compare.
    if (m_ahead)
      for (const cpu::DmaBuf& m : m_pool.msgs) m_frozen.protect(m.ptr, m_pool.alloc);  // else copied and compared
  }

  Emulator& m_e;
  const Workload& m_w;
  MessagePool m_pool;
  unsigned m_batch;
  std::uint64_t m_blocks;
  ShaState m_iv;
  std::vector<qce::ShaRequest> m_reqs;  // per slot
  bool m_calls;                         // workload.hash_calls init_update_final
  std::uint32_t m_later;                // the bytes qce_ahash_update holds back for the final
  std::vector<cpu::DmaBuf> m_tmpbuf;    // per slot: rctx->tmpbuf, the final's bytes
  HashAhead* m_ahead = nullptr;
  ReadOnlyPages m_frozen;
  std::uint64_t m_posted = 0, m_window = 0;
};

}  // namespace

std::unique_ptr<RequestWorkload> make_hash_workload(Emulator& e, const Workload& w, const Variant& v, bool check) {
  return std::make_unique<HashWorkload>(e, w, v, check);
}

}  // namespace qcesim::studies
