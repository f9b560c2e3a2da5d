#include "model/aead_cipher.h"

#include <algorithm>
#include <stdexcept>

namespace qcesim {

namespace {

// B0 and the counter block A0 of a ccm(aes) IV (RFC 3610 section 2.2, 2.3).
struct CcmBlocks {
  std::array<std::uint8_t, 16> b0{}, a0{};
};

CcmBlocks ccm_blocks(const std::array<std::uint8_t, 16>& iv, std::size_t assoc_len, std::size_t text_len,
                     unsigned tag_bytes) {
  const unsigned l = iv[0] + 1u;
  if (l < 2 || l > 8) throw std::invalid_argument("CCM IV byte 0 (L - 1) must be 1..7");
  if (tag_bytes < 4 || tag_bytes > 16 || tag_bytes % 2) throw std::invalid_argument("CCM tag of 4..16 even bytes");
  CcmBlocks b;
  b.a0 = iv;
  for (unsigned i = 0; i < l; ++i) b.a0[15 - i] = 0;
  b.b0 = b.a0;
  b.b0[0] = static_cast<std::uint8_t>((assoc_len ? 0x40 : 0) | ((tag_bytes - 2) / 2) << 3 | (l - 1));
  std::uint64_t n = text_len;
  for (unsigned i = 0; i < l; ++i, n >>= 8) b.b0[15 - i] = static_cast<std::uint8_t>(n);
  return b;
}

// The CBC-MAC over B0, the length-prefixed associated data and the payload, each padded.
std::array<std::uint8_t, 16> ccm_mac(const AeadBytes& key, const CcmBlocks& b, const AeadBytes& assoc,
                                     const AeadBytes& pt) {
  CbcMac mac(key);
  mac.update(b.b0.data(), 16);
  if (!assoc.empty()) {
    std::uint8_t hdr[6];
    mac.update(hdr, ccm_adata_header(static_cast<std::uint32_t>(assoc.size()), hdr));
    mac.update(assoc.data(), assoc.size());
    mac.pad();
  }
  mac.update(pt.data(), pt.size());
  mac.pad();
  return mac.value();
}

// CTR from A1 over the payload; S0 = E(K, A0) for the tag.
AeadBytes ccm_ctr(const AeadBytes& key, const CcmBlocks& b, const AeadBytes& in) {
  CipherSpec s;
  s.mode = CipherMode::ctr;
  s.key = key;
  s.iv = b.a0;
  s.iv[15] = 1;  // A1 (a length field of at least 2 bytes: counter 1 fits its last byte)
  AeadBytes out(in.size());
  CipherStream(s).update(in.data(), out.data(), in.size());
  return out;
}

std::array<std::uint8_t, 16> ccm_s0(const AeadBytes& key, const CcmBlocks& b) {
  std::array<std::uint8_t, 16> s0 = b.a0;
  BlockFunction(CipherAlg::aes, key, true).blocks(s0.data(), s0.data(), 1);
  return s0;
}

AeadBytes cbc(CipherAlg c, bool encrypt, const AeadBytes& key, const std::array<std::uint8_t, 16>& iv,
              const AeadBytes& in) {
  CipherSpec s;
  s.alg = c;
  s.mode = CipherMode::cbc;
  s.encrypt = encrypt;
  s.key = key;
  s.iv = iv;
  AeadBytes out(in.size());
  CipherStream(s).update(in.data(), out.data(), in.size());
  return out;
}

AeadBytes authenc_tag(HashAlg h, const AeadBytes& auth_key, const AeadBytes& assoc, const AeadBytes& ct,
                      unsigned tag_bytes) {
  AeadBytes m = assoc;
  m.insert(m.end(), ct.begin(), ct.end());
  AeadBytes tag = hmac_digest(h, auth_key, m.data(), m.size());
  if (tag_bytes > tag.size()) throw std::invalid_argument("authenc tag longer than the digest");
  tag.resize(tag_bytes);
  return tag;
}

}  // namespace

std::size_t ccm_adata_header(std::uint32_t n, std::uint8_t out[6]) {
  if (n < 0xff00) {
    out[0] = static_cast<std::uint8_t>(n >> 8);
    out[1] = static_cast<std::uint8_t>(n);
    return 2;
  }
  out[0] = 0xff;
  out[1] = 0xfe;
  for (int i = 0; i < 4; ++i) out[2 + i] = static_cast<std::uint8_t>(n >> (24 - 8 * i));
  return 6;
}

AeadBytes ccm_encrypt(const AeadBytes& key, const std::array<std::uint8_t, 16>& iv, const AeadBytes& assoc,
                      const AeadBytes& plaintext, unsigned tag_bytes) {
  const CcmBlocks b = ccm_blocks(iv, assoc.size(), plaintext.size(), tag_bytes);
  const auto t = ccm_mac(key, b, assoc, plaintext);
  const auto s0 = ccm_s0(key, b);
  AeadBytes out = ccm_ctr(key, b, plaintext);
  for (unsigned i = 0; i < tag_bytes; ++i) out.push_back(static_cast<std::uint8_t>(t[i] ^ s0[i]));
  return out;
}

std::optional<AeadBytes> ccm_decrypt(const AeadBytes& key, const std::array<std::uint8_t, 16>& iv,
                                     const AeadBytes& assoc, const AeadBytes& ct_and_tag, unsigned tag_bytes) {
  if (ct_and_tag.size() < tag_bytes) return std::nullopt;
  const AeadBytes ct(ct_and_tag.begin(), ct_and_tag.end() - tag_bytes);
  const CcmBlocks b = ccm_blocks(iv, assoc.size(), ct.size(), tag_bytes);
  AeadBytes pt = ccm_ctr(key, b, ct);
  const auto t = ccm_mac(key, b, assoc, pt);
  const auto s0 = ccm_s0(key, b);
  std::uint8_t diff = 0;
  for (unsigned i = 0; i < tag_bytes; ++i) diff |= static_cast<std::uint8_t>(t[i] ^ s0[i] ^ ct_and_tag[ct.size() + i]);
  if (diff) return std::nullopt;
  return pt;
}

AeadBytes authenc_encrypt(CipherAlg c, HashAlg h, const AeadBytes& enc_key, const AeadBytes& auth_key,
                          const std::array<std::uint8_t, 16>& iv, const AeadBytes& assoc, const AeadBytes& plaintext,
                          unsigned tag_bytes) {
  AeadBytes ct = cbc(c, true, enc_key, iv, plaintext);
  const AeadBytes tag = authenc_tag(h, auth_key, assoc, ct, tag_bytes);
  ct.insert(ct.end(), tag.begin(), tag.end());
  return ct;
}

std::optional<AeadBytes> authenc_decrypt(CipherAlg c, HashAlg h, const AeadBytes& enc_key, const AeadBytes& auth_key,
                                         const std::array<std::uint8_t, 16>& iv, const AeadBytes& assoc,
                                         const AeadBytes& ct_and_tag, unsigned tag_bytes) {
  if (ct_and_tag.size() < tag_bytes) return std::nullopt;
  const AeadBytes ct(ct_and_tag.begin(), ct_and_tag.end() - tag_bytes);
  const AeadBytes tag = authenc_tag(h, auth_key, assoc, ct, tag_bytes);
  if (!std::equal(tag.begin(), tag.end(), ct_and_tag.end() - tag_bytes)) return std::nullopt;
  return cbc(c, false, enc_key, iv, ct);
}

std::optional<AeadBytes> aead_crypt(bool ccm, CipherAlg cipher, HashAlg hash, bool encrypt, const AeadBytes& key,
                                    const AeadBytes& auth_key, const std::array<std::uint8_t, 16>& iv,
                                    const AeadBytes& assoc, const AeadBytes& text, unsigned tag_bytes) {
  if (ccm) return encrypt ? ccm_encrypt(key, iv, assoc, text, tag_bytes) : ccm_decrypt(key, iv, assoc, text, tag_bytes);
  return encrypt ? authenc_encrypt(cipher, hash, key, auth_key, iv, assoc, text, tag_bytes)
                 : authenc_decrypt(cipher, hash, key, auth_key, iv, assoc, text, tag_bytes);
}

}  // namespace qcesim
