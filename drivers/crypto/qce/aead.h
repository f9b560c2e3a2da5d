// The qce driver's AEAD algorithms (drivers/crypto/qce/aead.c): the ops table's aead entry
// (qce_aead_async_req_handle, qce_aead_done as its DMA callback) for ccm(aes) and
// authenc(hmac(sha1|sha256),cbc(aes|des|des3_ede)), and the tfm side (setkey and setauthsize
// checks, one request per crypt call). CCM's B0 and the formatted associated data are built
// here, as qce_aead_create_ccm_nonce and qce_aead_ccm_prepare_buf_assoclen do; the engine
// checks a CCM tag itself (MAC_FAILED), an authenc tag is compared by the CPU. QceAead applies
// the kernel era's fallback rules (fallback.h: empty texts, AES-192, 3DES with equal keys, and
// since 2026 CCM partial blocks) as qce_aead_crypt does and runs the fallback on the caller's CPU.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "drivers/crypto/qce/core.h"
#include "model/block_cipher.h"
#include "model/sha_core.h"

namespace qcesim::qce {

// Which AEAD: CCM (AES) or authenc (HMAC + CBC).
struct AeadAlg {
  bool ccm = true;
  CipherAlg cipher = CipherAlg::aes;  // authenc: aes, des or des3_ede, always CBC
  HashAlg hash = HashAlg::sha256;     // authenc's HMAC
  // rfc4309(ccm(aes)) (IPsec ESP's CCM): the key ends with a 3-byte salt, the IV is 8 bytes, the
  // nonce salt || IV (L = 4), assoclen 16 or 20 with the IV's copy as its last 8 bytes, which are
  // not authenticated; tags of 8, 12 or 16 bytes.
  bool rfc4309 = false;
  std::string name() const;  // "ccm(aes)", "rfc4309(ccm(aes))", "authenc(hmac(sha256),cbc(aes))"
  std::size_t ivsize() const { return rfc4309 ? 8 : ccm ? 16 : cipher_block_bytes(cipher); }
  std::size_t maxauthsize() const { return ccm ? 16 : digest_bytes(hash); }
};
// The kernel name of an AEAD this driver registers (any era), or nullopt.
std::optional<AeadAlg> parse_aead_name(const std::string& name);

// An AEAD request with its request context (struct qce_aead_reqctx). src holds the associated
// data then the text (decrypting: ciphertext then tag); dst receives the associated data (the
// engine passes it through) and the text (encrypting: then the tag).
struct AeadRequest : QceAsyncRequest {
  AeadRequest() : QceAsyncRequest(AlgType::aead) {}
  AeadAlg alg;
  bool encrypt = true;
  std::vector<std::uint8_t> enc_key, auth_key;  // CCM: the same AES key in both
  unsigned authsize = 16;
  std::array<std::uint8_t, 16> iv{};
  std::vector<bam::ScatterEntry> src, dst;  // the same entries: in place
  std::uint32_t assoclen = 0;
  std::uint32_t cryptlen = 0;  // req->cryptlen: the plaintext, or the ciphertext with its tag
};

// What qce_setup_regs_aead takes from the request context: rctx->cryptlen (without the tag),
// rctx->assoclen (CCM: the formatted, padded length), rctx->iv (CCM: A0) and ccm_nonce (B0).
struct AeadRegs {
  std::uint32_t cryptlen = 0, assoclen = 0;
  std::array<std::uint8_t, 16> iv{}, b0{};
};

// aead_ops: the ops table's entry for AEAD requests.
std::unique_ptr<QceAlgoOps> make_aead_ops(QceDevice& qce);

// setkey's checks, "" or what the key should be. CCM: an AES key; authenc: the cipher's key and
// an HMAC key of at most 64 bytes (QCE_MAX_KEY_SIZE; the engine takes it unhashed). AES-192 and
// 3DES with two equal keys are refused (the kernel sets need_fallback: software).
std::string aead_key_check(const AeadAlg& alg, const std::vector<std::uint8_t>& enc_key,
                           const std::vector<std::uint8_t>& auth_key, SoftOnly* soft = nullptr);
// setauthsize's check: CCM 4..16 and even; authenc up to the digest size.
std::string aead_authsize_check(const AeadAlg& alg, unsigned authsize);
// qce_aead_crypt's rules for a text of `len` bytes (decrypting: with the tag): "" or what it
// should be. CBC takes whole blocks (-EINVAL); a decryption shorter than its tag is -EINVAL;
// an empty text (but for CCM decryption) goes to the software fallback.
std::string aead_length_check(const AeadAlg& alg, bool encrypt, unsigned authsize, std::size_t len);
// CCM's IV: byte 0 is L' = L - 1 with L (the length field's bytes) 2..8.
std::string ccm_iv_check(const std::array<std::uint8_t, 16>& iv);
// rfc4309's CCM IV: L' = 3, the key's 3-byte salt, the request's 8-byte IV, a zero counter.
std::array<std::uint8_t, 16> rfc4309_ccm_iv(const std::uint8_t* salt3, const std::uint8_t* iv8);
// rfc4309's assoclen rule (crypto_ipsec_check_assoclen): 16 or 20; "" or what it should be.
std::string rfc4309_assoclen_check(std::size_t assoclen);

// A tfm of one AEAD on the emulated engine, used from one task.
class QceAead {
 public:
  QceAead(QceDevice& dev, Runner& task, const AeadAlg& alg);
  // qce_aead_ccm_setkey (auth_key ignored) / qce_aead_setkey: "" or what the key should be (with
  // a kernel's rules, AES-192 and 3DES with equal keys are taken: the fallback runs them).
  std::string setkey(const std::vector<std::uint8_t>& enc_key, const std::vector<std::uint8_t>& auth_key = {});
  std::string setauthsize(unsigned authsize);
  // One request: assoclen + len bytes at src (decrypting, len includes the tag) into dst (may
  // equal src). rfc4309: iv holds the request's 8-byte IV in its first bytes. Throws
  // QceBadMessage when a tag does not match, QceError on other failures.
  void crypt(bool encrypt, const std::array<std::uint8_t, 16>& iv, std::uint64_t src, std::uint64_t dst,
             std::uint32_t assoclen, std::uint32_t len);

 private:
  // `ad`: the authenticated part of the assoclen bytes (rfc4309: assoclen - 8).
  void fallback(bool encrypt, const std::array<std::uint8_t, 16>& iv, std::uint64_t src, std::uint64_t dst,
                std::uint32_t assoclen, std::uint32_t ad, std::uint32_t len);

  QceDevice& m_dev;
  Runner& m_task;
  AeadAlg m_alg;
  std::vector<std::uint8_t> m_enc_key, m_auth_key;  // rfc4309: the AES key without its salt
  std::array<std::uint8_t, 3> m_salt{};             // rfc4309: ctx->ccm4309_salt
  unsigned m_authsize;
};

}  // namespace qcesim::qce
