// The functional block ciphers (model/block_cipher.h) against NIST CAVP known-answer and
// multi-block vectors (AES ECB/CBC for 128/192/256-bit keys, 3DES and DES ECB/CBC, AES-XTS),
// SP 800-38A's CTR examples, and OpenSSL's own modes over random data fed in pieces (the
// chaining state carries between calls and is exported as the next IV).
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/aead_cipher.h"
#include "model/block_cipher.h"
#include "tests/emu_helpers.h"
#include "tests/process.h"
#include "tests/testdata.h"

using namespace qcesim;
using test::unhex;

namespace {

using test::iv16;

std::vector<std::uint8_t> run(const CipherSpec& s, const std::vector<std::uint8_t>& in) {
  std::vector<std::uint8_t> out(in.size());
  CipherStream c(s);
  c.update(in.data(), out.data(), in.size());
  return out;
}

// Every [ENCRYPT] and [DECRYPT] record of a CAVP file: the key (KEY, KEYs or KEY1..3), the IV if
// any, and the direction's input and output. Returns how many records were checked.
std::size_t check_rsp(const std::string& file, CipherAlg alg, CipherMode mode) {
  std::size_t n = 0;
  for (const test::RspRecord& r : test::parse_rsp(file)) {
    if (!r.fields.count("PLAINTEXT")) continue;
    CipherSpec s;
    s.alg = alg;
    s.mode = mode;
    if (r.fields.count("KEY")) {
      s.key = unhex(r.at("KEY"));
    } else if (r.fields.count("KEYs")) {
      s.key = unhex(r.at("KEYs") + r.at("KEYs") + r.at("KEYs"));
    } else {
      s.key = unhex(r.at("KEY1") + r.at("KEY2") + r.at("KEY3"));
    }
    if (r.fields.count("IV")) s.iv = iv16(unhex(r.at("IV")));
    s.encrypt = r.section == "ENCRYPT";
    const auto pt = unhex(r.at("PLAINTEXT")), ct = unhex(r.at("CIPHERTEXT"));
    EXPECT_EQ(run(s, s.encrypt ? pt : ct), s.encrypt ? ct : pt)
        << file << " " << r.section << " COUNT " << r.at("COUNT");
    ++n;
  }
  return n;
}

}  // namespace

TEST(BlockCipher, AesEcbAndCbcMatchEveryNistKnownAnswerAndMultiBlockVector) {
  std::size_t n = 0;
  for (const char* size : {"128", "192", "256"}) {
    for (const char* kind : {"GFSbox", "KeySbox", "VarKey", "VarTxt", "MMT"}) {
      n += check_rsp(std::string("aes-ecb/ECB") + kind + size + ".rsp", CipherAlg::aes, CipherMode::ecb);
      n += check_rsp(std::string("aes-cbc/CBC") + kind + size + ".rsp", CipherAlg::aes, CipherMode::cbc);
    }
  }
  EXPECT_GT(n, 4000u);
}

TEST(BlockCipher, TdesAndDesEcbAndCbcMatchEveryNistVector) {
  std::size_t n = 0;
  for (const char* kind : {"MMT1", "MMT2", "MMT3", "invperm", "permop", "subtab", "varkey", "vartext"}) {
    n += check_rsp(std::string("tdes/TECB") + kind + ".rsp", CipherAlg::tdes, CipherMode::ecb);
    n += check_rsp(std::string("tdes/TCBC") + kind + ".rsp", CipherAlg::tdes, CipherMode::cbc);
  }
  EXPECT_GT(n, 1000u);
  // Single DES is 3DES with three equal keys: TECBMMT1's keys are all equal.
  std::size_t des = 0;
  for (const test::RspRecord& r : test::parse_rsp("tdes/TECBMMT1.rsp")) {
    if (!r.fields.count("PLAINTEXT") || r.at("KEY1") != r.at("KEY2") || r.at("KEY2") != r.at("KEY3")) continue;
    CipherSpec s{CipherAlg::des, CipherMode::ecb, r.section == "ENCRYPT", unhex(r.at("KEY1")), {}, {}, 0};
    const auto pt = unhex(r.at("PLAINTEXT")), ct = unhex(r.at("CIPHERTEXT"));
    EXPECT_EQ(run(s, s.encrypt ? pt : ct), s.encrypt ? ct : pt);
    ++des;
  }
  EXPECT_GT(des, 10u);
}

TEST(BlockCipher, AesCtrMatchesSp80038A) {
  const auto doc = nlohmann::json::parse(test::slurp(test::testdata_path("aes-ctr/sp800-38a-f5-ctr.json")));
  std::size_t n = 0;
  for (const auto& v : doc["vectors"]) {
    CipherSpec s{CipherAlg::aes, CipherMode::ctr, true, unhex(v["key"]), {}, iv16(unhex(v["initial_counter"])), 0};
    const auto pt = unhex(v["plaintext"]), ct = unhex(v["ciphertext"]);
    EXPECT_EQ(run(s, pt), ct) << v["name"];
    s.encrypt = false;
    EXPECT_EQ(run(s, ct), pt) << v["name"];
    ++n;
  }
  EXPECT_EQ(n, 3u);
}

// Every byte-aligned XTS vector: whole 16-byte blocks, and those ending in a partial block
// (ciphertext stealing); the 600 bit-length records are left out (no byte API takes them).
TEST(BlockCipher, AesXtsMatchesEveryByteAlignedNistVector) {
  std::size_t n = 0, stolen = 0;
  for (const char* file : {"aes-xts/tweak-128hexstr/XTSGenAES128.rsp", "aes-xts/tweak-128hexstr/XTSGenAES256.rsp"}) {
    for (const test::RspRecord& r : test::parse_rsp(file)) {
      if (!r.fields.count("PT") || std::stoul(r.at("DataUnitLen")) % 8 != 0) continue;
      const auto key = unhex(r.at("Key"));
      const std::size_t half = key.size() / 2;
      CipherSpec s{CipherAlg::aes,
                   CipherMode::xts,
                   r.section == "ENCRYPT",
                   {key.begin(), key.begin() + static_cast<long>(half)},
                   {key.begin() + static_cast<long>(half), key.end()},
                   iv16(unhex(r.at("i"))),
                   0};
      const auto pt = unhex(r.at("PT")), ct = unhex(r.at("CT"));
      EXPECT_EQ(run(s, s.encrypt ? pt : ct), s.encrypt ? ct : pt) << file << " COUNT " << r.at("COUNT");
      // One data unit of its own length: OpenSSL's XTS path, stealing included.
      s.data_unit_bytes = static_cast<std::uint32_t>(pt.size());
      EXPECT_EQ(run(s, s.encrypt ? pt : ct), s.encrypt ? ct : pt)
          << file << " COUNT " << r.at("COUNT") << " (one unit)";
      stolen += pt.size() % 16 != 0;
      ++n;
    }
  }
  EXPECT_EQ(n, 1400u);
  EXPECT_EQ(stolen, 200u);
}

// Random data in random pieces against OpenSSL's own modes: the stream keeps its chaining
// state between calls, and its exported IV is what the next piece starts from.
TEST(BlockCipher, PiecesMatchOpenSslAndTheExportedIvContinuesTheStream) {
  std::mt19937_64 rng(11);
  auto bytes = [&](std::size_t n) {
    std::vector<std::uint8_t> v(n);
    for (auto& b : v) b = static_cast<std::uint8_t>(rng());
    return v;
  };
  struct Case {
    CipherMode mode;
    std::size_t key;
    const EVP_CIPHER* evp;
  };
  const Case cases[] = {{CipherMode::ecb, 16, EVP_aes_128_ecb()}, {CipherMode::cbc, 32, EVP_aes_256_cbc()},
                        {CipherMode::ctr, 16, EVP_aes_128_ctr()}, {CipherMode::ctr, 32, EVP_aes_256_ctr()},
                        {CipherMode::xts, 32, EVP_aes_256_xts()}, {CipherMode::cbc, 16, EVP_aes_128_cbc()}};
  for (const Case& c : cases) {
    for (bool enc : {true, false}) {
      const std::size_t len = 4096;
      const auto key = bytes(c.key), key2 = bytes(c.key), in = bytes(len);
      CipherSpec s{CipherAlg::aes,  c.mode, enc, key, c.mode == CipherMode::xts ? key2 : std::vector<std::uint8_t>{},
                   iv16(bytes(16)), 0};
      // OpenSSL's answer in one call.
      std::vector<std::uint8_t> full = key;
      if (c.mode == CipherMode::xts) full.insert(full.end(), key2.begin(), key2.end());
      EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
      ASSERT_EQ(EVP_CipherInit_ex(ctx, c.evp, nullptr, full.data(), s.iv.data(), enc ? 1 : 0), 1);
      EVP_CIPHER_CTX_set_padding(ctx, 0);
      std::vector<std::uint8_t> want(len);
      int outl = 0;
      ASSERT_EQ(EVP_CipherUpdate(ctx, want.data(), &outl, in.data(), static_cast<int>(len)), 1);
      EVP_CIPHER_CTX_free(ctx);
      // Ours in pieces of whole blocks (XTS: one call, a data unit is the whole request).
      std::vector<std::uint8_t> got(len);
      CipherStream st(s);
      std::size_t off = 0;
      while (off < len) {
        const std::size_t n = c.mode == CipherMode::xts ? len : std::min<std::size_t>(len - off, 16 * (1 + rng() % 40));
        st.update(in.data() + off, got.data() + off, n);
        off += n;
      }
      EXPECT_EQ(got, want) << cipher_mode_name(c.mode) << " " << c.key << (enc ? " enc" : " dec");
      // A fresh stream from the exported IV continues where this one stopped.
      if (c.mode == CipherMode::cbc || c.mode == CipherMode::ctr) {
        CipherSpec s2 = s;
        s2.iv = st.iv();
        const auto more = bytes(64);
        std::vector<std::uint8_t> a(64), b(64);
        CipherStream(s2).update(more.data(), a.data(), 64);
        st.update(more.data(), b.data(), 64);
        EXPECT_EQ(a, b) << cipher_mode_name(c.mode);
      }
    }
  }
}

// CTR: 499 bytes (31 blocks + 3) leave the counter at IV + 31 (the partial block's keystream is
// used, the counter not advanced), carried across bytes (all 128 bits count); CBC's exported IV
// is the last ciphertext block.
TEST(BlockCipher, CtrPartialBlockAndCbcNextIv) {
  CipherSpec s{CipherAlg::aes, CipherMode::ctr, true, std::vector<std::uint8_t>(16, 7), {}, {}, 0};
  s.iv[15] = 0xf0;
  std::vector<std::uint8_t> in(499, 1), out(499);
  CipherStream c(s);
  c.update(in.data(), out.data(), in.size());
  EXPECT_EQ(c.iv()[15], 0x0f);  // 0xf0 + 31 = 0x10f
  EXPECT_EQ(c.iv()[14], 0x01);
  EXPECT_EQ(c.iv()[13], 0x00);
  CipherSpec b{CipherAlg::aes, CipherMode::cbc, true, std::vector<std::uint8_t>(32, 3), {}, {}, 0};
  std::vector<std::uint8_t> p(64, 9), q(64);
  CipherStream cb(b);
  cb.update(p.data(), q.data(), 64);
  EXPECT_TRUE(std::equal(q.end() - 16, q.end(), cb.iv().begin()));
}

// XTS with data units: each unit uses its own tweak (i, i + 1, ...), as two separate requests would.
TEST(BlockCipher, XtsDataUnitsAreSeparateTweaks) {
  CipherSpec s{CipherAlg::aes,
               CipherMode::xts,
               true,
               std::vector<std::uint8_t>(32, 1),
               std::vector<std::uint8_t>(32, 2),
               {},
               512};
  s.iv[0] = 5;
  std::vector<std::uint8_t> in(2048), out(2048);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint8_t>(i * 13);
  CipherStream(s).update(in.data(), out.data(), in.size());
  for (unsigned u = 0; u < 4; ++u) {
    CipherSpec one = s;
    one.data_unit_bytes = 0;
    one.iv[0] = static_cast<std::uint8_t>(5 + u);
    std::vector<std::uint8_t> part(in.begin() + 512 * u, in.begin() + 512 * (u + 1));
    EXPECT_EQ(run(one, part), std::vector<std::uint8_t>(out.begin() + 512 * u, out.begin() + 512 * (u + 1))) << u;
  }
}

TEST(BlockCipher, BadSpecsAreRefusedWithWhatWasExpected) {
  EXPECT_EQ(check_cipher_spec({CipherAlg::aes, CipherMode::cbc, true, std::vector<std::uint8_t>(20), {}, {}, 0}),
            "an AES key of 16, 24 or 32 bytes");
  EXPECT_EQ(check_cipher_spec({CipherAlg::tdes, CipherMode::cbc, true, std::vector<std::uint8_t>(16), {}, {}, 0}),
            "a 3DES key of 24 bytes");
  EXPECT_EQ(
      check_cipher_spec(
          {CipherAlg::aes, CipherMode::xts, true, std::vector<std::uint8_t>(16), std::vector<std::uint8_t>(32), {}, 0}),
      "an XTS tweak key as long as the data key");
  EXPECT_EQ(check_cipher_spec({CipherAlg::des, CipherMode::ctr, true, std::vector<std::uint8_t>(8), {}, {}, 0}),
            "CTR with AES only");
  CipherStream cbc({CipherAlg::aes, CipherMode::cbc, true, std::vector<std::uint8_t>(16), {}, {}, 0});
  std::uint8_t buf[17] = {};
  EXPECT_THROW(cbc.update(buf, buf, 17), std::invalid_argument);
  EXPECT_THROW(CipherStream({CipherAlg::aes, CipherMode::ecb, true, std::vector<std::uint8_t>(15), {}, {}, 0}),
               std::invalid_argument);
}

// The software AEADs (model/aead_cipher.h): every NIST CCM record (1920, partial payloads and the
// 6-byte length header's neighbour included), decryption-verification Fail records refused.
TEST(BlockCipher, SoftwareAeadEveryNistCcmRecord) {
  std::size_t n = 0, fails = 0;
  for (const char* f : test::kCcmFiles) {
    for (const test::CcmCase& c : test::ccm_cases(f)) {
      std::array<std::uint8_t, 16> iv{};
      iv[0] = static_cast<std::uint8_t>(14 - c.nonce.size());
      std::copy(c.nonce.begin(), c.nonce.end(), iv.begin() + 1);
      if (!c.decrypt_test) {
        EXPECT_EQ(ccm_encrypt(c.key, iv, c.adata, c.payload, c.tlen), c.ct) << c.file << " " << c.count;
      }
      const auto pt = ccm_decrypt(c.key, iv, c.adata, c.ct, c.tlen);
      if (c.pass) {
        EXPECT_EQ(pt, c.payload) << c.file << " " << c.count;
      } else {
        EXPECT_FALSE(pt) << c.file << " " << c.count;
        ++fails;
      }
      ++n;
    }
  }
  EXPECT_EQ(n, 1920u);
  EXPECT_EQ(fails, 2u * 160u);  // DVPT: two thirds of its 240 records per file are Fail
}

// authenc against OpenSSL composed (CBC, then HMAC over assoc || ciphertext), and CCM against
// OpenSSL's EVP CCM over partial payloads and long associated data.
TEST(BlockCipher, SoftwareAeadMatchesOpenSsl) {
  unsigned seed = 40;
  for (unsigned i = 0; i < 12; ++i) {
    const auto key = test::random_bytes(i % 2 ? 32 : 16, seed++), hkey = test::random_bytes(20 + i * 7, seed++);
    const auto ivb = test::random_bytes(16, seed++), assoc = test::random_bytes(i * 9, seed++);
    std::array<std::uint8_t, 16> iv{};
    std::copy(ivb.begin(), ivb.end(), iv.begin());
    const auto pt = test::random_bytes(16 * (1 + i * 5), seed++);
    auto ct = test::openssl_cipher(i % 2 ? EVP_aes_256_cbc() : EVP_aes_128_cbc(), true, key, ivb, pt);
    std::vector<std::uint8_t> m = assoc;
    m.insert(m.end(), ct.begin(), ct.end());
    auto tag = test::openssl_hmac(HashAlg::sha256, hkey, m);
    tag.resize(16 + i);
    const auto got = authenc_encrypt(CipherAlg::aes, HashAlg::sha256, key, hkey, iv, assoc, pt, 16 + i);
    ct.insert(ct.end(), tag.begin(), tag.end());
    EXPECT_EQ(got, ct) << i;
    EXPECT_EQ(authenc_decrypt(CipherAlg::aes, HashAlg::sha256, key, hkey, iv, assoc, got, 16 + i), pt) << i;
    auto bad = got;
    bad[0] ^= 1;
    EXPECT_FALSE(authenc_decrypt(CipherAlg::aes, HashAlg::sha256, key, hkey, iv, assoc, bad, 16 + i)) << i;

    const auto nonce = test::random_bytes(7 + i % 7, seed++);
    std::array<std::uint8_t, 16> civ{};
    civ[0] = static_cast<std::uint8_t>(14 - nonce.size());
    std::copy(nonce.begin(), nonce.end(), civ.begin() + 1);
    const auto cpt = test::random_bytes(i * 13 + 1, seed++);
    const auto cassoc = test::random_bytes(i == 11 ? 0xff00 : i * 5, seed++);
    EXPECT_EQ(ccm_encrypt(key, civ, cassoc, cpt, 4 + 2 * (i % 7)),
              test::openssl_ccm_encrypt(key, nonce, cassoc, cpt, 4 + 2 * (i % 7)))
        << i;
  }
}
