// The qce driver's ahash algorithms (drivers/crypto/qce/sha.c): the ops table's ahash entry
// (qce_ahash_async_req_handle, and qce_ahash_done as its DMA callback), and init/update/final/
// digest with the request context that carries the partial digest, byte count and held-back
// bytes between engine requests, so one message can span any number of requests.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "drivers/crypto/qce/core.h"
#include "model/sha_core.h"

namespace qcesim::qce {

// What carries over between requests of one message: rctx->digest and rctx->byte_count.
struct ShaCarry {
  std::array<std::uint32_t, 8> iv{};
  std::uint64_t byte_count = 0;
};

// An ahash request with its request context (struct qce_sha_reqctx).
struct ShaRequest : QceAsyncRequest {
  ShaRequest() : QceAsyncRequest(AlgType::ahash) {}
  HashAlg alg = HashAlg::sha256;
  bool hmac = false;
  std::array<std::uint8_t, kShaBlockBytes> k0{};  // HMAC key, zero-padded
  bool first = true, last = true;
  std::vector<bam::ScatterEntry> src;  // exactly nbytes in total
  std::uint32_t nbytes = 0;
  ShaCarry carry;                    // in: state before; out: state after
  std::vector<std::uint8_t> digest;  // out, when last
};

// qce_ahash_update's hash_later: of `total` bytes to hash, those an update keeps back for a later
// request. All of them up to a block; else those after the last whole block, and a whole block
// when there are none (`hold_last_block`): the final must carry data because the BAM does no
// zero-length transfers.
inline std::uint32_t ahash_hash_later(std::uint64_t total, bool hold_last_block = true) {
  if (total <= kShaBlockBytes) return static_cast<std::uint32_t>(total);
  const auto tail = static_cast<std::uint32_t>(total % kShaBlockBytes);
  return tail || !hold_last_block ? tail : static_cast<std::uint32_t>(kShaBlockBytes);
}
// The driver eras' sha.c differences. Before Thara Gopinath's "Hold back a block of data to be
// transferred as part of final" (v5.13, 2021) an update sent every whole block, so a message that
// ends on a block left the final nothing, and before Sivaprakash Murugesan's "support zero length
// test vectors" (v5.9) there was no hash_zero: qce_ahash_final with rctx->buflen 0 returned 0
// without writing the result. The 2020 era (v5.6/v5.7) has neither.
inline bool ahash_holds_last_block(int era) { return era != 2020; }
inline bool ahash_has_hash_zero(int era) { return era != 2020; }

// qce_ahash_export/import's state (statesize bytes). From Thara Gopinath's "Restore/save ahash
// state with custom struct in export/import" (v5.13, the 2021 era on) a struct
// qce_sha_saved_state of 128 bytes on arm64: the pending bytes (64), the partial digest as
// rctx->digest holds it (32), byte_count (two __be32), pending_buflen, flags (the algorithm's
// QCE_HASH_* bit), count (u64) and first_blk, restored as they were. Before, the generic
// struct sha1_state / sha256_state (96 / 104 bytes: state words, count, a whole block), import
// rebuilding buflen, byte_count and first_blk from count alone (v5.9-v5.12: not modelled); and
// until v5.9 ("re-initialize context on import") import read rctx->flags from the request it was
// restoring into, which the self-tests poison first: the 2020 driver's import is refused here.
struct AhashSavedStateLayout {
  static constexpr std::size_t pending_buf = 0, partial_digest = 64, byte_count = 96, pending_buflen = 104, flags = 108,
                               count = 112, first_blk = 120, size = 128;
};
// The driver's alg_flags for a hash (drivers/crypto/qce/common.h).
constexpr std::uint32_t kQceHashSha1 = 1u << 3, kQceHashSha256 = 1u << 4, kQceHashSha1Hmac = 1u << 5,
                        kQceHashSha256Hmac = 1u << 6;
std::size_t ahash_statesize(HashAlg alg, int era);

// ahash_ops: the ops table's entry for ahash requests.
std::unique_ptr<QceAlgoOps> make_ahash_ops(QceDevice& qce);

class QceAhash {
 public:
  // hmac_key set: "hmac(sha*)-qce"; a key longer than a block is hashed on the CPU first,
  // as qce_ahash_hmac_setkey does.
  // `task` is the calling thread's context: requests are submitted from it and it sleeps on them.
  QceAhash(QceDevice& dev, Runner& task, HashAlg alg, std::optional<std::vector<std::uint8_t>> hmac_key = std::nullopt);
  ~QceAhash();
  QceAhash(const QceAhash&) = delete;
  QceAhash& operator=(const QceAhash&) = delete;

  void init();
  // The data is already in DRAM (bus address, length), as a mapped scatterlist would be.
  void update(std::uint64_t addr, std::uint32_t len);
  std::vector<std::uint8_t> final();
  // One request with FIRST and LAST over the whole message (qce_ahash_digest).
  std::vector<std::uint8_t> digest(std::uint64_t addr, std::uint32_t len);

  // qce_ahash_export / qce_ahash_import (the layouts above): the request's state between two
  // calls, as a caller that moves a hash to another request takes it (the self-tests' import/
  // export configuration, AF_ALG's accept()). import_state throws QceError for a state the model
  // refuses (the driver checks none of this): the wrong size, another algorithm's flags, a
  // pending length past the 64-byte buffer (the driver's memcpy would overrun it), none pending
  // after the first block (its final would return hash_zero), or any state in the 2020 era.
  std::size_t statesize() const;
  std::vector<std::uint8_t> export_state() const;
  void import_state(const std::vector<std::uint8_t>& state);

  std::uint64_t requests() const { return m_requests; }

 private:
  ShaRequest make_request(bool last) const;
  void run(ShaRequest& req);

  QceDevice& m_dev;
  Runner& m_task;
  HashAlg m_alg;
  bool m_hmac;
  std::array<std::uint8_t, kShaBlockBytes> m_k0{};
  cpu::DmaBuf m_buf;  // rctx->buf: bytes held back for a later request (DMA-able)
  std::uint32_t m_buflen = 0;
  bool m_first = true;
  std::uint64_t m_count = 0;  // rctx->count: the bytes update() has been given since init()
  ShaCarry m_carry;
  std::uint64_t m_requests = 0;
};

}  // namespace qcesim::qce
