// Every NIST cipher vector for the modes the engine runs, through the skcipher driver, the BAM
// and the engine, in both register-I/O modes (BAM: with the locking series): AES-128/256 ECB and
// CBC known-answer, multi-block and Monte Carlo tests (each Monte Carlo record 1000 requests,
// the CBC IV chained through the result dump as the driver does); DES known-answer tests and
// keying option 1 (single DES through ecb(des)/cbc(des)); 3DES keying option 3; keying option 2
// (K1 = K3) refused at setkey (-ENOKEY: the engine cannot); XTS records of whole 16-byte blocks;
// SP 800-38A's CTR examples. AES-192 goes through a 2024 driver's software fallback.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstring>

#include "drivers/crypto/qce/skcipher.h"
#include "tests/emu_helpers.h"
#include "tests/process.h"
#include "tests/testdata.h"

using namespace qcesim;
using namespace qcesim::qce;
using test::unhex;

namespace {

using Bytes = std::vector<std::uint8_t>;

using test::iv16;

// One tfm and a DMA buffer reused for its requests.
struct Tfm {
  Tfm(soc::Emulator& emu, CipherAlg alg, CipherMode mode, const Bytes& key)
      : e(emu), tfm(emu.qce(), emu.task(), alg, mode) {
    why = tfm.setkey(key);
    buf = emu.host().dma_alloc(4096, 64);
  }
  ~Tfm() { e.host().dma_free(buf); }
  Bytes run(bool enc, std::array<std::uint8_t, 16>& iv, const Bytes& in) {
    std::memcpy(buf.ptr, in.data(), in.size());
    tfm.crypt(enc, iv, buf.addr, buf.addr, static_cast<std::uint32_t>(in.size()));
    return Bytes(buf.ptr, buf.ptr + in.size());
  }
  soc::Emulator& e;
  QceSkcipher tfm;
  std::string why;
  cpu::DmaBuf buf;
};

// The key of a record: KEY, KEYs (one DES key) or KEY1..3.
Bytes record_key(const test::RspRecord& r) {
  if (r.fields.count("KEY")) return unhex(r.at("KEY"));
  if (r.fields.count("KEYs")) return unhex(r.at("KEYs"));
  if (r.at("KEY1") == r.at("KEY2") && r.at("KEY2") == r.at("KEY3")) return unhex(r.at("KEY1"));  // keying option 1: DES
  return unhex(r.at("KEY1") + r.at("KEY2") + r.at("KEY3"));
}

// Known-answer and multi-block records: counts checked records, and (3DES with two equal keys)
// the ones setkey refused.
std::size_t check_file(soc::Emulator& e, const std::string& file, CipherAlg alg, CipherMode mode,
                       std::size_t* refused = nullptr) {
  std::size_t n = 0;
  for (const test::RspRecord& r : test::parse_rsp(file)) {
    if (!r.fields.count("PLAINTEXT")) continue;
    const Bytes key = record_key(r);
    const CipherAlg a = alg == CipherAlg::aes ? alg : key.size() == 8 ? CipherAlg::des : CipherAlg::tdes;
    Tfm t(e, a, mode, key);
    if (!t.why.empty()) {
      EXPECT_NE(t.why.find("three different 3DES keys"), std::string::npos) << file << " " << r.at("COUNT");
      if (refused) ++*refused;
      continue;
    }
    auto iv = iv16(r.fields.count("IV") ? unhex(r.at("IV")) : Bytes{});
    const bool enc = r.section == "ENCRYPT";
    const Bytes pt = unhex(r.at("PLAINTEXT")), ct = unhex(r.at("CIPHERTEXT"));
    EXPECT_EQ(t.run(enc, iv, enc ? pt : ct), enc ? ct : pt) << file << " " << r.section << " COUNT " << r.at("COUNT");
    ++n;
  }
  return n;
}

void known_answers(RegIo io) {
  test::with_emulator(io, [](soc::Emulator& e) {
    std::size_t aes = 0, des = 0, refused = 0;
    for (const char* kind : {"GFSbox", "KeySbox", "VarKey", "VarTxt", "MMT"})
      for (const char* size : {"128", "256"}) {
        aes += check_file(e, std::string("aes-ecb/ECB") + kind + size + ".rsp", CipherAlg::aes, CipherMode::ecb);
        aes += check_file(e, std::string("aes-cbc/CBC") + kind + size + ".rsp", CipherAlg::aes, CipherMode::cbc);
      }
    for (const char* kind : {"invperm", "permop", "subtab", "varkey", "vartext", "MMT1", "MMT2", "MMT3"}) {
      des += check_file(e, std::string("tdes/TECB") + kind + ".rsp", CipherAlg::tdes, CipherMode::ecb, &refused);
      des += check_file(e, std::string("tdes/TCBC") + kind + ".rsp", CipherAlg::tdes, CipherMode::cbc, &refused);
    }
    // AES KAT 128+256 (GFSbox 14+10, KeySbox 42+32, VarKey 256+512, VarTxt 256+256) + MMT 20+20, twice (ECB, CBC).
    EXPECT_EQ(aes, 2u * (24 + 74 + 768 + 512 + 40));
    // DES KAT (128+64+38+112+128) and MMT1/MMT3 (20 each), twice; MMT2's 2 x 20 refused.
    EXPECT_EQ(des, 2u * (470 + 40));
    EXPECT_EQ(refused, 40u);

    // XTS: every record of whole 16-byte blocks (one data unit per request); CTR: SP 800-38A.
    std::size_t xts = 0;
    for (const char* file : {"aes-xts/tweak-128hexstr/XTSGenAES128.rsp", "aes-xts/tweak-128hexstr/XTSGenAES256.rsp"})
      for (const test::RspRecord& r : test::parse_rsp(file)) {
        if (!r.fields.count("PT") || std::stoul(r.at("DataUnitLen")) % 128 != 0) continue;
        Tfm t(e, CipherAlg::aes, CipherMode::xts, unhex(r.at("Key")));
        EXPECT_EQ(t.why, "");
        auto iv = iv16(unhex(r.at("i")));
        const bool enc = r.section == "ENCRYPT";
        const Bytes pt = unhex(r.at("PT")), ct = unhex(r.at("CT"));
        EXPECT_EQ(t.run(enc, iv, enc ? pt : ct), enc ? ct : pt) << file << " COUNT " << r.at("COUNT");
        ++xts;
      }
    EXPECT_EQ(xts, 1200u);  // of the 2000 records, the rest end in a partial block or are bit lengths
    const auto doc = nlohmann::json::parse(test::slurp(test::testdata_path("aes-ctr/sp800-38a-f5-ctr.json")));
    std::size_t ctr = 0;
    for (const auto& v : doc["vectors"]) {
      if (v["key_bits"] == 192) continue;  // the engine has no AES-192 (the fallback test below)
      Tfm t(e, CipherAlg::aes, CipherMode::ctr, unhex(v["key"]));
      for (bool enc : {true, false}) {
        auto iv = iv16(unhex(v["initial_counter"]));
        const Bytes pt = unhex(v["plaintext"]), ct = unhex(v["ciphertext"]);
        EXPECT_EQ(t.run(enc, iv, enc ? pt : ct), enc ? ct : pt) << v["name"];
        ++ctr;
      }
    }
    EXPECT_EQ(ctr, 4u);
  });
}

// AESAVS Monte Carlo: each record runs 1000 one-block requests from its KEY, IV and input; the
// next input is the previous output (ECB), or the output before it, the IV first (CBC).
void monte_carlo(RegIo io, CipherMode mode, const char* size) {
  test::with_emulator(io, [mode, size](soc::Emulator& e) {
    const std::string file = std::string(mode == CipherMode::ecb ? "aes-ecb/ECBMCT" : "aes-cbc/CBCMCT") + size + ".rsp";
    std::size_t n = 0;
    for (const test::RspRecord& r : test::parse_rsp(file)) {
      if (!r.fields.count("PLAINTEXT")) continue;
      const bool enc = r.section == "ENCRYPT";
      Tfm t(e, CipherAlg::aes, mode, unhex(r.at("KEY")));
      const Bytes iv0 = r.fields.count("IV") ? unhex(r.at("IV")) : Bytes(16, 0);
      auto iv = iv16(iv0);
      Bytes in = unhex(r.at(enc ? "PLAINTEXT" : "CIPHERTEXT")), out, prev = iv0;
      for (int j = 0; j < 1000; ++j) {
        out = t.run(enc, iv, in);
        if (mode == CipherMode::ecb) {
          in = out;
        } else {
          in = prev;  // j = 0: the IV; then the output before this one
          prev = out;
        }
      }
      EXPECT_EQ(out, unhex(r.at(enc ? "CIPHERTEXT" : "PLAINTEXT")))
          << file << " " << r.section << " COUNT " << r.at("COUNT");
      ++n;
    }
    EXPECT_EQ(n, 200u);
    EXPECT_EQ(e.qce().stats().requests, 200u * 1000u);
  });
}

}  // namespace

TEST(NistCiphers, KnownAnswerMultiBlockXtsCtr_mmio) { known_answers(RegIo::mmio); }
TEST(NistCiphers, KnownAnswerMultiBlockXtsCtr_bam) { known_answers(RegIo::bam); }
TEST(NistCiphers, EcbMonteCarlo128_mmio) { monte_carlo(RegIo::mmio, CipherMode::ecb, "128"); }
TEST(NistCiphers, EcbMonteCarlo128_bam) { monte_carlo(RegIo::bam, CipherMode::ecb, "128"); }
TEST(NistCiphers, EcbMonteCarlo256_mmio) { monte_carlo(RegIo::mmio, CipherMode::ecb, "256"); }
TEST(NistCiphers, EcbMonteCarlo256_bam) { monte_carlo(RegIo::bam, CipherMode::ecb, "256"); }
TEST(NistCiphers, CbcMonteCarlo128_mmio) { monte_carlo(RegIo::mmio, CipherMode::cbc, "128"); }
TEST(NistCiphers, CbcMonteCarlo128_bam) { monte_carlo(RegIo::bam, CipherMode::cbc, "128"); }
TEST(NistCiphers, CbcMonteCarlo256_mmio) { monte_carlo(RegIo::mmio, CipherMode::cbc, "256"); }
TEST(NistCiphers, CbcMonteCarlo256_bam) { monte_carlo(RegIo::bam, CipherMode::cbc, "256"); }

// AES-192 (KAT, MMT, SP 800-38A CTR) through a 2024 driver: setkey takes the key, every request
// goes to the software fallback and comes out right; the engine sees none.
TEST(NistCiphers, Aes192ThroughThe2024DriversFallback) {
  test::with_emulator(RegIo::mmio, QceRules{2024, 512}, [](soc::Emulator& e) {
    std::size_t n = 0;
    for (const char* kind : {"GFSbox", "KeySbox", "VarKey", "VarTxt", "MMT"}) {
      n += check_file(e, std::string("aes-ecb/ECB") + kind + "192.rsp", CipherAlg::aes, CipherMode::ecb);
      n += check_file(e, std::string("aes-cbc/CBC") + kind + "192.rsp", CipherAlg::aes, CipherMode::cbc);
    }
    const auto doc = nlohmann::json::parse(test::slurp(test::testdata_path("aes-ctr/sp800-38a-f5-ctr.json")));
    for (const auto& v : doc["vectors"]) {
      if (v["key_bits"] != 192) continue;
      Tfm t(e, CipherAlg::aes, CipherMode::ctr, unhex(v["key"]));
      auto iv = iv16(unhex(v["initial_counter"]));
      EXPECT_EQ(t.run(true, iv, unhex(v["plaintext"])), unhex(v["ciphertext"]));
      ++n;
    }
    EXPECT_EQ(n, 2u * (12 + 48 + 384 + 256 + 20) + 1);
    EXPECT_EQ(e.qce().stats().fallbacks, n);
    EXPECT_EQ(e.qce().stats().requests, 0u);
  });
}

// Every byte-aligned XTS record through a 2024 driver: whole 512-byte sectors above 512 bytes go to
// the engine, the rest (512 bytes or less, other lengths, partial blocks with ciphertext stealing)
// to the software fallback, as qce_skcipher_crypt decides; every one comes out right.
TEST(NistCiphers, XtsByteAlignedThroughThe2024Driver) {
  test::with_emulator(RegIo::bam, QceRules{2024, 512}, [](soc::Emulator& e) {
    std::size_t n = 0;
    for (const char* file : {"aes-xts/tweak-128hexstr/XTSGenAES128.rsp", "aes-xts/tweak-128hexstr/XTSGenAES256.rsp"})
      for (const test::RspRecord& r : test::parse_rsp(file)) {
        if (!r.fields.count("PT") || std::stoul(r.at("DataUnitLen")) % 8 != 0) continue;
        Tfm t(e, CipherAlg::aes, CipherMode::xts, unhex(r.at("Key")));
        auto iv = iv16(unhex(r.at("i")));
        const bool enc = r.section == "ENCRYPT";
        const Bytes pt = unhex(r.at("PT")), ct = unhex(r.at("CT"));
        EXPECT_EQ(t.run(enc, iv, enc ? pt : ct), enc ? ct : pt) << file << " COUNT " << r.at("COUNT");
        ++n;
      }
    EXPECT_EQ(n, 1400u);
    EXPECT_EQ(e.qce().stats().requests + e.qce().stats().fallbacks, 1400u);
    EXPECT_GT(e.qce().stats().fallbacks, 200u);  // the partial blocks and the short or odd lengths
  });
}
