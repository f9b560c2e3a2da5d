#include "drivers/crypto/qce/sha.h"

#include <cstring>

#include "drivers/dma_mapping.h"
#include "model/byte_order.h"

namespace qcesim::qce {

namespace {

class AhashOps : public QceAlgoOps {
 public:
  explicit AhashOps(QceDevice& qce) : m_qce(qce) {}
  AlgType type() const override { return AlgType::ahash; }
  void async_req_handle(Runner& r, QceAsyncRequest& req) override;

 private:
  void qce_ahash_done(Runner& r, const bam::DmaResult& res);
  QceDevice& m_qce;
};

void AhashOps::async_req_handle(Runner& r, QceAsyncRequest& async_req) {
  ShaRequest& req = static_cast<ShaRequest&>(async_req);
  const cpu::Costs& costs = m_qce.costs();
  r.charge(costs(cpu::Cost::qce_ahash_async_req_handle));
  std::uint32_t sg_total = 0;
  for (const auto& e : req.src) sg_total += e.len;
  if (sg_total != req.nbytes)
    return m_qce.async_req_done(r, qce_error(-EINVAL, "scatterlist length does not match nbytes"));
  if (!req.last && req.nbytes % kShaBlockBytes != 0)
    return m_qce.async_req_done(r, qce_error(-EINVAL, "non-final hash chunk not a multiple of 64"));

  // dma_map_sg of the source and of the result buffer.
  dma::dma_map_sg(r, m_qce.dma(), dma::sg_shape({&req.src}), dma::DmaDir::to_device);
  dma::dma_map_sg(r, m_qce.dma(), dma::sg_shape({&m_qce.result_sg()}), dma::DmaDir::from_device);
  static const std::vector<bam::ScatterEntry> kNoData;  // the BAM does no zero-length transfers
  const std::vector<bam::ScatterEntry>& src = req.nbytes ? req.src : kNoData;
  auto done = [this](Runner& s, const bam::DmaResult& res) { qce_ahash_done(s, res); };
  m_qce.qce_start(r, req, nullptr, [&](unsigned rx_flags) { m_qce.qce_dma_prep_sgs(r, src, rx_flags, done); });
  r.sync();
  if (m_qce.config().poll) m_qce.poll_completion(r);
}

// qce_ahash_done, the tx callback, in softirq context.
void AhashOps::qce_ahash_done(Runner& r, const bam::DmaResult& res) {
  if (!m_qce.current()) return;
  ShaRequest& req = static_cast<ShaRequest&>(*m_qce.current());
  const cpu::Costs& costs = m_qce.costs();
  r.charge(costs(cpu::Cost::qce_ahash_done));
  m_qce.qce_dma_terminate_all(r);
  dma::dma_unmap_sg(r, m_qce.dma(), dma::sg_shape({&req.src}), dma::DmaDir::to_device);
  dma::dma_unmap_sg(r, m_qce.dma(), dma::sg_shape({&m_qce.result_sg()}), dma::DmaDir::from_device);
  if (!res.ok) return m_qce.async_req_done(r, qce_error(-EIO, res.error));
  if (QceStatus st = m_qce.qce_check_status(r); st.failed()) return m_qce.async_req_done(r, st);

  const std::uint8_t* dump = m_qce.result_buf();
  for (unsigned i = 0; i < 8; ++i) req.carry.iv[i] = load_be32(dump + DUMP_AUTH_IV + 4 * i);
  req.carry.byte_count = load_le(dump + DUMP_AUTH_BYTECNT, 8);  // AUTH_BYTECNT0 (low), then 1
  if (req.last) req.digest.assign(dump + DUMP_AUTH_IV, dump + DUMP_AUTH_IV + digest_bytes(req.alg));
  m_qce.async_req_done(r, qce_ok());
}

}  // namespace

std::unique_ptr<QceAlgoOps> make_ahash_ops(QceDevice& qce) { return std::make_unique<AhashOps>(qce); }

QceAhash::QceAhash(QceDevice& dev, Runner& task, HashAlg alg, std::optional<std::vector<std::uint8_t>> hmac_key)
    : m_dev(dev), m_task(task), m_alg(alg), m_hmac(hmac_key.has_value()) {
  if (m_hmac) m_k0 = hmac_block_key(alg, *hmac_key);
  m_buf = m_dev.host().dma_alloc(2 * kShaBlockBytes, 64);
  init();
}

QceAhash::~QceAhash() { m_dev.host().dma_free(m_buf); }

void QceAhash::init() {
  const ShaState st = sha_initial_state(m_alg);
  m_carry.iv = st.h;
  m_carry.byte_count = 0;
  m_buflen = 0;
  m_first = true;
  m_count = 0;
}

ShaRequest QceAhash::make_request(bool last) const {
  ShaRequest req;
  req.alg = m_alg;
  req.hmac = m_hmac;
  req.k0 = m_k0;
  req.first = m_first;
  req.last = last;
  req.opens_message = m_first;  // the caller's share once per message
  req.carry = m_carry;
  return req;
}

void QceAhash::run(ShaRequest& req) {
  m_dev.run_sha(m_task, req);
  ++m_requests;
  m_carry = req.carry;
  m_first = false;
}

void QceAhash::update(std::uint64_t addr, std::uint32_t len) {
  const std::uint8_t* src = m_dev.host().dram_ptr(addr, len ? len : 1);
  m_count += len;
  const std::uint64_t total = std::uint64_t{m_buflen} + len;
  if (total <= kShaBlockBytes) {
    m_task.charge(m_dev.costs()(cpu::Cost::qce_ahash_update));  // buffered: no request
    std::memcpy(m_buf.ptr + m_buflen, src, len);
    m_buflen = static_cast<std::uint32_t>(total);
    return;
  }
  const std::uint32_t hash_later = ahash_hash_later(total, ahash_holds_last_block(m_dev.config().rules.era));
  const std::uint32_t nbytes = static_cast<std::uint32_t>(total - hash_later);

  ShaRequest req = make_request(false);
  req.calls = {cpu::Cost::qce_ahash_update};
  // Held-back bytes from before go first (rctx->sg chained in front of the source).
  if (m_buflen) req.src.push_back({m_buf.addr, m_buflen});
  if (nbytes > m_buflen) req.src.push_back({addr, nbytes - m_buflen});
  req.nbytes = nbytes;
  run(req);
  // The new tail moves into the context buffer for the next request.
  std::memcpy(m_buf.ptr, src + (len - hash_later), hash_later);
  m_buflen = hash_later;
}

std::vector<std::uint8_t> QceAhash::final() {
  const int era = m_dev.config().rules.era;
  if (m_buflen == 0 && !ahash_has_hash_zero(era))
    throw QceError(fmt::format(
        "{}: the {} driver's qce_ahash_final returns 0 without writing the result (rctx->buflen is 0, and there is "
        "no hash_zero before v5.9 nor a held-back last block before v5.13)",
        m_first ? "an empty message" : "a message that ends on a whole block", era));
  if (m_first && m_buflen == 0) {
    if (!m_hmac) return sha_digest(m_alg, nullptr, 0);  // hash_zero
    // hash_zero is NULL for an HMAC: qce_ahash_final returns 0 and the caller's result is what
    // its buffer held (one of the self-test failures the 2026 series fixes). Era 0 and 2026: the
    // engine's no-data operation gives the right value (how 2026 gets it is not modelled [I]).
    if (era && era < 2026)
      throw QceError(
          fmt::format("an empty message's HMAC: the {} driver's qce_ahash_final returns 0 without writing "
                      "the result (hash_zero is NULL for an HMAC; the 2026 self-test fixes address it)",
                      era));
  }
  ShaRequest req = make_request(true);
  req.calls = {cpu::Cost::qce_ahash_final};
  if (m_buflen) req.src.push_back({m_buf.addr, m_buflen});
  req.nbytes = m_buflen;
  run(req);
  m_buflen = 0;
  return req.digest;
}

std::vector<std::uint8_t> QceAhash::digest(std::uint64_t addr, std::uint32_t len) {
  init();
  if (len == 0) return final();
  ShaRequest req = make_request(true);
  req.src.push_back({addr, len});
  req.nbytes = len;
  run(req);
  return req.digest;
}

std::size_t ahash_statesize(HashAlg alg, int era) {
  if (era != 2020) return AhashSavedStateLayout::size;
  return alg == HashAlg::sha1 ? 96 : 104;  // sizeof(struct sha1_state) / sizeof(struct sha256_state)
}

std::size_t QceAhash::statesize() const { return ahash_statesize(m_alg, m_dev.config().rules.era); }

namespace {

std::uint32_t hash_flags(HashAlg alg, bool hmac) {
  if (alg == HashAlg::sha1) return hmac ? kQceHashSha1Hmac : kQceHashSha1;
  return hmac ? kQceHashSha256Hmac : kQceHashSha256;
}

}  // namespace

std::vector<std::uint8_t> QceAhash::export_state() const {
  using L = AhashSavedStateLayout;
  const int era = m_dev.config().rules.era;
  std::vector<std::uint8_t> s(statesize(), 0);
  if (era == 2020) {
    // struct sha*_state: the state words, count, rctx->buf's whole block. The words went through
    // qce_cpu_to_be32p_array from rctx->digest: the engine's big-endian dump after a request
    // (so the words themselves), byte-swapped before the first (init's little-endian u32 array).
    const std::size_t words = state_words(m_alg), count_at = m_alg == HashAlg::sha1 ? 24 : 32;
    for (std::size_t i = 0; i < words; ++i) {
      if (m_first) {
        store_be32(s.data() + 4 * i, m_carry.iv[i]);
      } else {
        store_le(s.data() + 4 * i, m_carry.iv[i], 4);
      }
    }
    store_le(s.data() + count_at, m_count, 8);
    std::memcpy(s.data() + count_at + 8, m_buf.ptr, kShaBlockBytes);
    return s;
  }
  std::memcpy(s.data() + L::pending_buf, m_buf.ptr, m_buflen);
  // rctx->digest: the engine's dump of AUTH_IV (big-endian words) after a request; the standard
  // IV as qce_ahash_init copies its u32 array (little-endian words) before the first.
  for (std::size_t i = 0; i < 8; ++i) {
    std::uint8_t* w = s.data() + L::partial_digest + 4 * i;
    if (m_first) {
      store_le(w, m_carry.iv[i], 4);
    } else {
      store_be32(w, m_carry.iv[i]);
    }
  }
  store_be32(s.data() + L::byte_count, static_cast<std::uint32_t>(m_carry.byte_count));
  store_be32(s.data() + L::byte_count + 4, static_cast<std::uint32_t>(m_carry.byte_count >> 32));
  store_le(s.data() + L::pending_buflen, m_buflen, 4);
  store_le(s.data() + L::flags, hash_flags(m_alg, m_hmac), 4);
  store_le(s.data() + L::count, m_count, 8);
  s[L::first_blk] = m_first ? 1 : 0;
  return s;
}

void QceAhash::import_state(const std::vector<std::uint8_t>& s) {
  using L = AhashSavedStateLayout;
  const int era = m_dev.config().rules.era;
  if (era == 2020)
    throw QceError(
        "the 2020 driver's qce_ahash_import (v5.8 and before, 4.19 among them) reads rctx->flags from the request "
        "it restores into, which nothing initialised (the self-tests poison it; the driver hung): Sivaprakash "
        "Murugesan's \"re-initialize context on import\" (v5.9) fixed it; v5.9-v5.12's import, which rebuilt the "
        "state from count, is not modelled");
  if (s.size() != statesize())
    throw QceError(fmt::format("an exported state of {} bytes, not the driver's statesize {}", s.size(), statesize()));
  const std::uint64_t buflen = load_le(s.data() + L::pending_buflen, 4), flags = load_le(s.data() + L::flags, 4);
  if (flags != hash_flags(m_alg, m_hmac))
    throw QceError(
        fmt::format("an exported state with flags {:#x}, another algorithm's than this one's {:#x} (the "
                    "driver would take the state's: not modelled)",
                    flags, hash_flags(m_alg, m_hmac)));
  if (buflen > kShaBlockBytes)
    throw QceError(
        fmt::format("an exported state with pending_buflen {}: qce_ahash_import copies that many bytes "
                    "into the 64-byte rctx->buf unchecked",
                    buflen));
  // The driver's own update always holds a byte back once a block has gone; a state without
  // one would make qce_ahash_final return hash_zero, the empty message's digest.
  if (buflen == 0 && s[L::first_blk] == 0)
    throw QceError(
        "an exported state with pending_buflen 0 after the first block: qce_ahash_final would return "
        "the empty message's digest (hash_zero), which no update of this driver leaves");
  // memset(rctx, 0) and every field restored. The HMAC key is the transform's (m_k0), as
  // qce_ahash_async_req_handle sets rctx->authkey from the transform on every request.
  m_count = load_le(s.data() + L::count, 8);
  m_buflen = static_cast<std::uint32_t>(buflen);
  m_first = s[L::first_blk] != 0;
  std::memcpy(m_buf.ptr, s.data() + L::pending_buf, m_buflen);
  for (std::size_t i = 0; i < 8; ++i) {
    const std::uint8_t* w = s.data() + L::partial_digest + 4 * i;
    m_carry.iv[i] = m_first ? static_cast<std::uint32_t>(load_le(w, 4)) : load_be32(w);
  }
  m_carry.byte_count = std::uint64_t{load_be32(s.data() + L::byte_count)} |
                       (std::uint64_t{load_be32(s.data() + L::byte_count + 4)} << 32);
}

}  // namespace qcesim::qce
