#include "drivers/crypto/qce/skcipher.h"

#include <algorithm>

#include <spdlog/fmt/fmt.h>

#include <cstring>

#include "drivers/dma_mapping.h"
#include "model/alg_names.h"
#include "model/byte_order.h"

namespace qcesim::qce {

namespace {

class SkcipherOps : public QceAlgoOps {
 public:
  explicit SkcipherOps(QceDevice& qce) : m_qce(qce) {}
  AlgType type() const override { return AlgType::skcipher; }
  void async_req_handle(Runner& r, QceAsyncRequest& req) override;

 private:
  void qce_skcipher_done(Runner& r, const bam::DmaResult& res);
  QceDevice& m_qce;
};

bool in_place(const SkcipherRequest& req) {
  if (req.src.size() != req.dst.size()) return false;
  for (std::size_t i = 0; i < req.src.size(); ++i)
    if (req.src[i].addr != req.dst[i].addr || req.src[i].len != req.dst[i].len) return false;
  return true;
}

// qce_skcipher_async_req_handle: the destination table is the data and the result buffer;
// in place it is mapped both ways, else the source is mapped on its own.
void SkcipherOps::async_req_handle(Runner& r, QceAsyncRequest& async_req) {
  SkcipherRequest& req = static_cast<SkcipherRequest&>(async_req);
  const cpu::Costs& costs = m_qce.costs();
  r.charge(costs(cpu::Cost::qce_skcipher_async_req_handle));
  std::uint32_t src_total = 0, dst_total = 0;
  for (const auto& e : req.src) src_total += e.len;
  for (const auto& e : req.dst) dst_total += e.len;
  if (src_total != req.cryptlen || dst_total != req.cryptlen)
    return m_qce.async_req_done(r, qce_error(-EINVAL, "scatterlist length does not match cryptlen"));
  const bool same = in_place(req);
  dma::dma_map_sg(r, m_qce.dma(), dma::sg_shape({&req.dst, &m_qce.result_sg()}),
                  same ? dma::DmaDir::bidirectional : dma::DmaDir::from_device);
  if (!same) dma::dma_map_sg(r, m_qce.dma(), dma::sg_shape({&req.src}), dma::DmaDir::to_device);
  auto done = [this](Runner& s, const bam::DmaResult& res) { qce_skcipher_done(s, res); };
  m_qce.qce_start(r, req, nullptr,
                  [&](unsigned rx_flags) { m_qce.qce_dma_prep_sgs(r, req.src, rx_flags, done, req.dst); });
  r.sync();
  if (m_qce.config().poll) m_qce.poll_completion(r);
}

// qce_skcipher_done, the tx callback, in softirq context: the next IV from encr_cntr_iv.
void SkcipherOps::qce_skcipher_done(Runner& r, const bam::DmaResult& res) {
  if (!m_qce.current()) return;
  SkcipherRequest& req = static_cast<SkcipherRequest&>(*m_qce.current());
  const cpu::Costs& costs = m_qce.costs();
  r.charge(costs(cpu::Cost::qce_skcipher_done));
  m_qce.qce_dma_terminate_all(r);
  const bool same = in_place(req);
  if (!same) dma::dma_unmap_sg(r, m_qce.dma(), dma::sg_shape({&req.src}), dma::DmaDir::to_device);
  dma::dma_unmap_sg(r, m_qce.dma(), dma::sg_shape({&req.dst, &m_qce.result_sg()}),
                    same ? dma::DmaDir::bidirectional : dma::DmaDir::from_device);
  if (!res.ok) return m_qce.async_req_done(r, qce_error(-EIO, res.error));
  if (QceStatus st = m_qce.qce_check_status(r); st.failed()) return m_qce.async_req_done(r, st);
  std::memcpy(req.iv.data(), m_qce.result_buf() + DUMP_ENCR_CNTR_IV, skcipher_ivsize(req.alg, req.mode));
  m_qce.async_req_done(r, qce_ok());
}

}  // namespace

std::unique_ptr<QceAlgoOps> make_skcipher_ops(QceDevice& qce) { return std::make_unique<SkcipherOps>(qce); }

std::string skcipher_name(CipherAlg alg, CipherMode mode) {
  return fmt::format("{}({})", cipher_mode_name(mode), cipher_alg_name(alg));
}

bool parse_skcipher_name(const std::string& name, CipherAlg& alg, CipherMode& mode) {
  const auto a = parse_alg_name(name);
  if (!a || a->kind != AlgKind::skcipher) return false;
  alg = a->cipher;
  mode = a->mode;
  return true;
}

std::size_t skcipher_ivsize(CipherAlg alg, CipherMode mode) {
  return mode == CipherMode::ecb ? 0 : cipher_block_bytes(alg);
}

QceSkcipher::QceSkcipher(QceDevice& dev, Runner& task, CipherAlg alg, CipherMode mode)
    : m_dev(dev), m_task(task), m_alg(alg), m_mode(mode) {}

std::string skcipher_key_check(CipherAlg alg, CipherMode mode, const std::vector<std::uint8_t>& key, SoftOnly* soft) {
  const std::size_t n = key.size();
  if (soft) *soft = SoftOnly::none;
  auto soft_only = [soft](SoftOnly why, const char* text) {
    if (soft) *soft = why;
    return std::string(text);
  };
  if (alg == CipherAlg::aes) {
    const std::size_t half = mode == CipherMode::xts ? n / 2 : n;
    if (mode == CipherMode::xts && (n % 2 != 0 || (half != 16 && half != 24 && half != 32)))
      return "an XTS key of 32, 48 or 64 bytes (two AES keys)";
    if (half != 16 && half != 24 && half != 32) return "an AES key of 16, 24 or 32 bytes";
    if (half == 24)
      return soft_only(SoftOnly::aes192,
                       "an AES-128 or AES-256 key: the engine has no AES-192 (the kernel uses its software fallback)");
    if (mode == CipherMode::xts && xts_halves_equal(key))
      return soft_only(SoftOnly::xts_equal_halves, "two different XTS key halves (equal halves: -ENOKEY)");
  } else if (alg == CipherAlg::des) {
    if (n != 8) return "a DES key of 8 bytes";
  } else {
    if (n != 24) return "a 3DES key of 24 bytes";
    if (tdes_has_equal_keys(key))
      return soft_only(SoftOnly::tdes_equal_keys, "three different 3DES keys (two equal: -ENOKEY, the engine cannot)");
  }
  return "";
}

std::string weak_key_check(CipherAlg alg, CipherMode mode, const std::vector<std::uint8_t>& key, bool on_cpu) {
  if (alg == CipherAlg::des && key.size() == 8 && des_key_is_weak(key.data()))
    return "a DES key that is neither weak nor semi-weak (the tfm forbids weak keys: -EINVAL)";
  if (alg == CipherAlg::tdes && key.size() == 24 &&
      (std::equal(key.begin(), key.begin() + 8, key.begin() + 8) ||
       std::equal(key.begin() + 8, key.begin() + 16, key.begin() + 16)))
    return on_cpu ? "a 3DES key with K1 != K2 and K2 != K3 (the tfm forbids weak keys: -EINVAL, des3_ede_setkey)"
                  : "a 3DES key with K1 != K2 and K2 != K3 (the tfm forbids weak keys: -ENOKEY, des3_ede_verify_key "
                    "outside FIPS mode)";
  if (mode == CipherMode::xts && xts_halves_equal(key))
    return "two different XTS key halves (the tfm forbids weak keys: -EINVAL)";
  return "";
}

std::string skcipher_length_check(CipherAlg alg, CipherMode mode, std::size_t len) {
  const std::size_t block = cipher_block_bytes(alg);
  if ((mode == CipherMode::ecb || mode == CipherMode::cbc) && len % block != 0)
    return fmt::format("a multiple of {} bytes for {}", block, skcipher_name(alg, mode));
  return "";
}

std::string QceSkcipher::setkey(const std::vector<std::uint8_t>& key) {
  m_key.clear();
  // verify_skcipher_des(3)_key / xts_verify_key come first in the driver's setkey.
  // (xts_verify_key only since 2026; before, equal halves met the driver's own -ENOKEY below.)
  if (m_forbid_weak && (m_mode != CipherMode::xts || m_dev.config().rules.era >= 2026)) {
    if (std::string weak = weak_key_check(m_alg, m_mode, key); !weak.empty()) return weak;
  }
  SoftOnly soft;
  std::string why = skcipher_key_check(m_alg, m_mode, key, &soft);
  // With a kernel's rules, AES-192 (and, since 2026, equal XTS halves) is the fallback's to run;
  // the 2020 driver's setkey had no equal-key checks, and crypt decides (unchecked_2020_key).
  if (setkey_keeps(soft, m_dev.config().rules.era)) why.clear();
  if (why.empty()) {
    m_key = key;
    m_soft = soft;
  }
  return why;
}

void QceSkcipher::crypt(bool encrypt, std::array<std::uint8_t, 16>& iv, std::uint64_t src, std::uint64_t dst,
                        std::uint32_t len) {
  if (m_key.empty()) throw QceError("no key set");
  const RouteDecision d = skcipher_route(m_dev.config().rules, m_alg, m_mode, m_key, len);
  // qce_skcipher_crypt's own time (enqueue charges it for a request that goes to the engine).
  if (d.route != Route::engine) m_task.charge(m_dev.costs()(cpu::Cost::qce_skcipher_crypt));
  if (d.route == Route::nothing) return;
  if (d.route == Route::einval) throw QceError(d.why + " (-EINVAL)");
  if (d.route == Route::fallback) return fallback(encrypt, iv, src, dst, len);
  if (m_dev.config().rules.era == 2020)
    if (const std::string why = unchecked_2020_key(m_soft, d.route); !why.empty()) throw QceError("expected " + why);
  if (len == 0) return;  // "CE does not handle 0 length messages"
  if (const std::string why = skcipher_length_check(m_alg, m_mode, len); !why.empty())
    throw QceError(fmt::format("expected {}, found {} bytes (-EINVAL)", why, len));
  SkcipherRequest req;
  req.alg = m_alg;
  req.mode = m_mode;
  req.encrypt = encrypt;
  req.key = m_key;
  req.iv = iv;
  req.src = {{src, len}};
  req.dst = {{dst, len}};
  req.cryptlen = len;
  m_dev.run_sync(m_task, req);
  iv = req.iv;
}

// The fallback tfm (crypto_skcipher_encrypt on rctx->fallback_req) in the caller's context:
// the kernel's software implementation on this CPU, its time charged to the caller.
void QceSkcipher::fallback(bool encrypt, std::array<std::uint8_t, 16>& iv, std::uint64_t src, std::uint64_t dst,
                           std::uint32_t len) {
  m_dev.count_fallback();
  const bool xts = m_mode == CipherMode::xts;
  // The software's own length rules: ECB and CBC whole blocks, XTS at least one (-EINVAL).
  std::string why = skcipher_length_check(m_alg, m_mode, len);
  if (xts && len < 16) why = "at least 16 bytes for xts(aes)";
  if (!why.empty())
    throw QceError(fmt::format("the software fallback: expected {}, found {} bytes (-EINVAL)", why, len));
  m_dev.soft().skcipher(m_task, m_dev.costs(), m_alg, m_mode, xts ? m_key.size() / 2 : m_key.size(), encrypt, len,
                        fallback_is_sync(m_dev.config().rules));
  const CipherSpec s = kernel_cipher_spec(m_alg, m_mode, encrypt, m_key, iv.data(), iv.size());
  cpu::Host& host = m_dev.host();
  const std::uint8_t* in = host.dram_ptr(src, len);
  std::vector<std::uint8_t> out(len);
  CipherStream stream(s);
  stream.update(in, out.data(), len);
  copy_bytes(host.dram_ptr(dst, len), out.data(), len);
  // The output IV the skcipher API promises, as the software leaves it: CBC's last ciphertext
  // block, CTR's next counter (a partial last block counted, unlike the engine's CNTR_IV).
  iv = software_iv_out(stream, m_mode, len, iv);
}

}  // namespace qcesim::qce
