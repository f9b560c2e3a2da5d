#include "studies/workloads.h"

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

class CipherWorkload : public RequestWorkload {
 public:
  CipherWorkload(Emulator& e, const Workload& w, const EmulatorConfig& cfg, bool engine, bool check)
      : m_e(e),
        m_w(w),
        m_pool(e, w, check),
        m_out(w.message_bytes + m_pool.tag),
        m_sync_fallback(qce::fallback_is_sync(cfg.driver.rules)) {
    if (!engine) return;
    m_slots.resize(w.queue_depth);
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
  ~CipherWorkload() override {
    for (Slot& s : m_slots) m_e.host().dma_free(s.out);
    for (const cpu::DmaBuf& b : m_pool.in) m_e.host().dma_free(b);
  }

  std::size_t pool_size() const override { return m_pool.size(); }
  bool real_data() const override { return !m_pool.ref.empty(); }
  std::uint32_t message_bytes(std::size_t m) const override { return m_pool.len[m]; }

  // The software implementation in the caller's context: its CPU time (the kernel's choice on
  // this core) and, with real data, its output checked.
  std::uint64_t software(std::uint64_t first, unsigned /*n: one*/) override {
    const std::size_t m = first % m_pool.size();
    const AlgName& a = m_w.algorithm;
    const cpu::SoftCrypto& soft = m_e.qce().soft();
    const std::size_t key_bytes =
        a.mode == CipherMode::xts && a.kind == AlgKind::skcipher ? m_w.key_bytes / 2 : m_w.key_bytes;
    // The driver's fallback tfm may be synchronous (qce::fallback_is_sync); the CPU path's caller
    // takes whichever the kernel prefers.
    const bool sync_only = m_sync_fallback && !m_route.empty() && m_route[m].route == qce::Route::fallback;
    if (a.kind == AlgKind::skcipher)
      soft.skcipher(m_e.task(), m_e.kernel().costs(), a.cipher, a.mode, key_bytes, m_w.encrypt, m_pool.len[m],
                    sync_only);
    else
      soft.aead(m_e.task(), m_e.kernel().costs(), a.ccm, a.cipher, a.hash, key_bytes, m_w.encrypt, m_w.assoc_bytes,
                m_pool.len[m]);
    if (m_pool.ref.empty()) return 0;
    m_pool.software(m, m_out.data());
    return !std::equal(m_pool.ref[m].begin(), m_pool.ref[m].end(), m_out.data());
  }

  std::optional<cpu::Cost> driver_fallback(std::size_t m) const override {
    if (m_route[m].route != qce::Route::fallback) return std::nullopt;
    return m_w.algorithm.kind == AlgKind::skcipher ? cpu::Cost::qce_skcipher_crypt : cpu::Cost::qce_aead_crypt;
  }

  qce::QceAsyncRequest& engine_request(std::size_t slot, std::size_t m, unsigned /*step*/) override {
    Slot& s = m_slots[slot];
    if (m_w.algorithm.kind == AlgKind::skcipher) {
      s.sk = qce::SkcipherRequest{};
      s.sk.alg = m_w.algorithm.cipher;
      s.sk.mode = m_w.algorithm.mode;
      s.sk.encrypt = m_w.encrypt;
      s.sk.key = m_pool.key;
      s.sk.iv = m_pool.iv[m];
      s.sk.src = entries(place(s, m), m_pool.len[m]);
      s.sk.dst = entries(s.out.addr, m_pool.len[m]);
      s.sk.cryptlen = m_pool.len[m];
      return s.sk;
    }
    s.ad = qce::AeadRequest{};
    s.ad.alg = m_aead;
    s.ad.encrypt = m_w.encrypt;
    s.ad.enc_key = m_pool.key;
    s.ad.auth_key = m_pool.auth_key;
    s.ad.authsize = m_w.tag_bytes;
    s.ad.iv = m_pool.iv[m];
    s.ad.assoclen = m_w.assoc_bytes;
    s.ad.cryptlen = m_pool.in_text(m);
    s.ad.src = {{place(s, m), m_w.assoc_bytes + m_pool.in_text(m)}};
    s.ad.dst = {{s.out.addr, m_w.assoc_bytes + m_pool.out_text(m)}};
    return s.ad;
  }
  bool engine_output_wrong(std::size_t slot, std::size_t m) const override {
    return !m_pool.ref.empty() &&
           !std::equal(m_pool.ref[m].begin(), m_pool.ref[m].end(), m_slots[slot].out.ptr + m_w.assoc_bytes);
  }

  // With real data each skipped request's output is computed and checked: on the engine path an
  // engine request's by the engine's cipher as its registers set it for the last operation (keys,
  // mode, direction, data unit) from the request's IV; a software one's, and an AEAD's, by the
  // software implementation's arithmetic.
  FastForward::CheckOutputs skipped_checker(bool engine) const override {
    if (m_pool.ref.empty()) return {};
    const CipherSpec* latched = engine ? m_e.soc().qce.latched_cipher() : nullptr;
    const bool engine_ciphers = engine && m_w.algorithm.kind == AlgKind::skcipher &&
                                std::any_of(m_route.begin(), m_route.end(), [](const qce::RouteDecision& d) {
                                  return d.route != qce::Route::fallback;
                                });
    if (engine_ciphers && !latched) throw qce::QceError("fast-forward: the engine ran no cipher operation to repeat");
    return [this, latched, engine_ciphers](std::uint64_t from, std::uint64_t count) {
      std::unique_ptr<CipherStream> hw, soft;  // this thread's
      return count_wrong(m_pool, from, count, [&](std::size_t m, std::uint8_t* out) {
        if (engine_ciphers && m_route[m].route != qce::Route::fallback) {
          engine_cipher(*latched, m, out, hw);
        } else {
          m_pool.software(m, out, soft);
        }
      });
    };
  }

 private:
  struct Slot {
    qce::SkcipherRequest sk;
    qce::AeadRequest ad;
    cpu::DmaBuf out;
  };

  // A buffer's scatterlist as the driver maps it (workload.scatterlist): one entry, or one per 4 KiB
  // page when the pages are separate page frames and no IOMMU merges them; bam_prep_slave_sg makes
  // a descriptor of each. Behind a translating IOMMU, iommu_dma_map_sg maps whole pages to one
  // contiguous IOVA range and merges them into one segment [I: dma_get_max_seg_size permitting].
  std::vector<bam::ScatterEntry> entries(std::uint64_t addr, std::uint32_t len) const {
    if (!m_w.sg_per_page || m_e.kernel().costs().iommu.translated()) return {{addr, len}};
    std::vector<bam::ScatterEntry> sg;
    for (std::uint32_t off = 0; off < len; off += 4096)
      sg.push_back({addr + off, std::min<std::uint32_t>(4096, len - off)});
    return sg;
  }

  // Where message m's input is for the slot's request: the pool's buffer, or (workload.in_place)
  // the slot's output buffer with the input put there first, as the caller's text would be (not
  // timed: the caller's buffer holds it already), so the request's source is its destination.
  // Without real data the pool holds none, so there is nothing to put there.
  std::uint64_t place(Slot& s, std::size_t m) const {
    const cpu::DmaBuf& in = m_pool.in[m];
    if (!m_w.in_place) return in.addr;
    if (!m_pool.ref.empty()) copy_bytes(s.out.ptr, in.ptr, m_w.assoc_bytes + m_pool.in_text(m));
    return s.out.addr;
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

  Emulator& m_e;
  const Workload& m_w;
  CipherPool m_pool;
  Bytes m_out;                // the software implementation's output, checked
  std::vector<Slot> m_slots;  // the engine path's, per slot
  qce::AeadAlg m_aead;
  std::vector<qce::RouteDecision> m_route;  // the engine path's, per pool message
  bool m_sync_fallback;                     // qce::fallback_is_sync
};

}  // namespace

std::unique_ptr<RequestWorkload> make_cipher_workload(Emulator& e, const Workload& w, const EmulatorConfig& cfg,
                                                      bool engine, bool check) {
  return std::make_unique<CipherWorkload>(e, w, cfg, engine, check);
}

}  // namespace qcesim::studies
