// The qce driver's skcipher algorithms (drivers/crypto/qce/skcipher.c): the ops table's skcipher
// entry (qce_skcipher_async_req_handle, and qce_skcipher_done as its DMA callback) and the tfm
// side (setkey's checks, one request per crypt call, the next IV copied out of the result dump).
// QceSkcipher applies the kernel era's fallback rules (fallback.h: aes_sw_max_len, AES-192, XTS
// lengths) as qce_skcipher_crypt does and runs the fallback on the caller's CPU; a request that
// reaches the ops entry goes to the engine.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "drivers/crypto/qce/core.h"
#include "model/block_cipher.h"

namespace qcesim::qce {

// An skcipher request with its request context (struct qce_cipher_reqctx).
struct SkcipherRequest : QceAsyncRequest {
  SkcipherRequest() : QceAsyncRequest(AlgType::skcipher) {}
  CipherAlg alg = CipherAlg::aes;
  CipherMode mode = CipherMode::cbc;
  bool encrypt = true;
  std::vector<std::uint8_t> key;       // as setkey took it (XTS: data key then tweak key)
  std::array<std::uint8_t, 16> iv{};   // in: the IV; out: the next IV (ivsize bytes)
  std::vector<bam::ScatterEntry> src;  // cryptlen bytes
  std::vector<bam::ScatterEntry> dst;  // cryptlen bytes; the same entries as src: in place
  std::uint32_t cryptlen = 0;
};

// skcipher_ops: the ops table's entry for skcipher requests.
std::unique_ptr<QceAlgoOps> make_skcipher_ops(QceDevice& qce);

// The kernel's name for an algorithm ("cbc(aes)", "ecb(des3_ede)", "xts(aes)"); parse returns
// false for a name the driver does not register.
std::string skcipher_name(CipherAlg alg, CipherMode mode);
bool parse_skcipher_name(const std::string& name, CipherAlg& alg, CipherMode& mode);
std::size_t skcipher_ivsize(CipherAlg alg, CipherMode mode);  // 0 for ECB
// setkey's checks: "" or what the key should be. AES-192 and equal XTS halves are refused (the
// engine cannot run them; the kernel hands them to its software fallback or says -ENOKEY), and
// 3DES with two equal keys (-ENOKEY).
// `soft` (if given) says when the refusal is only the engine's (SoftOnly in fallback.h).
std::string skcipher_key_check(CipherAlg alg, CipherMode mode, const std::vector<std::uint8_t>& key,
                               SoftOnly* soft = nullptr);
// What a tfm with CRYPTO_TFM_REQ_FORBID_WEAK_KEYS refuses before the driver's own checks: a weak
// or semi-weak DES key (verify_skcipher_des_key, -EINVAL), 3DES with K1 = K2 or K2 = K3
// (verify_skcipher_des3_key, -ENOKEY outside FIPS mode; on the CPU the generic des3_ede's setkey
// turns that -ENOKEY into -EINVAL), XTS with equal halves (xts_verify_key, -EINVAL). "" or the reason.
std::string weak_key_check(CipherAlg alg, CipherMode mode, const std::vector<std::uint8_t>& key, bool on_cpu = false);
// qce_skcipher_crypt's length rule: ECB and CBC take whole blocks (-EINVAL). "" or what the
// length should be ("a multiple of 16 bytes for cbc(aes)").
std::string skcipher_length_check(CipherAlg alg, CipherMode mode, std::size_t len);

// A tfm of one algorithm on the emulated engine, used from one task: setkey, then encrypt or
// decrypt buffers already in DRAM.
class QceSkcipher {
 public:
  QceSkcipher(QceDevice& dev, Runner& task, CipherAlg alg, CipherMode mode);
  // qce_skcipher_setkey / qce_des_setkey / qce_des3_setkey: "" or what the key should be. AES-192
  // and equal XTS halves are refused with no kernel's rules (era 0: nothing falls back); with
  // them AES-192 (and since 2026 equal halves) is taken and goes to the fallback.
  std::string setkey(const std::vector<std::uint8_t>& key);
  // crypto_skcipher_set_flags(tfm, CRYPTO_TFM_REQ_FORBID_WEAK_KEYS): setkey then refuses weak keys.
  void forbid_weak_keys(bool on) { m_forbid_weak = on; }
  // One request over len bytes at src into dst (may be equal); iv in, next iv out. Throws
  // QceError when the driver or the engine fails; len 0 does nothing, as the driver does.
  void crypt(bool encrypt, std::array<std::uint8_t, 16>& iv, std::uint64_t src, std::uint64_t dst, std::uint32_t len);

 private:
  void fallback(bool encrypt, std::array<std::uint8_t, 16>& iv, std::uint64_t src, std::uint64_t dst,
                std::uint32_t len);

  QceDevice& m_dev;
  Runner& m_task;
  CipherAlg m_alg;
  CipherMode m_mode;
  bool m_forbid_weak = false;
  std::vector<std::uint8_t> m_key;
  SoftOnly m_soft = SoftOnly::none;  // what setkey let through for the fallback (or, in 2020, unchecked)
};

}  // namespace qcesim::qce
