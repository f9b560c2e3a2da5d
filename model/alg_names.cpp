#include "model/alg_names.h"

namespace qcesim {

namespace {

std::vector<AlgName> build() {
  std::vector<AlgName> v;
  for (HashAlg h : {HashAlg::sha1, HashAlg::sha256}) {
    AlgName a;
    a.name = hash_alg_name(h);
    a.hash = h;
    v.push_back(a);
  }
  for (CipherAlg c : {CipherAlg::aes, CipherAlg::des, CipherAlg::tdes})
    for (CipherMode m : {CipherMode::ecb, CipherMode::cbc, CipherMode::ctr, CipherMode::xts}) {
      if (c != CipherAlg::aes && (m == CipherMode::ctr || m == CipherMode::xts)) continue;
      AlgName a;
      a.name = std::string(cipher_mode_name(m)) + "(" + cipher_alg_name(c) + ")";
      a.kind = AlgKind::skcipher;
      a.cipher = c;
      a.mode = m;
      v.push_back(a);
    }
  for (HashAlg h : {HashAlg::sha1, HashAlg::sha256})
    for (CipherAlg c : {CipherAlg::des, CipherAlg::tdes, CipherAlg::aes}) {
      if (h == HashAlg::sha1 && c == CipherAlg::aes) continue;  // no authenc(hmac(sha1),cbc(aes)) in mainline
      AlgName a;
      a.name = std::string("authenc(hmac(") + hash_alg_name(h) + "),cbc(" + cipher_alg_name(c) + "))";
      a.kind = AlgKind::aead;
      a.hash = h;
      a.cipher = c;
      v.push_back(a);
    }
  AlgName ccm;
  ccm.name = "ccm(aes)";
  ccm.kind = AlgKind::aead;
  ccm.ccm = true;
  v.push_back(ccm);
  return v;
}

}  // namespace

std::size_t AlgName::default_key_bytes() const {
  if (cipher == CipherAlg::des) return 8;
  if (cipher == CipherAlg::tdes) return 24;
  return kind == AlgKind::skcipher && mode == CipherMode::xts ? 32 : 16;
}

const std::vector<AlgName>& alg_names() {
  static const std::vector<AlgName> names = build();
  return names;
}

std::optional<AlgName> parse_alg_name(const std::string& name) {
  for (const AlgName& a : alg_names())
    if (a.name == name) return a;
  return std::nullopt;
}

std::string alg_name_list(AlgKind kind) {
  std::string s;
  for (const AlgName& a : alg_names())
    if (a.kind == kind) s += (s.empty() ? "" : ", ") + a.name;
  return s;
}

}  // namespace qcesim
