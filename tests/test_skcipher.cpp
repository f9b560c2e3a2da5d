// skcipher requests through the driver (drivers/crypto/qce/skcipher.*), the BAM and the engine,
// in both register-I/O modes: NIST vectors, OpenSSL over random data with the IV chained from
// one request to the next through the result dump, the register writes and descriptors the
// reference counts, and setkey's refusals.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstring>

#include "drivers/crypto/qce/skcipher.h"
#include "tests/emu_helpers.h"
#include "tests/testdata.h"

using namespace qcesim;
using namespace qcesim::qce;

namespace {

std::vector<std::uint8_t> through_driver(soc::Emulator& e, CipherAlg alg, CipherMode mode, bool enc,
                                         const std::vector<std::uint8_t>& key, std::array<std::uint8_t, 16>& iv,
                                         const std::vector<std::uint8_t>& in, std::uint32_t request_bytes = 0) {
  QceSkcipher tfm(e.qce(), e.task(), alg, mode);
  const std::string why = tfm.setkey(key);
  EXPECT_EQ(why, "");
  cpu::DmaBuf b = test::load(e.host(), in);
  const auto len = static_cast<std::uint32_t>(in.size());
  const std::uint32_t step = request_bytes ? request_bytes : len;
  for (std::uint32_t off = 0; off < len; off += step)
    tfm.crypt(enc, iv, b.addr + off, b.addr + off, std::min(step, len - off));  // in place
  return {b.ptr, b.ptr + len};
}

using test::iv16;

void nist_through_driver(RegIo io) {
  test::with_emulator(io, [](soc::Emulator& e) {
    std::size_t n = 0;
    struct File {
      const char* path;
      CipherAlg alg;
      CipherMode mode;
    };
    for (const File& f : {File{"aes-cbc/CBCMMT128.rsp", CipherAlg::aes, CipherMode::cbc},
                          File{"aes-cbc/CBCMMT256.rsp", CipherAlg::aes, CipherMode::cbc},
                          File{"aes-ecb/ECBMMT256.rsp", CipherAlg::aes, CipherMode::ecb},
                          File{"tdes/TCBCMMT3.rsp", CipherAlg::tdes, CipherMode::cbc},
                          File{"tdes/TECBMMT3.rsp", CipherAlg::tdes, CipherMode::ecb}}) {
      for (const test::RspRecord& r : test::parse_rsp(f.path)) {
        if (!r.fields.count("PLAINTEXT")) continue;
        const auto key =
            r.fields.count("KEY") ? test::unhex(r.at("KEY")) : test::unhex(r.at("KEY1") + r.at("KEY2") + r.at("KEY3"));
        auto iv = iv16(r.fields.count("IV") ? test::unhex(r.at("IV")) : std::vector<std::uint8_t>{});
        const bool enc = r.section == "ENCRYPT";
        const auto pt = test::unhex(r.at("PLAINTEXT")), ct = test::unhex(r.at("CIPHERTEXT"));
        EXPECT_EQ(through_driver(e, f.alg, f.mode, enc, key, iv, enc ? pt : ct), enc ? ct : pt)
            << f.path << " " << r.at("COUNT");
        ++n;
      }
    }
    EXPECT_EQ(n, 100u);  // 20 records each
  });
}

void chained_requests_match_openssl(RegIo io) {
  test::with_emulator(io, [](soc::Emulator& e) {
    struct Case {
      CipherMode mode;
      std::size_t key;
      const EVP_CIPHER* evp;
    };
    unsigned seed = 1;
    for (const Case& c : {Case{CipherMode::cbc, 16, EVP_aes_128_cbc()}, Case{CipherMode::cbc, 32, EVP_aes_256_cbc()},
                          Case{CipherMode::ctr, 16, EVP_aes_128_ctr()}, Case{CipherMode::ctr, 32, EVP_aes_256_ctr()}}) {
      for (bool enc : {true, false}) {
        const auto key = test::random_bytes(c.key, seed++), in = test::random_bytes(8192, seed++);
        const auto iv0 = iv16(test::random_bytes(16, seed++));
        auto iv = iv0;
        // Eight requests of 1 KiB: each starts from the IV the engine dumped for the one before.
        EXPECT_EQ(through_driver(e, CipherAlg::aes, c.mode, enc, key, iv, in, 1024),
                  test::openssl_cipher(c.evp, enc, key, {iv0.begin(), iv0.end()}, in))
            << cipher_mode_name(c.mode) << c.key << (enc ? " enc" : " dec");
      }
    }
    // XTS: one data unit per request (ENCR_XTS_DU_SIZE = cryptlen), 4 KiB sectors.
    for (bool enc : {true, false}) {
      const auto key = test::random_bytes(64, seed++), in = test::random_bytes(4096, seed++);
      auto iv = iv16(test::random_bytes(16, seed++));
      const auto iv0 = iv;
      EXPECT_EQ(through_driver(e, CipherAlg::aes, CipherMode::xts, enc, key, iv, in),
                test::openssl_cipher(EVP_aes_256_xts(), enc, key, {iv0.begin(), iv0.end()}, in));
    }
  });
}

}  // namespace

TEST(Skcipher, NistVectorsThroughTheDriver_mmio) { nist_through_driver(RegIo::mmio); }
TEST(Skcipher, NistVectorsThroughTheDriver_bam) { nist_through_driver(RegIo::bam); }
TEST(Skcipher, ChainedRequestsMatchOpenSsl_mmio) { chained_requests_match_openssl(RegIo::mmio); }
TEST(Skcipher, ChainedRequestsMatchOpenSsl_bam) { chained_requests_match_openssl(RegIo::bam); }

// qce_setup_regs_skcipher's writes per request (linux-qce-cipher.md 3.2) and the descriptors of
// a 4096-byte request in one buffer: rx 1 (data), tx 2 (data, result dump).
TEST(Skcipher, RegisterWritesAndDescriptorsAreTheKernels) {
  test::with_emulator(RegIo::mmio, [](soc::Emulator& e) {
    struct Case {
      CipherAlg alg;
      CipherMode mode;
      std::size_t key;
      std::uint64_t writes;
    };
    const std::uint32_t rx = e.qce().config().rx_pipe, tx = e.qce().config().tx_pipe;
    for (const Case& c :
         {Case{CipherAlg::aes, CipherMode::ecb, 16, 13}, Case{CipherAlg::aes, CipherMode::ecb, 32, 17},
          Case{CipherAlg::aes, CipherMode::cbc, 16, 17}, Case{CipherAlg::aes, CipherMode::cbc, 32, 21},
          Case{CipherAlg::aes, CipherMode::ctr, 16, 21}, Case{CipherAlg::aes, CipherMode::ctr, 32, 25},
          Case{CipherAlg::aes, CipherMode::xts, 32, 22}, Case{CipherAlg::aes, CipherMode::xts, 64, 30},
          Case{CipherAlg::des, CipherMode::ecb, 8, 11}, Case{CipherAlg::des, CipherMode::cbc, 8, 13},
          Case{CipherAlg::tdes, CipherMode::ecb, 24, 15}, Case{CipherAlg::tdes, CipherMode::cbc, 24, 17}}) {
      const std::uint64_t w0 = e.qce().stats().reg_writes;
      const std::uint64_t rx0 = e.soc().bam.pipe_stats(rx).descriptors, tx0 = e.soc().bam.pipe_stats(tx).descriptors;
      std::array<std::uint8_t, 16> iv{};
      std::vector<std::uint8_t> key = test::random_bytes(c.key, 3);
      through_driver(e, c.alg, c.mode, true, key, iv, test::random_bytes(4096, 4));
      EXPECT_EQ(e.qce().stats().reg_writes - w0, c.writes) << skcipher_name(c.alg, c.mode) << " " << c.key;
      EXPECT_EQ(e.soc().bam.pipe_stats(rx).descriptors - rx0, 1u);
      EXPECT_EQ(e.soc().bam.pipe_stats(tx).descriptors - tx0, 2u);
    }
  });
}

// setkey refuses what the engine cannot run, naming what it wants; ECB/CBC over a partial block
// is -EINVAL; zero bytes do nothing.
TEST(Skcipher, SetkeyAndLengthRefusals) {
  test::with_emulator(RegIo::mmio, [](soc::Emulator& e) {
    QceSkcipher aes(e.qce(), e.task(), CipherAlg::aes, CipherMode::cbc);
    EXPECT_NE(aes.setkey(std::vector<std::uint8_t>(24, 1)).find("no AES-192"), std::string::npos);
    EXPECT_NE(aes.setkey(std::vector<std::uint8_t>(20, 1)).find("16, 24 or 32"), std::string::npos);
    QceSkcipher xts(e.qce(), e.task(), CipherAlg::aes, CipherMode::xts);
    EXPECT_NE(xts.setkey(std::vector<std::uint8_t>(64, 5)).find("different XTS key halves"), std::string::npos);
    QceSkcipher tdes(e.qce(), e.task(), CipherAlg::tdes, CipherMode::cbc);
    std::vector<std::uint8_t> k = test::random_bytes(24, 9);
    std::copy(k.begin(), k.begin() + 8, k.begin() + 16);  // K3 = K1
    EXPECT_NE(tdes.setkey(k).find("three different"), std::string::npos);
    EXPECT_EQ(aes.setkey(std::vector<std::uint8_t>(16, 1)), "");
    cpu::DmaBuf b = test::load(e.host(), std::vector<std::uint8_t>(32, 0));
    std::array<std::uint8_t, 16> iv{};
    EXPECT_THROW(aes.crypt(true, iv, b.addr, b.addr, 17), QceError);
    const std::uint64_t before = e.qce().stats().requests;
    aes.crypt(true, iv, b.addr, b.addr, 0);
    EXPECT_EQ(e.qce().stats().requests, before);
  });
}
