#include "drivers/crypto/qce/sha.h"

#include <cstring>

namespace qcesim::qce {

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
}

ShaRequest QceAhash::make_request(bool last) const {
  ShaRequest req;
  req.alg = m_alg;
  req.hmac = m_hmac;
  req.k0 = m_k0;
  req.first = m_first;
  req.last = last;
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
  const std::uint64_t total = std::uint64_t{m_buflen} + len;
  if (total <= kShaBlockBytes) {
    std::memcpy(m_buf.ptr + m_buflen, src, len);
    m_buflen = static_cast<std::uint32_t>(total);
    return;
  }
  // Keep back the tail, a whole block when aligned: the last request must carry data
  // because the BAM does no zero-length transfers.
  std::uint32_t hash_later = static_cast<std::uint32_t>(total % kShaBlockBytes);
  if (hash_later == 0) hash_later = kShaBlockBytes;
  const std::uint32_t nbytes = static_cast<std::uint32_t>(total - hash_later);

  ShaRequest req = make_request(false);
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
  if (m_first && m_buflen == 0 && !m_hmac) return sha_digest(m_alg, nullptr, 0);  // hash_zero
  ShaRequest req = make_request(true);
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

}  // namespace qcesim::qce
