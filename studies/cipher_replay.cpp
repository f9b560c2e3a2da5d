#include "studies/cipher_replay.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <memory>
#include <cstring>
#include <random>

#include "drivers/crypto/qce/aead.h"
#include "drivers/crypto/qce/skcipher.h"
#include "model/aead_cipher.h"
#include "model/byte_order.h"
#include "model/trace.h"

namespace qcesim::studies {

using sc_core::sc_time;

namespace {

using Bytes = std::vector<std::uint8_t>;

// One message is one XTS data unit (the driver writes ENCR_XTS_DU_SIZE = cryptlen).
CipherSpec skcipher_spec(const AlgName& a, const Bytes& key, const std::array<std::uint8_t, 16>& iv, bool encrypt,
                         std::uint32_t bytes) {
  CipherSpec s = kernel_cipher_spec(a.cipher, a.mode, encrypt, key, iv.data(), iv.size());
  if (a.mode == CipherMode::xts) s.data_unit_bytes = bytes;
  return s;
}

// The workload's keys and its pool of messages in DRAM: each message's input (associated data,
// then the text, then the tag when decrypting), its IV, and (with real data) the reference
// output; decrypting, the inputs are encryptions of random plaintexts.
struct CipherPool {
  const Workload& w;
  Bytes key, auth_key;
  std::vector<cpu::DmaBuf> in;
  std::vector<std::array<std::uint8_t, 16>> iv;
  std::vector<Bytes> ref;          // the output after the associated data; empty in timing-only runs
  std::vector<std::uint32_t> len;  // each message's text (workload.size_mix: its size in the pattern)
  unsigned tag = 0;
  mutable std::unique_ptr<CipherStream> stream;  // the CPU's skcipher, keyed once (the simulation's thread)

  std::uint32_t in_text(std::size_t m) const { return len[m] + (w.encrypt ? 0 : tag); }
  std::uint32_t out_text(std::size_t m) const { return len[m] + (w.encrypt ? tag : 0); }

  CipherPool(Emulator& e, const Workload& wl, bool check) : w(wl) {
    tag = w.algorithm.kind == AlgKind::aead ? w.tag_bytes : 0;
    std::mt19937_64 rng(2026);
    auto random = [&](std::size_t n) {
      Bytes b(n);
      for (auto& x : b) x = static_cast<std::uint8_t>(rng());
      return b;
    };
    key = random(w.key_bytes);
    if (w.algorithm.mode == CipherMode::xts && w.algorithm.kind == AlgKind::skcipher)
      while (xts_halves_equal(key)) key = random(w.key_bytes);
    auth_key = w.algorithm.ccm ? key : random(w.auth_key_bytes);
    const std::size_t per = w.assoc_bytes + w.message_bytes + tag;
    // Whole repeats of the size pattern, so message i of the run is pool entry i % size().
    const std::size_t pattern = std::max<std::size_t>(w.size_pattern.size(), 1);
    const std::size_t pool = pattern * std::max<std::size_t>(1, std::min<std::size_t>(64, (32u << 20) / per) / pattern);
    for (std::size_t i = 0; i < pool; ++i) {
      len.push_back(w.bytes_of(i));
      std::array<std::uint8_t, 16> v{};
      const Bytes r = random(16);
      std::copy(r.begin(), r.end(), v.begin());
      if (w.algorithm.ccm) {  // ccm(aes): L = 3, a 12-byte nonce, the counter zero
        v[0] = 2;
        v[13] = v[14] = v[15] = 0;
      }
      iv.push_back(v);
      in.push_back(e.host().dma_alloc(w.assoc_bytes + in_text(i), 4096));
      if (!check) continue;
      const Bytes assoc = random(w.assoc_bytes), plain = random(len[i]);
      const Bytes cipher = encrypt(assoc, plain, v);
      const Bytes& input = w.encrypt ? plain : cipher;
      copy_bytes(in.back().ptr, assoc.data(), assoc.size());
      copy_bytes(in.back().ptr + assoc.size(), input.data(), input.size());
      ref.push_back(w.encrypt ? cipher : plain);
    }
  }
  std::size_t size() const { return in.size(); }

  // The encryption of a message (ciphertext, and the tag for an AEAD).
  Bytes encrypt(const Bytes& assoc, const Bytes& plain, const std::array<std::uint8_t, 16>& v) const {
    const AlgName& a = w.algorithm;
    if (a.kind == AlgKind::skcipher) {
      Bytes out(plain.size());
      CipherStream(skcipher_spec(a, key, v, true, static_cast<std::uint32_t>(plain.size())))
          .update(plain.data(), out.data(), plain.size());
      return out;
    }
    return *aead_crypt(a.ccm, a.cipher, a.hash, true, key, auth_key, v, assoc, plain, w.tag_bytes);
  }

  // What the software implementation computes for message m, into out (after its assoc).
  void software(std::size_t m, std::uint8_t* out) const { software(m, out, stream); }
  // The same with the caller's stream (one per thread).
  void software(std::size_t m, std::uint8_t* out, std::unique_ptr<CipherStream>& own) const {
    const AlgName& a = w.algorithm;
    const std::uint8_t* p = in[m].ptr;
    if (a.kind == AlgKind::skcipher) {
      const CipherSpec spec = skcipher_spec(a, key, iv[m], w.encrypt, len[m]);
      if (!own || !own->same_keys(spec)) own = std::make_unique<CipherStream>(spec);
      own->restart(iv[m]);  // the tfm's key schedule stays; each request has its IV
      own->update(p, out, in_text(m));
      return;
    }
    const Bytes assoc(p, p + w.assoc_bytes), text(p + w.assoc_bytes, p + w.assoc_bytes + in_text(m));
    const std::optional<Bytes> r =
        aead_crypt(a.ccm, a.cipher, a.hash, w.encrypt, key, auth_key, iv[m], assoc, text, w.tag_bytes);
    if (r) copy_bytes(out, r->data(), r->size());
  }
};

// With real data, the software implementation's output for message m checked.
void check_software(const CipherPool& pool, std::size_t m, std::uint8_t* out, VariantResult& res) {
  if (pool.ref.empty()) return;
  pool.software(m, out);
  if (!std::equal(pool.ref[m].begin(), pool.ref[m].end(), out)) ++res.digest_mismatches;
}

// Skipped requests from..from + count - 1 (with real data): each one's output computed by
// compute(message, out) and compared with its reference; how many were wrong.
template <class Compute>
std::uint64_t count_wrong(const CipherPool& pool, std::uint64_t from, std::uint64_t count, Compute compute) {
  Bytes out(pool.w.message_bytes + pool.tag);
  std::uint64_t wrong = 0;
  for (std::uint64_t id = from; id < from + count; ++id) {
    const std::size_t m = id % pool.size();
    compute(m, out.data());
    wrong += !std::equal(pool.ref[m].begin(), pool.ref[m].end(), out.data());
  }
  return wrong;
}

// The same through the software implementation, on the calling thread's own stream.
std::uint64_t check_software_range(const CipherPool& pool, std::uint64_t from, std::uint64_t count) {
  std::unique_ptr<CipherStream> stream;
  return count_wrong(pool, from, count, [&](std::size_t m, std::uint8_t* out) { pool.software(m, out, stream); });
}

// The software implementation in the caller's context: its CPU time (the kernel's choice on this
// core) and, with real data, its output checked.
void software_request(Emulator& e, const CipherPool& pool, std::size_t m, std::uint8_t* out, VariantResult& res) {
  const Workload& w = pool.w;
  const AlgName& a = w.algorithm;
  const cpu::SoftCrypto& soft = e.qce().soft();
  const std::size_t key_bytes =
      a.mode == CipherMode::xts && a.kind == AlgKind::skcipher ? w.key_bytes / 2 : w.key_bytes;
  if (a.kind == AlgKind::skcipher)
    soft.skcipher(e.task(), e.kernel().costs(), a.cipher, a.mode, key_bytes, w.encrypt, pool.len[m]);
  else
    soft.aead(e.task(), e.kernel().costs(), a.ccm, a.cipher, a.hash, key_bytes, w.encrypt, w.assoc_bytes, pool.len[m]);
  check_software(pool, m, out, res);
}

// The CPU path: one request at a time on the caller's core.
void run_cpu(Emulator& e, const CipherPool& pool, model::LatencyStats& lat, VariantResult& res, const RequestTick& tick,
             FastForward& ff) {
  Bytes out(pool.w.message_bytes + pool.tag);
  for (std::uint64_t i = 0; i < pool.w.messages; ++i) {
    if (const std::uint64_t skip = ff.at_boundary(i, pool.w.messages, i % pool.size())) {
      if (!pool.ref.empty())
        res.digest_mismatches += ff.check_skipped(
            i, skip, [&pool](std::uint64_t a, std::uint64_t k) { return check_software_range(pool, a, k); });
      i += skip;
      if (i >= pool.w.messages) break;
    }
    tick(i);
    if (auto* tr = model::Tracer::active()) tr->set_request(static_cast<std::int64_t>(i));
    const sc_time t0 = sc_core::sc_time_stamp();
    software_request(e, pool, i % pool.size(), out.data(), res);
    ++res.issued;
    ++res.completed;
    e.task().sync();
    record_latency(lat, i, t0, sc_core::sc_time_stamp());
  }
}

// The QCE path: up to queue_depth requests in flight through the driver; the era's rules send
// some to the software fallback, run at once in the caller's context.
class QceCipherPath {
 public:
  // `faults`: the scenario's injected faults. With any (or another EE on the engine) a failed
  // request is counted and the run goes on, redone in software by the caller with cpu_fallback;
  // without, the first failure stops the run (it would be a bug).
  QceCipherPath(Emulator& e, const EmulatorConfig& cfg, const CipherPool& pool, model::LatencyStats& lat,
                VariantResult& res, const RequestTick& tick, FastForward& ff, const Faults& faults)
      : m_e(e),
        m_cfg(cfg),
        m_pool(pool),
        m_w(pool.w),
        m_lat(lat),
        m_res(res),
        m_tick(tick),
        m_ff(ff),
        m_slots(pool.w.queue_depth),
        m_freed(e.kernel()),
        m_failures_expected(e.tz() != nullptr || faults.any()),
        m_cpu_fallback(faults.cpu_fallback) {
    for (Slot& s : m_slots) s.out = e.host().dma_alloc(m_w.assoc_bytes + m_w.message_bytes + m_pool.tag, 4096);
    const AlgName& a = m_w.algorithm;
    m_aead = qce::AeadAlg{a.ccm, a.cipher, a.hash};
    for (std::size_t m = 0; m < m_pool.size(); ++m) {  // qce_*_crypt's decision by size
      m_route.push_back(a.kind == AlgKind::skcipher
                            ? qce::skcipher_route(cfg.driver.rules, a.cipher, a.mode, m_pool.key, m_pool.len[m])
                            : qce::aead_route(cfg.driver.rules, m_aead, m_w.encrypt, m_pool.key, m_pool.len[m]));
      const qce::RouteDecision& d = m_route.back();
      if (d.route == qce::Route::einval || d.route == qce::Route::nothing)
        throw qce::QceError(fmt::format("the driver's rules refuse the workload's {}-byte requests: {} ({})",
                                        m_pool.len[m], d.why, qce::route_name(d.route)));
    }
  }
  ~QceCipherPath() {
    for (Slot& s : m_slots) m_e.host().dma_free(s.out);
  }

  void run() {
    while (m_finished < m_w.messages) {
      if (const std::uint64_t n = m_ff.at_boundary(m_submitted, m_w.messages, loop_state())) skip(n);
      for (Slot& s : m_slots) {
        if (s.fallback) fall_back(s);
        if (!s.busy && m_submitted < m_w.messages) submit(s);
      }
      // Requests the fallback ran are finished already: wait only for the engine's.
      const bool waiting =
          std::any_of(m_slots.begin(), m_slots.end(), [](const Slot& s) { return s.busy && !s.fallback; });
      if (waiting && !m_freed.wait_for(m_e.task(), m_cfg.driver.timeout))
        throw qce::QceError("a request did not complete within " + m_cfg.driver.timeout.to_string());
      if (!m_failure.empty()) throw qce::QceError("request failed: " + m_failure);
    }
  }

 private:
  struct Slot {
    qce::SkcipherRequest sk;
    qce::AeadRequest ad;
    cpu::DmaBuf out;
    sc_time t0;
    std::size_t msg = 0;
    std::uint64_t id = 0;
    bool busy = false;
    bool fallback = false;  // failed: the caller redoes it in software when it runs again
  };

  // The loop's part of the state (studies/fast_forward.h): the next message's place in the
  // pool, the requests in flight, each slot.
  std::uint64_t loop_state() const {
    model::StateHash h(sc_core::sc_time_stamp());
    h.add(std::uint64_t{m_submitted % m_pool.size()});
    h.add(m_submitted - m_finished);
    for (const Slot& s : m_slots) {
      h.add(s.busy);
      h.add(s.fallback);
      if (!s.busy) continue;
      h.add(m_submitted - s.id);
      h.add_at(s.t0);
    }
    m_freed.fingerprint(h);
    return h.value();
  }

  // A fast-forward skipped n requests (whole cycles: the pool's messages come round in the
  // same order). With real data each one's output is computed and checked: an engine request's
  // by the engine's cipher as its registers set it for the last operation (keys, mode,
  // direction, data unit) from the request's IV; a software one's, and an AEAD's, by the
  // software implementation's arithmetic.
  void skip(std::uint64_t n) {
    if (!m_pool.ref.empty()) {
      const CipherSpec* latched = m_e.soc().qce.latched_cipher();
      if (!latched && m_w.algorithm.kind == AlgKind::skcipher &&
          std::any_of(m_route.begin(), m_route.end(),
                      [](const qce::RouteDecision& d) { return d.route != qce::Route::fallback; }))
        throw qce::QceError("fast-forward: the engine ran no cipher operation to repeat");
      m_res.digest_mismatches += m_ff.check_skipped(m_submitted, n, [&](std::uint64_t from, std::uint64_t count) {
        std::unique_ptr<CipherStream> engine, soft;  // this thread's
        return count_wrong(m_pool, from, count, [&](std::size_t m, std::uint8_t* out) {
          if (m_route[m].route == qce::Route::fallback || m_w.algorithm.kind != AlgKind::skcipher) {
            m_pool.software(m, out, soft);
          } else {
            engine_cipher(*latched, m, out, engine);
          }
        });
      });
    }
    m_submitted += n;
    m_finished += n;
    for (Slot& s : m_slots)
      if (s.busy) s.id += n;
    m_tick(m_finished);
  }

  // Message m through the engine's cipher as latched, from the message's IV, on `stream`.
  void engine_cipher(const CipherSpec& latched, std::size_t m, std::uint8_t* out,
                     std::unique_ptr<CipherStream>& stream) const {
    CipherSpec spec = latched;
    spec.iv = m_pool.iv[m];
    if (m_w.algorithm.mode == CipherMode::xts) spec.data_unit_bytes = m_pool.len[m];  // ENCR_XTS_DU_SIZE = cryptlen
    if (!stream || !stream->same_keys(spec)) {
      stream = std::make_unique<CipherStream>(spec);
    } else {
      stream->restart(spec.iv);
    }
    stream->update(m_pool.in[m].ptr + m_w.assoc_bytes, out, m_pool.in_text(m));
  }

  void submit(Slot& s) {
    const std::uint64_t id = m_submitted++;
    s.msg = id % m_pool.size();
    s.id = id;
    ++m_res.issued;
    if (auto* tr = model::Tracer::active()) tr->set_request(static_cast<std::int64_t>(id));
    if (m_route[s.msg].route == qce::Route::fallback) {  // qce_*_crypt hands it to the fallback tfm
      // From when the task gets here (its charges so far may not have been synced yet).
      auto t0 = std::make_shared<sc_time>();
      m_e.task().when_done([t0](const sc_time& t) { *t0 = t; });
      const AlgName& a = m_w.algorithm;
      m_e.task().charge(m_e.kernel().costs()(a.kind == AlgKind::skcipher ? cpu::Cost::qce_skcipher_crypt
                                                                         : cpu::Cost::qce_aead_crypt));
      software_request(m_e, m_pool, s.msg, s.out.ptr + m_w.assoc_bytes, m_res);
      ++m_res.software;
      ++m_res.completed;
      ++m_finished;
      m_tick(m_finished);
      m_e.task().when_done([&lat = m_lat, id, t0](const sc_time& end) { record_latency(lat, id, *t0, end); });
      return;
    }
    s.busy = true;
    qce::QceAsyncRequest* req = nullptr;
    const cpu::DmaBuf& in = m_pool.in[s.msg];
    if (m_w.algorithm.kind == AlgKind::skcipher) {
      s.sk = qce::SkcipherRequest{};
      s.sk.alg = m_w.algorithm.cipher;
      s.sk.mode = m_w.algorithm.mode;
      s.sk.encrypt = m_w.encrypt;
      s.sk.key = m_pool.key;
      s.sk.iv = m_pool.iv[s.msg];
      s.sk.src = {{in.addr, m_pool.len[s.msg]}};
      s.sk.dst = {{s.out.addr, m_pool.len[s.msg]}};
      s.sk.cryptlen = m_pool.len[s.msg];
      req = &s.sk;
    } else {
      s.ad = qce::AeadRequest{};
      s.ad.alg = m_aead;
      s.ad.encrypt = m_w.encrypt;
      s.ad.enc_key = m_pool.key;
      s.ad.auth_key = m_pool.auth_key;
      s.ad.authsize = m_w.tag_bytes;
      s.ad.iv = m_pool.iv[s.msg];
      s.ad.assoclen = m_w.assoc_bytes;
      s.ad.cryptlen = m_pool.in_text(s.msg);
      s.ad.src = {{in.addr, m_w.assoc_bytes + m_pool.in_text(s.msg)}};
      s.ad.dst = {{s.out.addr, m_w.assoc_bytes + m_pool.out_text(s.msg)}};
      req = &s.ad;
    }
    req->complete = [this, sp = &s](cpu::Runner& k, const qce::QceStatus& st) { complete(k, *sp, st); };
    m_e.task().when_done([sp = &s](const sc_time& t) { sp->t0 = t; });
    m_e.qce().enqueue(m_e.task(), *req);
  }

  // The request's completion, in the kworker: its output checked against the reference.
  void complete(cpu::Runner& k, Slot& s, const qce::QceStatus& st) {
    if (st.failed()) {
      ++m_res.failed_requests;
      if (!m_failures_expected && m_failure.empty()) m_failure = st.why;
      if (m_res.race.empty()) m_res.race = st.why;
      if (m_cpu_fallback) {
        s.fallback = true;
        m_freed.complete(k);
        return;
      }
      ++m_res.failed;
    } else {
      ++m_res.completed;
      if (!m_pool.ref.empty() &&
          !std::equal(m_pool.ref[s.msg].begin(), m_pool.ref[s.msg].end(), s.out.ptr + m_w.assoc_bytes))
        ++m_res.digest_mismatches;
    }
    k.when_done([&lat = m_lat, id = s.id, t0 = s.t0](const sc_time& end) { record_latency(lat, id, t0, end); });
    s.busy = false;
    ++m_finished;
    m_tick(m_finished);
    m_freed.complete(k);
  }

  // A failed request the caller redoes with the software implementation (as a user of the
  // crypto API would on -EIO): its latency ends when that is done; its output is checked.
  void fall_back(Slot& s) {
    if (auto* tr = model::Tracer::active()) tr->set_request(static_cast<std::int64_t>(s.id));
    software_request(m_e, m_pool, s.msg, s.out.ptr + m_w.assoc_bytes, m_res);
    m_e.task().when_done(
        [&lat = m_lat, id = s.id, t0 = s.t0](const sc_time& end) { record_latency(lat, id, t0, end); });
    s.fallback = s.busy = false;
    ++m_res.fallback;
    ++m_finished;
    m_tick(m_finished);
  }

  Emulator& m_e;
  const EmulatorConfig& m_cfg;
  const CipherPool& m_pool;
  const Workload& m_w;
  model::LatencyStats& m_lat;
  VariantResult& m_res;
  const RequestTick& m_tick;
  FastForward& m_ff;
  std::vector<Slot> m_slots;
  cpu::Completion m_freed;
  qce::AeadAlg m_aead;
  std::vector<qce::RouteDecision> m_route;  // per pool message
  std::string m_failure;
  bool m_failures_expected, m_cpu_fallback;
  std::uint64_t m_submitted = 0, m_finished = 0;
};

}  // namespace

void run_cipher_workload(Emulator& e, const Scenario& sc, const Variant& v, const EmulatorConfig& cfg, bool check,
                         model::LatencyStats& lat, VariantResult& res, const RequestTick& tick, FastForward& ff) {
  CipherPool pool(e, sc.workload, check);
  e.task().sync();
  if (v.engine == VariantEngine::ce) {
    run_cpu(e, pool, lat, res, tick, ff);
  } else {
    QceCipherPath(e, cfg, pool, lat, res, tick, ff, sc.faults).run();
  }
  for (const cpu::DmaBuf& b : pool.in) e.host().dma_free(b);
}

}  // namespace qcesim::studies
