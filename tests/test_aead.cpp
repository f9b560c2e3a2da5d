// AEAD requests through the driver (drivers/crypto/qce/aead.*), the BAM and the engine's auth and
// cipher parts together, in both register-I/O modes (BAM with the locking series): NIST CCM
// vectors with whole-block payloads (decryption-verification Pass/Fail included), CCM and
// authenc over random sizes, keys and associated data against OpenSSL (authenc composed from
// AES-CBC and HMAC), in place and out of place; the register writes the reference counts; the
// engine quirks (a CCM payload that is not whole blocks, or arrives in two descriptors, stalls).
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstring>

#include "drivers/crypto/qce/aead.h"
#include "tests/emu_helpers.h"
#include "tests/testdata.h"

using namespace qcesim;
using namespace qcesim::qce;

namespace {

using Bytes = std::vector<std::uint8_t>;

using test::cat;

// The kernel's ccm(aes) IV for a nonce: byte 0 is L - 1 (L = 15 - nonce bytes), then the nonce,
// then the counter (zeros).
std::array<std::uint8_t, 16> ccm_iv(const Bytes& nonce) {
  std::array<std::uint8_t, 16> iv{};
  iv[0] = static_cast<std::uint8_t>(14 - nonce.size());
  std::copy(nonce.begin(), nonce.end(), iv.begin() + 1);
  return iv;
}

// One AEAD request over `in` (assoc then text) through QceAead; out of place when `oop`.
// Returns dst (assoc, then the text, then the tag when encrypting). Throws as QceAead does.
Bytes through_driver(soc::Emulator& e, const AeadAlg& alg, bool enc, const Bytes& enc_key, const Bytes& auth_key,
                     unsigned authsize, const std::array<std::uint8_t, 16>& iv, const Bytes& assoc, const Bytes& text,
                     bool oop) {
  QceAead tfm(e.qce(), e.task(), alg);
  EXPECT_EQ(tfm.setkey(enc_key, auth_key), "");
  EXPECT_EQ(tfm.setauthsize(authsize), "");
  const Bytes in = cat(assoc, text);
  const std::size_t out_len = enc ? in.size() + authsize : in.size() - authsize;
  cpu::DmaBuf src = test::load(e.host(), cat(in, Bytes(authsize, 0)));  // in place: room for the tag
  cpu::DmaBuf dst = oop ? test::load(e.host(), Bytes(out_len, 0xEE)) : src;
  struct Free {
    cpu::Host& h;
    cpu::DmaBuf a, b;
    ~Free() {
      h.dma_free(a);
      if (b.addr != a.addr) h.dma_free(b);
    }
  } free_later{e.host(), src, dst};
  tfm.crypt(enc, iv, src.addr, dst.addr, static_cast<std::uint32_t>(assoc.size()),
            static_cast<std::uint32_t>(text.size()));
  Bytes out(dst.ptr, dst.ptr + out_len);
  if (oop && alg.ccm) {
    // CCM's engine passes the associated data through into the driver's bounce buffer, not dst:
    // the kernel driver leaves dst's copy alone (the caller's business).
    EXPECT_EQ(Bytes(out.begin(), out.begin() + static_cast<long>(assoc.size())), Bytes(assoc.size(), 0xEE));
    std::copy(assoc.begin(), assoc.end(), out.begin());
  }
  return out;
}

// One NIST CCM record through the driver: encryption (the V* files) and decryption (Pass: the
// payload back; Fail: -EBADMSG). True when it was a Fail record.
bool check_ccm_case(soc::Emulator& e, const test::CcmCase& c) {
  const auto iv = ccm_iv(c.nonce);
  const std::string where = c.file + " Count " + c.count;
  if (!c.decrypt_test) {
    EXPECT_EQ(through_driver(e, AeadAlg{}, true, c.key, {}, c.tlen, iv, c.adata, c.payload, false), cat(c.adata, c.ct))
        << where;
  }
  if (c.pass) {
    EXPECT_EQ(through_driver(e, AeadAlg{}, false, c.key, {}, c.tlen, iv, c.adata, c.ct, false), cat(c.adata, c.payload))
        << where;
    return false;
  }
  EXPECT_THROW(through_driver(e, AeadAlg{}, false, c.key, {}, c.tlen, iv, c.adata, c.ct, false), QceBadMessage)
      << where;
  return true;
}

// Every record whose payload is whole blocks (the engine's CCM takes nothing else): DVPT by
// decryption (Pass: the payload; Fail: -EBADMSG from the engine's MAC_FAILED), the others by
// encryption and then decryption back.
void ccm_nist_vectors(RegIo io) {
  test::with_emulator(io, [](soc::Emulator& e) {
    std::size_t n = 0, fails = 0, all = 0;
    for (const char* f : test::kCcmFiles) {
      for (const test::CcmCase& c : test::ccm_cases(f)) {
        ++all;
        const std::size_t plen = c.ct.size() - c.tlen;
        if (plen % 16 != 0) continue;
        if (plen == 0 && !c.decrypt_test) continue;  // encrypting nothing: the software fallback's
        fails += check_ccm_case(e, c);
        ++n;
      }
    }
    EXPECT_EQ(all, 1920u);   // the ten files' records
    EXPECT_EQ(n, 260u);      // of them, whole non-empty blocks or decryption: DVPT 2 x 120, VPT 2 x 10
    EXPECT_EQ(fails, 160u);  // DVPT's Fail records among those (80 per file)
    EXPECT_EQ(e.soc().qce.stats().mac_failures, 160u);
  });
}

// Every NIST CCM record through the driver of the 2026 era: whole-block payloads to the engine,
// partial ones and empty encryptions to the software fallback on the CPU (S7's rules), each
// answer checked; the fallback's CPU time shows in the task's profile as aes-ce-ccm's.
void ccm_nist_vectors_2026(RegIo io) {
  test::with_emulator(io, QceRules{2026, 512}, [](soc::Emulator& e) {
    std::size_t n = 0;
    for (const char* f : test::kCcmFiles) {
      for (const test::CcmCase& c : test::ccm_cases(f)) {
        check_ccm_case(e, c);
        ++n;
      }
    }
    EXPECT_EQ(n, 1920u);
    // Requests: 1440 encryptions (the V* files) and 1920 decryptions; of those the engine ran the
    // whole-block ones (20 encryptions, 280 decryptions: empty texts are the tag alone), the
    // fallback the rest.
    EXPECT_EQ(e.qce().stats().requests, 300u);
    EXPECT_EQ(e.qce().stats().fallbacks, 1440u + 1920u - 300u);
    double ccm_seconds = 0;
    for (const auto& [key, t] : e.task().core().profile())
      if (key.second == "ce_aes_ccm_encrypt") ccm_seconds += t.to_seconds();
    EXPECT_GT(ccm_seconds, 0.0);
  });
}

// CCM over random whole-block payloads, associated data (up to the 6-byte length header at
// 0xff00), nonce and tag lengths and keys, against OpenSSL; in place and out of place; a flipped
// tag bit is -EBADMSG.
void ccm_random(RegIo io) {
  test::with_emulator(io, [](soc::Emulator& e) {
    unsigned seed = 100;
    for (unsigned i = 0; i < 24; ++i) {
      const Bytes key = test::random_bytes(i % 2 ? 32 : 16, seed++);
      const Bytes nonce = test::random_bytes(7 + i % 7, seed++);
      const unsigned tag = 4 + 2 * (i % 7);
      const std::size_t alen = i == 23   ? 0xff00 + 5
                               : i == 22 ? 0xfeff
                                         : (i * 37) % 70;  // 0xfeff: the last 2-byte header
      const Bytes assoc = test::random_bytes(alen, seed++), pt = test::random_bytes(16 * (1 + (i * 13) % 40), seed++);
      const bool oop = i % 3 == 0;
      const Bytes expect = test::openssl_ccm_encrypt(key, nonce, assoc, pt, tag);
      const auto iv = ccm_iv(nonce);
      EXPECT_EQ(through_driver(e, AeadAlg{}, true, key, {}, tag, iv, assoc, pt, oop), cat(assoc, expect)) << i;
      EXPECT_EQ(through_driver(e, AeadAlg{}, false, key, {}, tag, iv, assoc, expect, oop), cat(assoc, pt)) << i;
      Bytes bad = expect;
      bad.back() ^= 0x01;
      EXPECT_THROW(through_driver(e, AeadAlg{}, false, key, {}, tag, iv, assoc, bad, oop), QceBadMessage) << i;
    }
  });
}

// authenc(hmac(sha256),cbc(aes)) and the DES/3DES/SHA-1 forms against OpenSSL composed:
// ciphertext = CBC(plaintext), tag = HMAC(assoc || ciphertext) truncated; decryption compares the
// tag on the CPU.
void authenc_random(RegIo io) {
  test::with_emulator(io, [](soc::Emulator& e) {
    struct Case {
      AeadAlg alg;
      std::size_t key;
      const EVP_CIPHER* evp;
    };
    unsigned seed = 500;
    int i = 0;
    for (const Case& c : {Case{{false, CipherAlg::aes, HashAlg::sha256}, 16, EVP_aes_128_cbc()},
                          Case{{false, CipherAlg::aes, HashAlg::sha256}, 32, EVP_aes_256_cbc()},
                          Case{{false, CipherAlg::tdes, HashAlg::sha256}, 24, EVP_des_ede3_cbc()},
                          Case{{false, CipherAlg::tdes, HashAlg::sha1}, 24, EVP_des_ede3_cbc()}}) {
      for (unsigned k = 0; k < 6; ++k, ++i) {
        const std::size_t block = cipher_block_bytes(c.alg.cipher);
        const Bytes key = test::random_bytes(c.key, seed++), hkey = test::random_bytes(k % 2 ? 64 : 20 + k, seed++);
        const Bytes iv_bytes = test::random_bytes(block, seed++);
        std::array<std::uint8_t, 16> iv{};
        std::copy(iv_bytes.begin(), iv_bytes.end(), iv.begin());
        const Bytes assoc = test::random_bytes((k * 11) % 40, seed++),
                    pt = test::random_bytes(block * (1 + (k * 29) % 300), seed++);
        const unsigned tag = k == 3 ? 12 : static_cast<unsigned>(c.alg.maxauthsize());
        const Bytes ct = test::openssl_cipher(c.evp, true, key, iv_bytes, pt);
        Bytes mac = test::openssl_hmac(c.alg.hash, hkey, cat(assoc, ct));
        mac.resize(tag);
        const bool oop = k % 2 == 0;
        EXPECT_EQ(through_driver(e, c.alg, true, key, hkey, tag, iv, assoc, pt, oop), cat(cat(assoc, ct), mac))
            << c.alg.name() << " " << k;
        EXPECT_EQ(through_driver(e, c.alg, false, key, hkey, tag, iv, assoc, cat(ct, mac), oop), cat(assoc, pt))
            << c.alg.name() << " " << k;
        Bytes bad = cat(ct, mac);
        bad[ct.size()] ^= 0x80;
        EXPECT_THROW(through_driver(e, c.alg, false, key, hkey, tag, iv, assoc, bad, oop), QceBadMessage)
            << c.alg.name() << " " << k;
      }
    }
  });
}

}  // namespace

TEST(Aead, CcmNistVectors_mmio) { ccm_nist_vectors(RegIo::mmio); }
TEST(Aead, CcmNistVectors_bam) { ccm_nist_vectors(RegIo::bam); }
TEST(Aead, EveryNistCcmRecordThroughThe2026Driver_mmio) { ccm_nist_vectors_2026(RegIo::mmio); }
TEST(Aead, EveryNistCcmRecordThroughThe2026Driver_bam) { ccm_nist_vectors_2026(RegIo::bam); }
TEST(Aead, CcmRandomMatchesOpenSsl_mmio) { ccm_random(RegIo::mmio); }
TEST(Aead, CcmRandomMatchesOpenSsl_bam) { ccm_random(RegIo::bam); }
TEST(Aead, AuthencMatchesOpenSslComposed_mmio) { authenc_random(RegIo::mmio); }
TEST(Aead, AuthencMatchesOpenSslComposed_bam) { authenc_random(RegIo::bam); }

// qce_setup_regs_aead's writes (linux-qce-cipher.md 4.4: CCM AES-128 72, AES-256 80; authenc
// HMAC-SHA-256 AES-128 with a 32-byte key 71, AES-256 75, a 64-byte key 8 more) and the
// descriptors: authenc in one buffer rx 1, tx 2 (data, result dump); CCM with associated data
// rx 2 (formatted adata, text), tx 3 (adata, text, ccmresult_buf).
TEST(Aead, RegisterWritesAndDescriptorsAreTheKernels) {
  test::with_emulator(RegIo::mmio, [](soc::Emulator& e) {
    struct Case {
      AeadAlg alg;
      std::size_t key, hkey;
      std::uint64_t writes, rx, tx;
    };
    const std::uint32_t rx = e.qce().config().rx_pipe, tx = e.qce().config().tx_pipe;
    const AeadAlg authenc{false, CipherAlg::aes, HashAlg::sha256};
    for (const Case& c :
         {Case{AeadAlg{}, 16, 0, 72, 2, 3}, Case{AeadAlg{}, 32, 0, 80, 2, 3}, Case{authenc, 16, 32, 71, 1, 2},
          Case{authenc, 32, 32, 75, 1, 2}, Case{authenc, 16, 64, 79, 1, 2}}) {
      const std::uint64_t w0 = e.qce().stats().reg_writes;
      const std::uint64_t rx0 = e.soc().bam.pipe_stats(rx).descriptors, tx0 = e.soc().bam.pipe_stats(tx).descriptors;
      std::array<std::uint8_t, 16> iv{};
      iv[0] = 3;
      through_driver(e, c.alg, true, test::random_bytes(c.key, 1), test::random_bytes(c.hkey, 2), 16, iv,
                     test::random_bytes(20, 3), test::random_bytes(4096, 4), false);
      EXPECT_EQ(e.qce().stats().reg_writes - w0, c.writes) << c.alg.name() << " " << c.key;
      EXPECT_EQ(e.soc().bam.pipe_stats(rx).descriptors - rx0, c.rx) << c.alg.name();
      EXPECT_EQ(e.soc().bam.pipe_stats(tx).descriptors - tx0, c.tx) << c.alg.name();
    }
  });
}

// Engine quirks (linux-qce-cipher.md section 5, S7 patches 7/8): a CCM payload that is not whole
// blocks, or that reaches the engine in two descriptors, stalls the engine; the request never
// completes (here: the driver's timeout), and the next request runs once the context is cleared.
TEST(Aead, CcmPartialOrFragmentedPayloadStallsTheEngine) {
  test::with_emulator(RegIo::mmio, [](soc::Emulator& e) {
    const Bytes key = test::random_bytes(16, 7), nonce = test::random_bytes(12, 8), assoc = test::random_bytes(8, 9);
    const auto iv = ccm_iv(nonce);
    EXPECT_THROW(through_driver(e, AeadAlg{}, true, key, {}, 16, iv, assoc, test::random_bytes(40, 10), false),
                 QceError);
    EXPECT_NE(e.soc().qce.last_error().find("not whole 16-byte blocks"), std::string::npos) << e.soc().qce.last_error();

    // Two scatterlist entries for a 64-byte payload: the engine sees two descriptors.
    const Bytes pt = test::random_bytes(64, 11);
    cpu::DmaBuf a = test::load(e.host(), cat(assoc, Bytes(pt.begin(), pt.begin() + 32)));
    cpu::DmaBuf b = test::load(e.host(), cat(Bytes(pt.begin() + 32, pt.end()), Bytes(16, 0)));
    AeadRequest req;
    req.enc_key = req.auth_key = key;
    req.iv = iv;
    req.assoclen = static_cast<std::uint32_t>(assoc.size());
    req.cryptlen = 64;
    req.src = req.dst = {{a.addr, static_cast<std::uint32_t>(assoc.size() + 32)}, {b.addr, 48}};
    EXPECT_THROW(e.qce().run_sync(e.task(), req), QceError);
    EXPECT_NE(e.soc().qce.last_error().find("more than one descriptor"), std::string::npos) << e.soc().qce.last_error();

    // One entry: the same request goes through and matches OpenSSL.
    EXPECT_EQ(through_driver(e, AeadAlg{}, true, key, {}, 16, iv, assoc, pt, false),
              cat(assoc, test::openssl_ccm_encrypt(key, nonce, assoc, pt, 16)));
  });
}

// setkey, setauthsize and the length rules refuse what the driver refuses, naming what it wants.
TEST(Aead, SetkeyAuthsizeAndLengthRefusals) {
  const AeadAlg ccm{}, authenc{false, CipherAlg::aes, HashAlg::sha256};
  EXPECT_NE(aead_key_check(ccm, Bytes(24, 1), {}).find("no AES-192"), std::string::npos);
  EXPECT_NE(aead_key_check(authenc, Bytes(16, 1), Bytes(65, 2)).find("at most 64"), std::string::npos);
  EXPECT_EQ(aead_key_check(authenc, Bytes(32, 1), Bytes(64, 2)), "");
  EXPECT_NE(aead_authsize_check(ccm, 5).find("4, 6, 8"), std::string::npos);
  EXPECT_NE(aead_authsize_check(authenc, 33).find("at most 32"), std::string::npos);
  EXPECT_NE(aead_length_check(authenc, true, 32, 17).find("multiple of 16"), std::string::npos);
  EXPECT_NE(aead_length_check(ccm, true, 16, 0).find("software fallback"), std::string::npos);
  EXPECT_EQ(aead_length_check(ccm, false, 16, 16), "");  // CCM decryption of an empty text: the tag alone
  EXPECT_NE(aead_length_check(ccm, false, 16, 8).find("16-byte tag"), std::string::npos);
  std::array<std::uint8_t, 16> iv{};
  EXPECT_NE(ccm_iv_check(iv).find("1..7"), std::string::npos);
  EXPECT_EQ(parse_aead_name("authenc(hmac(sha256),cbc(aes))")->name(), "authenc(hmac(sha256),cbc(aes))");
  EXPECT_FALSE(parse_aead_name("authenc(hmac(sha1),cbc(aes))"));
  EXPECT_TRUE(parse_aead_name("ccm(aes)")->ccm);
}
