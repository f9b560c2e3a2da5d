// The kernel eras' fallback rules (drivers/crypto/qce/fallback.*) and the fallback itself: every
// rule's decision, each era's registered set, requests that the rules send to the software
// fallback coming out right (and their CPU time charged to the caller), the 2020 era's XTS data
// unit of 512 bytes giving what S6 called wrong results (and hanging the engine on lengths that
// are not whole units), and the CE AES loops' cycle counts.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include "cpu/ce_core.h"
#include "cpu/soft_crypto.h"
#include "drivers/crypto/qce/aead.h"
#include "drivers/crypto/qce/fallback.h"
#include "drivers/crypto/qce/skcipher.h"
#include "model/aead_cipher.h"
#include "tests/emu_helpers.h"

using namespace qcesim;
using namespace qcesim::qce;

namespace {

using Bytes = std::vector<std::uint8_t>;

Route route(int era, CipherMode mode, std::size_t key, std::size_t len, CipherAlg alg = CipherAlg::aes) {
  return skcipher_route(QceRules{era, 512}, alg, mode, test::random_bytes(key, 1), len).route;
}

double fn_seconds(soc::Emulator& e, const std::string& fn) {
  double s = 0;
  for (const auto& [key, t] : e.task().core().profile())
    if (key.second == fn) s += t.to_seconds();
  return s;
}

Bytes crypt(soc::Emulator& e, CipherMode mode, bool enc, const Bytes& key, const Bytes& iv, const Bytes& in) {
  QceSkcipher tfm(e.qce(), e.task(), CipherAlg::aes, mode);
  EXPECT_EQ(tfm.setkey(key), "");
  cpu::DmaBuf b = test::load(e.host(), in);
  std::array<std::uint8_t, 16> iv16{};
  std::copy(iv.begin(), iv.end(), iv16.begin());
  tfm.crypt(enc, iv16, b.addr, b.addr, static_cast<std::uint32_t>(in.size()));
  Bytes out(b.ptr, b.ptr + in.size());
  e.host().dma_free(b);
  return out;
}

}  // namespace

// qce_skcipher_crypt's rules by era (linux-qce-cipher.md 2.2, 6.2; S7 for 2026).
TEST(Fallback, SkcipherRulesByEra) {
  using M = CipherMode;
  // No kernel: everything to the engine.
  EXPECT_EQ(route(0, M::xts, 64, 16), Route::engine);
  EXPECT_EQ(route(0, M::cbc, 24, 4096), Route::engine);
  // Zero length: nothing, but XTS is -EINVAL in 2026.
  EXPECT_EQ(route(2021, M::cbc, 16, 0), Route::nothing);
  EXPECT_EQ(route(2026, M::xts, 64, 0), Route::einval);
  // Alignment: -EINVAL since 2021; in 2020 the engine gets it.
  EXPECT_EQ(route(2021, M::cbc, 16, 17), Route::einval);
  EXPECT_EQ(route(2020, M::cbc, 16, 1000), Route::engine);
  // AES-192 always to software.
  EXPECT_EQ(route(2024, M::ctr, 24, 4096), Route::fallback);
  EXPECT_EQ(route(2024, M::xts, 48, 4096), Route::fallback);
  // aes_sw_max_len: every AES mode in 2020, XTS only since 2021; DES never.
  EXPECT_EQ(route(2020, M::cbc, 16, 512), Route::fallback);
  EXPECT_EQ(route(2020, M::cbc, 16, 528), Route::engine);
  EXPECT_EQ(route(2021, M::cbc, 16, 512), Route::engine);
  EXPECT_EQ(route(2021, M::xts, 32, 512), Route::fallback);
  EXPECT_EQ(route(2020, M::cbc, 8, 64, CipherAlg::des), Route::engine);
  // XTS over 512 and not whole sectors: software since 2021.
  EXPECT_EQ(route(2024, M::xts, 64, 1040), Route::fallback);
  EXPECT_EQ(route(2024, M::xts, 64, 1024), Route::engine);
  EXPECT_EQ(route(2020, M::xts, 64, 1040), Route::engine);
  // 2026: CTR partial blocks and equal XTS halves to software.
  EXPECT_EQ(route(2024, M::ctr, 16, 100), Route::engine);
  EXPECT_EQ(route(2026, M::ctr, 16, 100), Route::fallback);
  const Bytes same(64, 7);
  EXPECT_EQ(skcipher_route(QceRules{2026, 512}, CipherAlg::aes, M::xts, same, 4096).route, Route::fallback);
  EXPECT_EQ(skcipher_route(QceRules{2024, 512}, CipherAlg::aes, M::xts, same, 4096).route, Route::engine);
  // aes_sw_max_len 0: never by length.
  EXPECT_EQ(skcipher_route(QceRules{2024, 0}, CipherAlg::aes, M::xts, test::random_bytes(64, 2), 512).route,
            Route::engine);
}

TEST(Fallback, AeadRulesByEra) {
  const AeadAlg ccm{}, authenc{false, CipherAlg::aes, HashAlg::sha256}, tdes{false, CipherAlg::tdes, HashAlg::sha1};
  const QceRules r2024{2024, 512}, r2026{2026, 512};
  EXPECT_EQ(aead_route(r2024, ccm, true, Bytes(16, 1), 0).route, Route::fallback);   // empty text
  EXPECT_EQ(aead_route(r2024, ccm, false, Bytes(16, 1), 0).route, Route::engine);    // CCM decrypt: the tag alone
  EXPECT_EQ(aead_route(r2024, ccm, true, Bytes(24, 1), 64).route, Route::fallback);  // AES-192
  Bytes k3 = test::random_bytes(24, 3);
  std::copy(k3.begin(), k3.begin() + 8, k3.begin() + 16);
  EXPECT_EQ(aead_route(r2024, tdes, true, k3, 64).route, Route::fallback);  // 3DES K1 = K3
  EXPECT_EQ(aead_route(r2024, authenc, true, Bytes(16, 1), 20).route, Route::einval);
  EXPECT_EQ(aead_route(r2024, ccm, true, Bytes(16, 1), 20).route, Route::engine);  // stalls the engine
  EXPECT_EQ(aead_route(r2026, ccm, true, Bytes(16, 1), 20).route, Route::fallback);
  EXPECT_EQ(aead_route(r2026, ccm, true, Bytes(16, 1), 64, 2).route, Route::fallback);
  EXPECT_EQ(aead_route(r2024, ccm, true, Bytes(16, 1), 64, 2).route, Route::engine);
}

TEST(Fallback, RegisteredSetsByEra) {
  EXPECT_TRUE(qce_registers(QceRules{2024, 512}, "ecb(des3_ede)"));
  EXPECT_TRUE(qce_registers(QceRules{2024, 512}, "ccm(aes)"));
  EXPECT_FALSE(qce_registers(QceRules{2020, 512}, "ccm(aes)"));  // AEADs came in 2021
  EXPECT_FALSE(qce_registers(QceRules{2026, 512}, "ecb(aes)"));
  EXPECT_FALSE(qce_registers(QceRules{2026, 512}, "sha1"));
  EXPECT_FALSE(qce_registers(QceRules{2026, 512}, "authenc(hmac(sha1),cbc(des))"));
  EXPECT_TRUE(qce_registers(QceRules{2026, 512}, "authenc(hmac(sha256),cbc(aes))"));
  EXPECT_EQ(qce_registered(QceRules{2026, 512}).size(), 8u);
  EXPECT_EQ(qce_registered(QceRules{2020, 512}).size(), 12u);
  EXPECT_EQ(qce_xts_du_size(QceRules{2020, 512}, 4096), 512u);
  EXPECT_EQ(qce_xts_du_size(QceRules{2021, 512}, 4096), 4096u);
  EXPECT_NE(check_rules(QceRules{2019, 0}), "");
}

// Requests the 2024 rules send to software come out as OpenSSL's, counted as fallbacks, their
// time charged to the caller as the CE driver's functions; the engine never sees them.
TEST(Fallback, SoftwareFallbackRunsOnTheCallersCpu) {
  test::with_emulator(RegIo::mmio, QceRules{2024, 512}, [](soc::Emulator& e) {
    const Bytes key192 = test::random_bytes(24, 4), iv = test::random_bytes(16, 5), in = test::random_bytes(4096, 6);
    EXPECT_EQ(crypt(e, CipherMode::cbc, true, key192, iv, in),
              test::openssl_cipher(EVP_aes_192_cbc(), true, key192, iv, in));
    const Bytes xkey = test::random_bytes(64, 7), small = test::random_bytes(512, 8);
    EXPECT_EQ(crypt(e, CipherMode::xts, true, xkey, iv, small),
              test::openssl_cipher(EVP_aes_256_xts(), true, xkey, iv, small));
    EXPECT_EQ(e.qce().stats().fallbacks, 2u);
    EXPECT_EQ(e.qce().stats().requests, 0u);
    EXPECT_GT(fn_seconds(e, "ce_aes_cbc_encrypt"), 0.0);
    EXPECT_GT(fn_seconds(e, "ce_aes_xts_encrypt"), 0.0);
    // 4096 bytes of XTS: the engine.
    const Bytes big = test::random_bytes(4096, 9);
    EXPECT_EQ(crypt(e, CipherMode::xts, true, xkey, iv, big),
              test::openssl_cipher(EVP_aes_256_xts(), true, xkey, iv, big));
    EXPECT_EQ(e.qce().stats().requests, 1u);

    // An AEAD: encrypting an empty text (the tag over the associated data alone) in software.
    QceAead ccm(e.qce(), e.task(), AeadAlg{});
    const Bytes k = test::random_bytes(16, 10), nonce = test::random_bytes(12, 11), assoc = test::random_bytes(30, 12);
    EXPECT_EQ(ccm.setkey(k), "");
    cpu::DmaBuf b = test::load(e.host(), Bytes(assoc.size() + 16, 0));
    std::copy(assoc.begin(), assoc.end(), b.ptr);
    std::array<std::uint8_t, 16> civ{};
    civ[0] = 2;
    std::copy(nonce.begin(), nonce.end(), civ.begin() + 1);
    ccm.crypt(true, civ, b.addr, b.addr, static_cast<std::uint32_t>(assoc.size()), 0);
    EXPECT_EQ(Bytes(b.ptr + assoc.size(), b.ptr + assoc.size() + 16),
              test::openssl_ccm_encrypt(k, nonce, assoc, {}, 16));
    EXPECT_EQ(e.qce().stats().fallbacks, 3u);
  });
}

// What the fallback is handed it answers as the software does: the 2020 driver (every AES request
// up to aes_sw_max_len to the fallback, no length check of its own) gets -EINVAL for a partial CBC
// block and for XTS under a block, as QceError like the driver's own refusals; a partial XTS block
// is stolen, as OpenSSL's XTS does.
TEST(Fallback, TheFallbackRefusesWhatTheSoftwareRefuses) {
  test::with_emulator(RegIo::mmio, QceRules{2020, 512}, [](soc::Emulator& e) {
    const Bytes key = test::random_bytes(16, 21), xkey = test::random_bytes(32, 22), iv = test::random_bytes(16, 23);
    EXPECT_THROW(crypt(e, CipherMode::cbc, true, key, iv, test::random_bytes(20, 24)), QceError);
    EXPECT_THROW(crypt(e, CipherMode::xts, true, xkey, iv, test::random_bytes(15, 25)), QceError);
    const Bytes in = test::random_bytes(100, 26);
    EXPECT_EQ(crypt(e, CipherMode::xts, true, xkey, iv, in),
              test::openssl_cipher(EVP_aes_128_xts(), true, xkey, iv, in));
    EXPECT_EQ(e.qce().stats().requests, 0u);
  });
}

// 2020's driver writes ENCR_XTS_DU_SIZE = min(512, cryptlen): 1024 bytes become two data units
// with consecutive tweaks, not Linux's one tweak per request ("wrong results", S6); 1040 bytes
// are not whole units and hang the engine (S5).
TEST(Fallback, Era2020XtsDataUnitsOf512) {
  test::with_emulator(RegIo::mmio, QceRules{2020, 512}, [](soc::Emulator& e) {
    const Bytes key = test::random_bytes(64, 13), in = test::random_bytes(1024, 14);
    Bytes iv(16, 0);
    iv[0] = 5;
    const Bytes got = crypt(e, CipherMode::xts, true, key, iv, in);
    EXPECT_NE(got, test::openssl_cipher(EVP_aes_256_xts(), true, key, iv, in));
    Bytes iv2 = iv;
    iv2[0] = 6;  // the second unit's tweak: i + 1
    Bytes two = test::openssl_cipher(EVP_aes_256_xts(), true, key, iv, Bytes(in.begin(), in.begin() + 512));
    const Bytes second = test::openssl_cipher(EVP_aes_256_xts(), true, key, iv2, Bytes(in.begin() + 512, in.end()));
    two.insert(two.end(), second.begin(), second.end());
    EXPECT_EQ(got, two);
    EXPECT_THROW(crypt(e, CipherMode::xts, true, key, iv, test::random_bytes(1040, 15)), QceError);
    EXPECT_NE(e.soc().qce.last_error().find("not whole data units"), std::string::npos) << e.soc().qce.last_error();
  });
}

// Equal XTS key halves: -ENOKEY at setkey before 2026, the fallback's since.
TEST(Fallback, EqualXtsHalves) {
  test::with_emulator(RegIo::mmio, QceRules{2026, 512}, [](soc::Emulator& e) {
    const Bytes key(64, 9), iv = test::random_bytes(16, 16), in = test::random_bytes(4096, 17);
    // OpenSSL refuses equal XTS halves: the reference is the model's XTS (checked against NIST).
    CipherSpec s;
    s.mode = CipherMode::xts;
    s.key = s.xts_key = Bytes(32, 9);
    std::copy(iv.begin(), iv.end(), s.iv.begin());
    Bytes expect(in.size());
    CipherStream(s).update(in.data(), expect.data(), in.size());
    EXPECT_EQ(crypt(e, CipherMode::xts, true, key, iv, in), expect);
    EXPECT_EQ(e.qce().stats().fallbacks, 1u);
  });
}

// The CE AES loops on the X4: CBC encryption is one chain of 9 fused AESE/AESMC pairs, the last
// AESE and two EORs at 2 cycles each, the loop's 4 updates beside it (0.4 cycle of issue on the
// 10-wide core); four interleaved blocks are bounded by the four AES pipes; XTS by its tweak
// update's chain; the in-order A520, which issues the updates in line, is slower.
TEST(Fallback, CeAesLoopCycles) {
  const cpu::CeCoreTable& x4 = cpu::ce_core_table("cortex-x4");
  EXPECT_DOUBLE_EQ(cpu::aes_ce_cycles_per_block(x4, 10, cpu::AesLoop::serial), 24.4);
  EXPECT_DOUBLE_EQ(cpu::aes_ce_cycles_per_block(x4, 14, cpu::AesLoop::serial), 32.4);
  const double par = cpu::aes_ce_cycles_per_block(x4, 10, cpu::AesLoop::parallel);
  EXPECT_LT(par, 5.0);  // ~10 AES operations per block over 4 pipes, plus the loop's share
  EXPECT_GT(cpu::aes_ce_cycles_per_block(x4, 10, cpu::AesLoop::xts), 2 * par);
  EXPECT_DOUBLE_EQ(cpu::aes_ce_cycles_per_block(x4, 10, cpu::AesLoop::ccm), 24.4);
  const cpu::CeCoreTable& a520 = cpu::ce_core_table("cortex-a520");
  for (auto l : {cpu::AesLoop::serial, cpu::AesLoop::parallel, cpu::AesLoop::xts})
    EXPECT_GT(cpu::aes_ce_cycles_per_block(a520, 10, l), cpu::aes_ce_cycles_per_block(x4, 10, l))
        << cpu::aes_loop_name(l);
}
