#include "drivers/crypto/qce/aead.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cstring>

#include "drivers/dma_mapping.h"
#include "model/aead_cipher.h"
#include "model/alg_names.h"
#include "model/byte_order.h"

namespace qcesim::qce {

namespace {

constexpr unsigned kCcmResultBytes = 64;  // ccmresult_buf: QCE_BAM_BURST_SIZE
constexpr unsigned kMaxAdataHeader = 6;   // MAX_CCM_ADATA_HEADER_LEN
constexpr unsigned kMaxKeySize = 64;      // QCE_MAX_KEY_SIZE

using Sg = std::vector<bam::ScatterEntry>;

// scatterwalk_ffwd + qce_sgtable_add's clipping: `len` bytes of `sg` from byte `skip`.
Sg sg_range(const Sg& sg, std::uint64_t skip, std::uint64_t len) {
  Sg out;
  for (const auto& e : sg) {
    if (len == 0) break;
    if (skip >= e.len) {
      skip -= e.len;
      continue;
    }
    const std::uint64_t n = std::min<std::uint64_t>(e.len - skip, len);
    out.push_back({e.addr + skip, static_cast<std::uint32_t>(n)});
    len -= n;
    skip = 0;
  }
  return out;
}

std::uint64_t sg_len(const Sg& sg) {
  std::uint64_t n = 0;
  for (const auto& e : sg) n += e.len;
  return n;
}

bool same_sg(const Sg& a, const Sg& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].addr != b[i].addr || a[i].len != b[i].len) return false;
  return true;
}

// scatterwalk_map_and_copy: the CPU copies between a buffer and bytes [off, off + n) of a list.
void sg_copy(cpu::Host& host, const Sg& sg, std::uint64_t off, std::uint8_t* buf, std::size_t n, bool to_sg) {
  for (const auto& e : sg_range(sg, off, n)) {
    std::uint8_t* p = host.dram_ptr(e.addr, e.len);
    if (to_sg)
      std::memcpy(p, buf, e.len);
    else
      std::memcpy(buf, p, e.len);
    buf += e.len;
  }
}

class AeadOps : public QceAlgoOps {
 public:
  explicit AeadOps(QceDevice& qce) : m_qce(qce) {}
  AlgType type() const override { return AlgType::aead; }
  void async_req_handle(Runner& r, QceAsyncRequest& req) override;

 private:
  void ccm_prepare(AeadRequest& req, Sg& rx, Sg& tx);
  void qce_aead_done(Runner& r, const bam::DmaResult& res);
  void free_adata();

  QceDevice& m_qce;
  cpu::DmaBuf m_ccm_result;               // ccmresult_buf (in the request context in the kernel)
  cpu::DmaBuf m_adata;                    // rctx->adata: the formatted associated data (CCM)
  AeadRegs m_regs;                        // what qce_setup_regs_aead needs of the request context
  cpu::SgShape m_tx_mapped, m_rx_mapped;  // as mapped (rx: nothing when in place)
  bool m_in_place = true;
};

// qce_aead_ccm_prepare_buf(_assoclen): CCM's tables. With associated data, its bounce buffer
// (the RFC 3610 length header, the data, zeros to a whole block) comes first on both pipes; the
// engine sends the encrypted MAC into ccmresult_buf, or zeros in place of a received one.
void AeadOps::ccm_prepare(AeadRequest& req, Sg& rx, Sg& tx) {
  const bool diff = !same_sg(req.src, req.dst);
  const std::uint32_t msg = req.encrypt ? req.cryptlen : m_regs.cryptlen + req.authsize;
  if (!m_ccm_result) m_ccm_result = m_qce.host().dma_alloc(kCcmResultBytes, 64);
  const Sg result{{m_ccm_result.addr, kCcmResultBytes}};
  if (req.assoclen == 0) {
    rx = sg_range(req.src, 0, msg);
    if (req.encrypt || diff) {
      tx = sg_range(req.dst, 0, m_regs.cryptlen);
      tx.insert(tx.end(), result.begin(), result.end());
    } else {
      tx = rx;
    }
    return;
  }
  std::uint8_t hdr[kMaxAdataHeader];
  const auto header = static_cast<std::uint32_t>(ccm_adata_header(req.assoclen, hdr));
  m_regs.assoclen = (req.assoclen + header + 15) / 16 * 16;  // rctx->assoclen: padded
  // The kernel kzallocs ALIGN(assoclen, 16) + 6 bytes but maps the padded length, 10 bytes more
  // when assoclen % 16 is 0 or 15 (slab rounding hides it [I]); here the mapped length, zeroed.
  m_adata = m_qce.host().dma_alloc(
      std::max<std::size_t>((req.assoclen + 15) / 16 * 16 + kMaxAdataHeader, m_regs.assoclen), 64);
  std::memset(m_adata.ptr, 0, m_adata.size);
  std::memcpy(m_adata.ptr, hdr, header);
  sg_copy(m_qce.host(), req.src, 0, m_adata.ptr + header, req.assoclen, false);
  rx = {{m_adata.addr, m_regs.assoclen}};
  const Sg text = sg_range(req.src, req.assoclen, msg);
  rx.insert(rx.end(), text.begin(), text.end());
  if (diff) {
    tx = {{m_adata.addr, m_regs.assoclen}};
    const Sg out = sg_range(req.dst, req.assoclen, m_regs.cryptlen);
    tx.insert(tx.end(), out.begin(), out.end());
    tx.insert(tx.end(), result.begin(), result.end());
  } else {
    tx = rx;
    if (req.encrypt) tx.insert(tx.end(), result.begin(), result.end());
  }
}

void AeadOps::free_adata() {
  if (m_adata) m_qce.host().dma_free(m_adata);
  m_adata = {};
}

// qce_aead_async_req_handle: B0 for CCM, the tables, mappings (in place both ways, else each
// its own), descriptors, the registers, GO.
void AeadOps::async_req_handle(Runner& r, QceAsyncRequest& async_req) {
  AeadRequest& req = static_cast<AeadRequest&>(async_req);
  const cpu::Costs& costs = m_qce.costs();
  r.charge(costs(cpu::Cost::qce_aead_async_req_handle));
  m_regs = AeadRegs{};
  m_regs.cryptlen = req.encrypt ? req.cryptlen : req.cryptlen - req.authsize;
  m_regs.assoclen = req.assoclen;
  m_regs.iv = req.iv;
  if (sg_len(req.src) < std::uint64_t{req.assoclen} + req.cryptlen)
    return m_qce.async_req_done(r, qce_error(-EINVAL, "source scatterlist shorter than assoclen + cryptlen"));
  if (sg_len(req.dst) < std::uint64_t{req.assoclen} + m_regs.cryptlen)
    return m_qce.async_req_done(r, qce_error(-EINVAL, "destination scatterlist shorter than assoclen + cryptlen"));
  if (req.alg.ccm) {
    // qce_aead_create_ccm_nonce: the counter bytes of the IV cleared (A0); B0 = flags, nonce, length.
    if (std::string why = ccm_iv_check(req.iv); !why.empty())
      return m_qce.async_req_done(r, qce_error(-EINVAL, why + " (-EINVAL)"));
    const unsigned l = req.iv[0] + 1u;
    for (unsigned i = 0; i < l; ++i) m_regs.iv[15 - i] = 0;
    m_regs.b0 = m_regs.iv;
    if (req.assoclen) m_regs.b0[0] |= 1u << 6;
    m_regs.b0[0] |= static_cast<std::uint8_t>(((req.authsize - 2) / 2) << 3);
    for (unsigned i = 0; i < std::min(l, 4u); ++i)
      m_regs.b0[15 - i] = static_cast<std::uint8_t>(m_regs.cryptlen >> (8 * i));
  }
  Sg rx, tx;
  if (req.alg.ccm) {
    ccm_prepare(req, rx, tx);
  } else {  // qce_aead_prepare_buf: the dst table gets the 128-byte result buffer (dma.cpp adds it)
    rx = sg_range(req.src, 0, std::uint64_t{req.assoclen} + m_regs.cryptlen);
    tx = sg_range(req.dst, 0, std::uint64_t{req.assoclen} + m_regs.cryptlen);
  }
  const bool diff = !same_sg(req.src, req.dst);
  static const Sg kNone;
  m_tx_mapped = dma::sg_shape({&tx, req.alg.ccm ? &kNone : &m_qce.result_sg()});
  m_rx_mapped = diff ? dma::sg_shape({&rx}) : cpu::SgShape{};
  m_in_place = !diff;
  dma::dma_map_sg(r, m_qce.dma(), m_tx_mapped, diff ? dma::DmaDir::from_device : dma::DmaDir::bidirectional);
  if (diff) dma::dma_map_sg(r, m_qce.dma(), m_rx_mapped, dma::DmaDir::to_device);
  auto done = [this](Runner& s, const bam::DmaResult& res) { qce_aead_done(s, res); };
  const bool add_result = !req.alg.ccm;
  m_qce.qce_start(r, req, &m_regs,
                  [&](unsigned rx_flags) { m_qce.qce_dma_prep_sgs(r, rx, rx_flags, done, tx, add_result); });
  r.sync();
  if (m_qce.config().poll) m_qce.poll_completion(r);
}

// qce_aead_done, the tx callback, in softirq context: encrypting, the tag goes after the text in
// dst; decrypting authenc, the CPU compares the tag; CCM's comparison is the engine's MAC_FAILED.
void AeadOps::qce_aead_done(Runner& r, const bam::DmaResult& res) {
  if (!m_qce.current()) return;
  AeadRequest& req = static_cast<AeadRequest&>(*m_qce.current());
  const cpu::Costs& costs = m_qce.costs();
  r.charge(costs(cpu::Cost::qce_aead_done));
  m_qce.qce_dma_terminate_all(r);
  if (!m_in_place) dma::dma_unmap_sg(r, m_qce.dma(), m_rx_mapped, dma::DmaDir::to_device);
  dma::dma_unmap_sg(r, m_qce.dma(), m_tx_mapped, m_in_place ? dma::DmaDir::bidirectional : dma::DmaDir::from_device);
  free_adata();
  if (!res.ok) return m_qce.async_req_done(r, qce_error(-EIO, res.error));
  bool mac_failed = false;
  if (QceStatus st = m_qce.qce_check_status(r, mac_failed, !req.alg.ccm); st.failed())
    return m_qce.async_req_done(r, st);
  cpu::Host& host = m_qce.host();
  const std::uint64_t tag_at = std::uint64_t{req.assoclen} + m_regs.cryptlen;
  if (req.encrypt) {
    std::vector<std::uint8_t> tag(req.authsize);
    std::memcpy(tag.data(), req.alg.ccm ? m_ccm_result.ptr : m_qce.result_buf() + DUMP_AUTH_IV, req.authsize);
    sg_copy(host, req.dst, tag_at, tag.data(), tag.size(), true);
  } else if (!req.alg.ccm) {
    std::vector<std::uint8_t> tag(req.authsize);
    sg_copy(host, req.src, tag_at, tag.data(), tag.size(), false);
    mac_failed = std::memcmp(tag.data(), m_qce.result_buf() + DUMP_AUTH_IV, req.authsize) != 0;
  }
  m_qce.async_req_done(r, mac_failed ? qce_error(-EBADMSG, kQceBadMessage) : qce_ok());
}

}  // namespace

std::unique_ptr<QceAlgoOps> make_aead_ops(QceDevice& qce) { return std::make_unique<AeadOps>(qce); }

std::string AeadAlg::name() const {
  if (rfc4309) return "rfc4309(ccm(aes))";
  if (ccm) return "ccm(aes)";
  return fmt::format("authenc(hmac({}),cbc({}))", hash_alg_name(hash), cipher_alg_name(cipher));
}

std::optional<AeadAlg> parse_aead_name(const std::string& name) {
  if (name == "rfc4309(ccm(aes))") {
    AeadAlg r;
    r.rfc4309 = true;
    return r;
  }
  const auto a = parse_alg_name(name);
  if (!a || a->kind != AlgKind::aead) return std::nullopt;
  return AeadAlg{a->ccm, a->cipher, a->hash};
}

std::string aead_key_check(const AeadAlg& alg, const std::vector<std::uint8_t>& enc_key,
                           const std::vector<std::uint8_t>& auth_key, SoftOnly* soft) {
  if (alg.rfc4309 && enc_key.size() < 3) return "an AES key of 16, 24 or 32 bytes followed by the 3-byte salt";
  const std::size_t n = alg.rfc4309 ? enc_key.size() - 3 : enc_key.size();  // qce_aead_ccm_setkey strips the salt
  if (soft) *soft = SoftOnly::none;
  auto soft_only = [soft](SoftOnly why, const char* text) {
    if (soft) *soft = why;
    return std::string(text);
  };
  if (alg.cipher == CipherAlg::aes) {
    if (n != 16 && n != 24 && n != 32)
      return alg.rfc4309 ? "an AES key of 16, 24 or 32 bytes followed by the 3-byte salt"
                         : "an AES key of 16, 24 or 32 bytes";
    if (n == 24)
      return soft_only(SoftOnly::aes192,
                       "an AES-128 or AES-256 key: the engine has no AES-192 (the kernel uses its software fallback)");
  } else if (alg.cipher == CipherAlg::des) {
    if (n != 8) return "a DES key of 8 bytes";
  } else {
    if (n != 24) return "a 3DES key of 24 bytes";
    if (tdes_has_equal_keys(enc_key))
      return soft_only(
          SoftOnly::tdes_equal_keys,
          "three different 3DES keys (two equal: the engine cannot; the kernel uses its software fallback)");
  }
  if (!alg.ccm && auth_key.size() > kMaxKeySize)
    return fmt::format("an HMAC key of at most {} bytes (the engine takes it unhashed; longer: -EINVAL)", kMaxKeySize);
  return "";
}

std::string aead_authsize_check(const AeadAlg& alg, unsigned authsize) {
  if (alg.rfc4309 && authsize != 8 && authsize != 12 && authsize != 16) return "an rfc4309 tag of 8, 12 or 16 bytes";
  if (alg.ccm && (authsize < 4 || authsize > 16 || authsize % 2)) return "a CCM tag of 4, 6, 8, 10, 12, 14 or 16 bytes";
  if (authsize > alg.maxauthsize())
    return fmt::format("a tag of at most {} bytes for {}", alg.maxauthsize(), alg.name());
  return "";
}

std::string aead_length_check(const AeadAlg& alg, bool encrypt, unsigned authsize, std::size_t len) {
  if (!encrypt && len < authsize) return fmt::format("at least the {}-byte tag to decrypt", authsize);
  const std::size_t text = encrypt ? len : len - authsize;
  if (text == 0 && !(alg.ccm && !encrypt))
    return "some text: the engine does not take empty messages (the kernel uses its software fallback)";
  const std::size_t block = cipher_block_bytes(alg.cipher);
  if (!alg.ccm && text % block) return fmt::format("a text of a multiple of {} bytes for {}", block, alg.name());
  return "";
}

std::string ccm_iv_check(const std::array<std::uint8_t, 16>& iv) {
  if (iv[0] < 1 || iv[0] > 7) return fmt::format("a CCM IV whose first byte (L - 1) is 1..7, found {}", iv[0]);
  return "";
}

std::array<std::uint8_t, 16> rfc4309_ccm_iv(const std::uint8_t* salt3, const std::uint8_t* iv8) {
  std::array<std::uint8_t, 16> iv{};
  iv[0] = 3;  // L' = L - 1: a 4-byte length field after the 11-byte nonce
  std::copy(salt3, salt3 + 3, iv.begin() + 1);
  std::copy(iv8, iv8 + 8, iv.begin() + 4);
  return iv;
}

std::string rfc4309_assoclen_check(std::size_t assoclen) {
  if (assoclen != 16 && assoclen != 20)
    return fmt::format(
        "16 or 20 bytes of associated data for rfc4309(ccm(aes)) (ESP's SPI and sequence number, "
        "then the 8-byte IV), found {}",
        assoclen);
  return "";
}

QceAead::QceAead(QceDevice& dev, Runner& task, const AeadAlg& alg)
    : m_dev(dev), m_task(task), m_alg(alg), m_authsize(static_cast<unsigned>(alg.maxauthsize())) {}

std::string QceAead::setkey(const std::vector<std::uint8_t>& enc_key, const std::vector<std::uint8_t>& auth_key) {
  m_enc_key.clear();
  SoftOnly soft;
  const std::string why = aead_key_check(m_alg, enc_key, auth_key, &soft);
  if (!why.empty() && !(soft != SoftOnly::none && m_dev.config().rules.era)) return why;  // AES-192, 3DES equal keys
  m_enc_key = enc_key;
  if (m_alg.rfc4309) {  // the salt is the nonce's first 3 bytes, not key material
    std::copy(enc_key.end() - 3, enc_key.end(), m_salt.begin());
    m_enc_key.resize(enc_key.size() - 3);
  }
  m_auth_key = m_alg.ccm ? m_enc_key : auth_key;
  return "";
}

std::string QceAead::setauthsize(unsigned authsize) {
  std::string why = aead_authsize_check(m_alg, authsize);
  if (why.empty()) m_authsize = authsize;
  return why;
}

void QceAead::crypt(bool encrypt, const std::array<std::uint8_t, 16>& iv_in, std::uint64_t src, std::uint64_t dst,
                    std::uint32_t assoclen, std::uint32_t len) {
  if (m_enc_key.empty()) throw QceError("no key set");
  // rfc4309 (qce_aead_crypt): the request's assoclen ends with the IV's copy, which CCM skips;
  // the CCM IV is built from the salt and the 8-byte IV (rctx->ccm_rfc4309_iv).
  std::array<std::uint8_t, 16> iv = iv_in;
  std::uint32_t ad = assoclen;
  if (m_alg.rfc4309) {
    if (const std::string why = rfc4309_assoclen_check(assoclen); !why.empty())
      throw QceError("expected " + why + " (-EINVAL)");
    iv = rfc4309_ccm_iv(m_salt.data(), iv_in.data());
    ad = assoclen - 8;
  }
  if (!encrypt && len < m_authsize)
    throw QceError(
        fmt::format("expected at least the {}-byte tag to decrypt, found {} bytes (-EINVAL)", m_authsize, len));
  const std::size_t text = encrypt ? len : len - m_authsize;
  const RouteDecision d = aead_route(m_dev.config().rules, m_alg, encrypt, m_enc_key, text);
  if (d.route != Route::engine) m_task.charge(m_dev.costs()(cpu::Cost::qce_aead_crypt));
  if (d.route == Route::einval) throw QceError(d.why + " (-EINVAL)");
  if (d.route == Route::fallback) return fallback(encrypt, iv, src, dst, assoclen, ad, len);
  if (const std::string why = aead_length_check(m_alg, encrypt, m_authsize, len); !why.empty())
    throw QceError(fmt::format("expected {}, found {} bytes", why, len));
  AeadRequest req;
  req.alg = m_alg;
  req.encrypt = encrypt;
  req.enc_key = m_enc_key;
  req.auth_key = m_auth_key;
  req.authsize = m_authsize;
  req.iv = iv;
  req.assoclen = ad;
  req.cryptlen = len;
  const std::uint32_t out_len = encrypt ? len + m_authsize : len - m_authsize;
  if (ad == assoclen) {
    req.src = {{src, assoclen + len}};
    req.dst = {{dst, assoclen + out_len}};
    if (src == dst)
      req.src = req.dst = {{src, assoclen + len + (encrypt ? m_authsize : 0)}};  // one buffer, room for the tag
  } else {  // rfc4309: the associated data, then (past the IV's copy) the text
    const std::uint32_t in_len = src == dst ? std::max(len, out_len) : len;
    req.src = {{src, ad}, {src + assoclen, in_len}};
    req.dst = {{dst, ad}, {dst + assoclen, src == dst ? in_len : out_len}};
  }
  m_dev.run_sync(m_task, req);
}

// The fallback AEAD tfm in the caller's context: the kernel's software implementation (for
// CCM aes-ce-ccm, for authenc the template over cbc and hmac) on this CPU.
void QceAead::fallback(bool encrypt, const std::array<std::uint8_t, 16>& iv, std::uint64_t src, std::uint64_t dst,
                       std::uint32_t assoclen, std::uint32_t ad, std::uint32_t len) {
  m_dev.count_fallback();
  const std::uint32_t text = encrypt ? len : len - m_authsize;
  m_dev.soft().aead(m_task, m_dev.costs(), m_alg.ccm, m_alg.cipher, m_alg.hash, m_enc_key.size(), encrypt, ad, text);
  cpu::Host& host = m_dev.host();
  const std::uint8_t* in = host.dram_ptr(src, std::uint64_t{assoclen} + len);
  // The authenticated data: assoclen bytes (rfc4309: all but the IV's copy at their end).
  const AeadBytes assoc(in, in + ad), body(in + assoclen, in + assoclen + len);
  if (const std::string why = m_alg.ccm ? ccm_iv_check(iv) : ""; !why.empty()) throw QceError(why + " (-EINVAL)");
  const std::optional<AeadBytes> out =
      aead_crypt(m_alg.ccm, m_alg.cipher, m_alg.hash, encrypt, m_enc_key, m_auth_key, iv, assoc, body, m_authsize);
  if (!out) throw QceBadMessage(kQceBadMessage);
  std::uint8_t* o = host.dram_ptr(dst, std::uint64_t{assoclen} + out->size());
  if (dst != src) copy_bytes(o, in, assoclen);  // the software AEADs copy the associated data
  copy_bytes(o + assoclen, out->data(), out->size());
}

}  // namespace qcesim::qce
