#include "drivers/crypto/qce/fallback.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>

#include "drivers/crypto/qce/aead.h"
#include "model/config_error.h"

namespace qcesim::qce {

namespace {
constexpr std::uint32_t kSectorSize = 512;  // QCE_SECTOR_SIZE

RouteDecision go(Route r, std::string why) { return RouteDecision{r, std::move(why)}; }

}  // namespace

std::string check_rules(const QceRules& r) {
  if (r.era != 0 && r.era != 2020 && r.era != 2021 && r.era != 2024 && r.era != 2026)
    return "a kernel era of 0 (none), 2020, 2021, 2024 or 2026";
  return "";
}

QceRules qce_rules(const model::Profile& p) {
  QceRules r;
  r.era = static_cast<int>(p.num("driver.era"));
  r.aes_sw_max_len = static_cast<std::uint32_t>(p.num("driver.aes_sw_max_len"));
  if (std::string why = check_rules(r); !why.empty()) {
    const model::Param& e = p.param("driver.era");
    throw model::ConfigError(e.origin_file, e.origin_path, why, std::to_string(r.era));
  }
  return r;
}

const char* route_name(Route r) {
  switch (r) {
    case Route::engine:
      return "engine";
    case Route::fallback:
      return "fallback";
    case Route::nothing:
      return "nothing";
    case Route::einval:
      return "-EINVAL";
  }
  return "?";
}

bool setkey_keeps(SoftOnly soft, int era) {
  switch (soft) {
    case SoftOnly::aes192:
      return era != 0;
    case SoftOnly::xts_equal_halves:
      return era >= 2026 || era == 2020;
    case SoftOnly::tdes_equal_keys:
      return era == 2020;
    case SoftOnly::none:
      break;
  }
  return false;
}

std::string unchecked_2020_key(SoftOnly soft, Route route) {
  if (route == Route::fallback || route == Route::nothing) return "";
  if (soft == SoftOnly::xts_equal_halves)
    return "a request the 2020 driver's fallback runs (it checked no equal XTS halves and sends this length to the "
           "engine, which cannot run them: what it outputs is not modelled)";
  if (soft == SoftOnly::tdes_equal_keys)
    return "three different 3DES keys for the engine (the 2020 driver checked none and sends DES to the engine, which "
           "cannot run two equal keys: what it outputs is not modelled)";
  return "";
}

RouteDecision skcipher_route(const QceRules& r, CipherAlg alg, CipherMode mode, const std::vector<std::uint8_t>& key,
                             std::size_t len) {
  if (r.era == 0) return {};
  const bool aes = alg == CipherAlg::aes, xts = mode == CipherMode::xts;
  if (len == 0) {
    if (r.era >= 2026 && xts) return go(Route::einval, "XTS of 0 bytes (-EINVAL since 2026)");
    // 2020 had no zero-length check (Thara Gopinath's 2021 series added it): 0 <= aes_sw_max_len
    // (whatever its value) sends AES to the fallback. DES went to the engine: what an empty
    // request does there is not documented [I], so the model leaves it as the later drivers do.
    if (r.era == 2020 && aes) return go(Route::fallback, "0 bytes <= aes_sw_max_len (no zero-length check in 2020)");
    return go(Route::nothing, "0 bytes: \"CE does not handle 0 length messages\"");
  }
  if (r.era >= 2021 && (mode == CipherMode::ecb || mode == CipherMode::cbc) && len % cipher_block_bytes(alg))
    return go(Route::einval, "ECB/CBC over a partial block");
  if (!aes) return {};
  const std::size_t half = xts ? key.size() / 2 : key.size();
  if (half == 24) return go(Route::fallback, "AES-192: the engine has none");
  if (r.era == 2020 && r.aes_sw_max_len && len <= r.aes_sw_max_len)
    return go(Route::fallback,
              fmt::format("{} bytes <= aes_sw_max_len {} (every AES mode in 2020)", len, r.aes_sw_max_len));
  if (r.era >= 2021 && xts && r.aes_sw_max_len && len <= r.aes_sw_max_len)
    return go(Route::fallback, fmt::format("XTS of {} bytes <= aes_sw_max_len {}", len, r.aes_sw_max_len));
  if (r.era >= 2021 && xts && len > kSectorSize && len % kSectorSize)
    return go(Route::fallback, fmt::format("XTS of {} bytes: over 512 and not whole 512-byte sectors", len));
  if (r.era >= 2026 && mode == CipherMode::ctr && len % 16)
    return go(Route::fallback, "CTR over a partial block (2026)");
  if (r.era >= 2026 && xts && xts_halves_equal(key)) return go(Route::fallback, "XTS with equal key halves (2026)");
  return {};
}

RouteDecision aead_route(const QceRules& r, const AeadAlg& alg, bool encrypt, const std::vector<std::uint8_t>& enc_key,
                         std::size_t text, std::size_t payload_entries) {
  if (r.era == 0) return {};
  if (text == 0 && !(alg.ccm && !encrypt))
    return go(Route::fallback, "an empty text: \"CE does not handle 0 length messages\"");
  if (alg.cipher == CipherAlg::aes && enc_key.size() == 24) return go(Route::fallback, "AES-192: the engine has none");
  if (alg.cipher == CipherAlg::tdes && tdes_has_equal_keys(enc_key))
    return go(Route::fallback, "3DES with two equal keys");
  if (!alg.ccm && text % cipher_block_bytes(alg.cipher)) return go(Route::einval, "CBC over a partial block");
  if (r.era >= 2026 && alg.ccm && text % 16) return go(Route::fallback, "CCM over a partial block (2026)");
  if (r.era >= 2026 && alg.ccm && payload_entries > 1)
    return go(Route::fallback, "CCM payload in more than one scatterlist entry (2026)");
  return {};
}

std::vector<std::string> qce_registered(const QceRules& r) {
  std::vector<std::string> skciphers = {"ecb(aes)", "cbc(aes)", "ctr(aes)",      "xts(aes)",
                                        "ecb(des)", "cbc(des)", "ecb(des3_ede)", "cbc(des3_ede)"};
  std::vector<std::string> hashes = {"sha1", "sha256", "hmac(sha1)", "hmac(sha256)"};
  std::vector<std::string> aeads = {"authenc(hmac(sha1),cbc(des))",
                                    "authenc(hmac(sha1),cbc(des3_ede))",
                                    "authenc(hmac(sha256),cbc(des))",
                                    "authenc(hmac(sha256),cbc(des3_ede))",
                                    "authenc(hmac(sha256),cbc(aes))",
                                    "ccm(aes)",
                                    "rfc4309(ccm(aes))"};
  if (r.era == 2020) aeads.clear();
  if (r.era >= 2026) {
    skciphers = {"cbc(aes)", "ctr(aes)", "xts(aes)"};
    hashes = {"sha256", "hmac(sha256)"};
    aeads = {"authenc(hmac(sha256),cbc(aes))", "ccm(aes)", "rfc4309(ccm(aes))"};
  }
  std::vector<std::string> all = skciphers;
  all.insert(all.end(), hashes.begin(), hashes.end());
  all.insert(all.end(), aeads.begin(), aeads.end());
  return all;
}

bool qce_registers(const QceRules& r, const std::string& name) {
  const auto all = qce_registered(r);
  return std::find(all.begin(), all.end(), name) != all.end();
}

std::uint32_t qce_xts_du_size(const QceRules& r, std::uint32_t cryptlen) {
  return r.era == 2020 ? std::min(cryptlen, kSectorSize) : cryptlen;
}

}  // namespace qcesim::qce
