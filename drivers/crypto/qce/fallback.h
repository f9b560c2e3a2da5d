// Which requests the qce driver of a kernel era hands to the engine and which to its software
// fallback tfm (linux-qce-cipher.md sections 1, 2.2, 4.1, 6.2): the era's registered algorithms,
// aes_sw_max_len, AES-192, XTS's sector rules, zero lengths, and the 2026 self-test fixes (CTR
// and CCM partial blocks, CCM fragmented payloads, equal XTS halves). Era 0 is no kernel at all:
// every request the engine can run goes to it and nothing falls back (qcesim cipher without a
// profile, the engine tests).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/block_cipher.h"
#include "model/profile.h"

namespace qcesim::qce {

struct AeadAlg;

struct QceRules {
  // 0 (none), 2020 (v5.6/v5.7 and OpenWrt backports: aes_sw_max_len on every AES mode, XTS data
  // unit 512, no AEADs), 2021 (Thara Gopinath's fixes and the AEADs), 2024 (done path in a
  // workqueue; the same rules), 2026 (the self-test fixes and the removal of ECB, DES, 3DES, SHA-1).
  int era = 0;
  std::uint32_t aes_sw_max_len = 0;  // bytes; 0: never by length (CONFIG_CRYPTO_DEV_QCE_SW_MAX_LEN: 512)
};
// "" when the era is one of the above, else what it must be (the caller adds what it found).
std::string check_rules(const QceRules& r);
// driver.era and driver.aes_sw_max_len; a ConfigError naming driver.era when it is no era.
QceRules qce_rules(const model::Profile& p);
// Whether the era's driver allocates its software fallback tfm synchronous: until v5.9 (2020),
// which on 32-bit ARM rules out the SIMD code (cpu/soft_crypto.h).
inline bool fallback_is_sync(const QceRules& r) { return r.era == 2020; }

// Why setkey refused a key only because the engine cannot run it (the algorithm can: the kernel
// keeps such keys for its software fallback, depending on the era): none when it did not.
enum class SoftOnly { none, aes192, xts_equal_halves, tdes_equal_keys };

enum class Route { engine, fallback, nothing, einval };
const char* route_name(Route r);
struct RouteDecision {
  Route route = Route::engine;
  std::string why;  // what rule decided (empty: the engine, as usual)
};
// Whether the era's setkey keeps a key the engine cannot run (SoftOnly): AES-192 with any rules
// (the fallback's), equal XTS halves in 2026 (use_fallback), and in 2020, which checked neither,
// equal XTS halves and 3DES keys (unchecked_2020_key says which requests can still run).
bool setkey_keeps(SoftOnly soft, int era);
// The 2020 driver checked neither equal XTS halves nor equal 3DES keys (Thara Gopinath's -ENOKEY
// checks came in 2021): setkey takes them, its fallback runs what goes there by length, and
// what the engine makes of the rest is not documented [I]. "" when the request can run, else why not.
std::string unchecked_2020_key(SoftOnly soft, Route route);

// qce_skcipher_crypt's decision for a request of `len` bytes with this key.
RouteDecision skcipher_route(const QceRules& r, CipherAlg alg, CipherMode mode, const std::vector<std::uint8_t>& key,
                             std::size_t len);
// qce_aead_crypt's: `text` is the plaintext or ciphertext without the tag; `payload_entries` the
// scatterlist entries the payload spans (the 2026 rule sends more than one to software).
RouteDecision aead_route(const QceRules& r, const AeadAlg& alg, bool encrypt, const std::vector<std::uint8_t>& enc_key,
                         std::size_t text, std::size_t payload_entries = 1);
// Whether the era's driver registers this algorithm (its cra_name).
bool qce_registers(const QceRules& r, const std::string& cra_name);
// The algorithms the era registers, in the driver's order.
std::vector<std::string> qce_registered(const QceRules& r);
// ENCR_XTS_DU_SIZE for a request: cryptlen since 2021, min(512, cryptlen) before.
std::uint32_t qce_xts_du_size(const QceRules& r, std::uint32_t cryptlen);

}  // namespace qcesim::qce
