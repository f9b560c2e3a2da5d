// The engine's cipher part programmed by hand, below any driver: registers written over MMIO
// in qce_setup_regs_skcipher's order and byte orders, data through a consumer pipe, output and
// result dump through the producer pipe (pipe set 3, EE 2), checked against OpenSSL's modes
// (independent of model/block_cipher) and NIST vectors, with the engine's quirks.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstring>

#include "model/byte_order.h"
#include "qce/regs_v5.h"
#include "tests/emu_helpers.h"
#include "tests/raw_bam.h"
#include "tests/testdata.h"

using namespace qcesim;
using namespace qcesim::qce;
using test::RawPipe;
using test::settle;

namespace {

constexpr unsigned kPipeSet = 3;  // pipes 6 (in) and 7 (out): Linux's pipe set 2 stays untouched

struct Job {
  std::uint32_t encr_cfg = 0;
  std::vector<std::uint8_t> key, xts_key, iv;  // bytes as the crypto API has them
  std::vector<std::uint8_t> in;
  std::uint32_t du_size = 0;  // XTS: ENCR_XTS_DU_SIZE (0: the length)
};

struct Outcome {
  std::vector<std::uint8_t> out;
  std::array<std::uint8_t, 16> next_iv{};  // the dump's encr_cntr_iv
  std::uint32_t status = 0;
  bool dumped = false;
};

// qce_setup_regs_skcipher by hand (linux-qce-cipher.md section 3), then the pipes.
Outcome run_engine(soc::Emulator& e, const Job& j) {
  auto& h = e.host();
  const std::uint64_t q = e.soc().cfg.map.qce_base;
  auto w = [&](std::uint32_t off, std::uint32_t v) { h.writel(q + off, v); };
  const std::uint32_t mode = (j.encr_cfg >> ENCR_MODE_SHIFT) & 0xF;
  const std::uint32_t config = (7u << REQ_SIZE_SHIFT) | MASK_DOUT_INTR | MASK_DIN_INTR | MASK_OP_DONE_INTR |
                               MASK_ERR_INTR | (kPipeSet << PIPE_SET_SELECT_SHIFT);
  const auto len = static_cast<std::uint32_t>(j.in.size());
  w(REG_STATUS, 0);
  w(REG_CONFIG, config);
  w(REG_AUTH_SEG_CFG, 0);
  if (mode == ENCR_MODE_XTS) {
    for (std::size_t i = 0; i < j.xts_key.size(); i += 4)
      w(REG_ENCR_XTS_KEY0 + static_cast<std::uint32_t>(i), load_be32(j.xts_key.data() + i));
    w(REG_ENCR_XTS_DU_SIZE, j.du_size ? j.du_size : len);
  }
  for (std::size_t i = 0; i < j.key.size(); i += 4)
    w(REG_ENCR_KEY0 + static_cast<std::uint32_t>(i), load_be32(j.key.data() + i));
  if (!j.iv.empty()) {
    // qce_xts_swapiv: the tweak's bytes reversed, right-aligned; others as they are.
    std::vector<std::uint8_t> iv = j.iv;
    if (mode == ENCR_MODE_XTS) std::reverse(iv.begin(), iv.end());
    for (std::size_t i = 0; i < iv.size(); i += 4)
      w(REG_CNTR0_IV0 + static_cast<std::uint32_t>(i), load_be32(iv.data() + i));
  }
  w(REG_ENCR_SEG_CFG, j.encr_cfg);
  w(REG_ENCR_SEG_SIZE, len);
  w(REG_ENCR_SEG_START, 0);
  if (mode == ENCR_MODE_CTR)
    for (std::uint32_t m : {REG_CNTR_MASK, REG_CNTR_MASK0, REG_CNTR_MASK1, REG_CNTR_MASK2}) w(m, ~0u);
  w(REG_SEG_SIZE, len);
  w(REG_CONFIG, config | LITTLE_ENDIAN_MODE);
  w(REG_GOPROC, GO | RESULTS_DUMP);

  RawPipe in(e, 2 * kPipeSet), out(e, 2 * kPipeSet + 1);
  in.init();
  out.init(true);
  const cpu::DmaBuf src = test::load(h, j.in);
  const cpu::DmaBuf dst = h.dma_alloc(len, 64), dump = h.dma_alloc(QCE_RESULT_BUF_SZ, 64);
  std::memset(dump.ptr, 0, QCE_RESULT_BUF_SZ);
  out.put(0, {static_cast<std::uint32_t>(dst.addr), static_cast<std::uint16_t>(len), 0});
  out.put(1,
          {static_cast<std::uint32_t>(dump.addr), static_cast<std::uint16_t>(QCE_RESULT_BUF_SZ), bam::DESC_FLAG_EOT});
  out.doorbell(16);
  in.put(0, {static_cast<std::uint32_t>(src.addr), static_cast<std::uint16_t>(len), bam::DESC_FLAG_EOT});
  in.doorbell(8);
  settle();
  Outcome o;
  o.out.assign(dst.ptr, dst.ptr + len);
  std::memcpy(o.next_iv.data(), dump.ptr + DUMP_ENCR_CNTR_IV, 16);
  o.status = h.readl(q + REG_STATUS);
  o.dumped = out.sw_ofsts() == 16;
  return o;
}

std::uint32_t cfg(std::uint32_t alg, std::uint32_t key_sz, std::uint32_t mode, bool enc) {
  return (alg << ENCR_ALG_SHIFT) | (key_sz << ENCR_KEY_SZ_SHIFT) | (mode << ENCR_MODE_SHIFT) | (enc ? ENCODE : 0);
}

using test::cat;

}  // namespace

// Every AES mode and key size the engine has, both directions, 4 KiB, against OpenSSL; the
// driver's ENCR_SEG_CFG values (linux-qce-cipher.md 3.3) select them.
TEST(QceCipher, AesModesMatchOpenSsl) {
  test::with_emulator(RegIo::mmio, [](soc::Emulator& e) {
    struct Case {
      std::uint32_t mode;
      std::size_t key;
      const EVP_CIPHER* evp;
    };
    const Case cases[] = {{ENCR_MODE_ECB, 16, EVP_aes_128_ecb()}, {ENCR_MODE_ECB, 32, EVP_aes_256_ecb()},
                          {ENCR_MODE_CBC, 16, EVP_aes_128_cbc()}, {ENCR_MODE_CBC, 32, EVP_aes_256_cbc()},
                          {ENCR_MODE_CTR, 16, EVP_aes_128_ctr()}, {ENCR_MODE_CTR, 32, EVP_aes_256_ctr()},
                          {ENCR_MODE_XTS, 16, EVP_aes_128_xts()}, {ENCR_MODE_XTS, 32, EVP_aes_256_xts()}};
    unsigned seed = 1;
    for (const Case& c : cases) {
      for (bool enc : {true, false}) {
        Job j;
        j.key = test::random_bytes(c.key, seed++);
        if (c.mode == ENCR_MODE_XTS) j.xts_key = test::random_bytes(c.key, seed++);
        if (c.mode != ENCR_MODE_ECB) j.iv = test::random_bytes(16, seed++);
        j.in = test::random_bytes(4096, seed++);
        j.encr_cfg = cfg(ENCR_ALG_AES, c.key == 32 ? ENCR_KEY_SZ_AES256 : ENCR_KEY_SZ_AES128, c.mode, enc);
        const Outcome o = run_engine(e, j);
        const auto want =
            test::openssl_cipher(c.evp, enc, c.mode == ENCR_MODE_XTS ? cat(j.key, j.xts_key) : j.key, j.iv, j.in);
        EXPECT_EQ(o.out, want) << "mode " << c.mode << " key " << c.key << (enc ? " enc" : " dec");
        EXPECT_TRUE(o.status & OPERATION_DONE);
        EXPECT_FALSE(o.status & SW_ERR);
        EXPECT_TRUE(o.dumped);
        // The dump's encr_cntr_iv is the next IV: CBC the last ciphertext block, CTR IV + 256 blocks.
        if (c.mode == ENCR_MODE_CBC) {
          const auto& ct = enc ? o.out : j.in;
          EXPECT_TRUE(std::equal(ct.end() - 16, ct.end(), o.next_iv.begin()));
        }
        if (c.mode == ENCR_MODE_CTR) {
          std::vector<std::uint8_t> next = j.iv;
          for (int k = 0; k < 256; ++k)
            for (std::size_t b = 16; b-- > 0;)
              if (++next[b] != 0) break;
          EXPECT_TRUE(std::equal(next.begin(), next.end(), o.next_iv.begin()));
        }
      }
    }
  });
}

// DES and 3DES, ECB and CBC (8-byte blocks; the IV in CNTR0_IV0 and CNTR1_IV1).
TEST(QceCipher, DesAndTdesMatchOpenSsl) {
  test::with_emulator(RegIo::mmio, [](soc::Emulator& e) {
    unsigned seed = 100;
    for (bool tdes : {false, true}) {
      for (std::uint32_t mode : {ENCR_MODE_ECB, ENCR_MODE_CBC}) {
        for (bool enc : {true, false}) {
          Job j;
          j.key = test::random_bytes(tdes ? 24 : 8, seed++);
          if (mode == ENCR_MODE_CBC) j.iv = test::random_bytes(8, seed++);
          j.in = test::random_bytes(1024, seed++);
          j.encr_cfg = cfg(ENCR_ALG_DES, tdes ? ENCR_KEY_SZ_3DES : ENCR_KEY_SZ_DES, mode, enc);
          // Single DES is EDE with three equal keys (OpenSSL 3 keeps DES itself in its legacy provider).
          const auto k3 = tdes ? j.key : cat(cat(j.key, j.key), j.key);
          const auto want = test::openssl_cipher(mode == ENCR_MODE_CBC ? EVP_des_ede3_cbc() : EVP_des_ede3_ecb(), enc,
                                                 k3, j.iv, j.in);
          EXPECT_EQ(run_engine(e, j).out, want)
              << (tdes ? "3DES" : "DES") << " mode " << mode << (enc ? " enc" : " dec");
        }
      }
    }
  });
}

// A NIST XTS vector through the engine: the driver's byte-reversed tweak in CNTRn_IVn is read
// back as IEEE 1619's little-endian i.
TEST(QceCipher, XtsNistVectorThroughTheEngine) {
  test::with_emulator(RegIo::mmio, [](soc::Emulator& e) {
    std::size_t n = 0;
    for (const test::RspRecord& r : test::parse_rsp("aes-xts/tweak-128hexstr/XTSGenAES256.rsp")) {
      if (!r.fields.count("PT") || r.at("DataUnitLen") != "256" || n == 5) continue;
      const auto key = test::unhex(r.at("Key"));
      Job j;
      j.key.assign(key.begin(), key.begin() + 32);
      j.xts_key.assign(key.begin() + 32, key.end());
      j.iv = test::unhex(r.at("i"));
      const bool enc = r.section == "ENCRYPT";
      j.in = test::unhex(enc ? r.at("PT") : r.at("CT"));
      j.encr_cfg = cfg(ENCR_ALG_AES, ENCR_KEY_SZ_AES256, ENCR_MODE_XTS, enc);
      EXPECT_EQ(run_engine(e, j).out, test::unhex(enc ? r.at("CT") : r.at("PT"))) << r.at("COUNT");
      ++n;
    }
    EXPECT_EQ(n, 5u);
  });
}

// CTR over 499 bytes (31 blocks + 3): the partial block uses the current counter's keystream and
// the counter stays at IV + 31 (one reading of the hardware; linux-qce-cipher.md section 5).
TEST(QceCipher, CtrPartialBlockCompletesWithoutAdvancingTheCounter) {
  test::with_emulator(RegIo::mmio, [](soc::Emulator& e) {
    Job j;
    j.key = test::random_bytes(16, 7);
    j.iv = std::vector<std::uint8_t>(16, 0);
    j.in = test::random_bytes(499, 8);
    j.encr_cfg = cfg(ENCR_ALG_AES, ENCR_KEY_SZ_AES128, ENCR_MODE_CTR, true);
    const Outcome o = run_engine(e, j);
    EXPECT_EQ(o.out, test::openssl_cipher(EVP_aes_128_ctr(), true, j.key, j.iv, j.in));
    EXPECT_TRUE(o.status & OPERATION_DONE);
    EXPECT_EQ(o.next_iv[15], 31);
  });
}

// XTS over a length that is not whole data units (ENCR_XTS_DU_SIZE 512, 1040 bytes) hangs the
// engine, as the 2020 IPQ40xx driver found: the data is taken, no OPERATION_DONE, no dump; only
// CLR_CNTXT ends it.
TEST(QceCipher, XtsLengthNotWholeDataUnitsHangsTheEngine) {
  test::with_emulator(RegIo::mmio, [](soc::Emulator& e) {
    Job j;
    j.key = test::random_bytes(16, 1);
    j.xts_key = test::random_bytes(16, 2);
    j.iv = test::random_bytes(16, 3);
    j.in = test::random_bytes(1040, 4);
    j.du_size = 512;
    j.encr_cfg = cfg(ENCR_ALG_AES, ENCR_KEY_SZ_AES128, ENCR_MODE_XTS, true);
    const Outcome o = run_engine(e, j);
    EXPECT_FALSE(o.status & OPERATION_DONE);
    EXPECT_FALSE(o.dumped);
    EXPECT_TRUE(e.soc().qce.busy());
    EXPECT_NE(e.soc().qce.last_error().find("data units"), std::string::npos) << e.soc().qce.last_error();
    e.host().writel(e.soc().cfg.map.qce_base + REG_GOPROC, CLR_CNTXT);
    settle();
    EXPECT_FALSE(e.soc().qce.busy());
  });
}

// Misprogramming sets SW_ERR at GO and moves nothing: CBC over a partial block, a cipher with
// ENCR_SEG_SIZE beyond SEG_SIZE, CTR with partial counter masks.
TEST(QceCipher, MisprogrammedCiphersAreRejectedWithSwErr) {
  test::with_emulator(RegIo::mmio, [](soc::Emulator& e) {
    Job j;
    j.key = test::random_bytes(16, 1);
    j.iv = test::random_bytes(16, 2);
    j.in = test::random_bytes(17, 3);
    j.encr_cfg = cfg(ENCR_ALG_AES, ENCR_KEY_SZ_AES128, ENCR_MODE_CBC, true);
    Outcome o = run_engine(e, j);
    EXPECT_TRUE(o.status & SW_ERR);
    EXPECT_FALSE(o.status & OPERATION_DONE);
    EXPECT_NE(e.soc().qce.last_error().find("whole 16-byte blocks"), std::string::npos) << e.soc().qce.last_error();
    EXPECT_FALSE(e.soc().qce.busy());
  });
}

// With nobody taking the output, the engine stops taking input once its output FIFO holds 64 KiB
// (one delivery may overshoot it); when the producer pipe drains it, the rest flows and the
// result is whole.
TEST(QceCipher, OutputBackPressureHoldsTheInputUntilTheProducerDrains) {
  test::with_emulator(RegIo::mmio, [](soc::Emulator& e) {
    auto& h = e.host();
    const std::uint64_t q = e.soc().cfg.map.qce_base;
    auto w = [&](std::uint32_t off, std::uint32_t v) { h.writel(q + off, v); };
    const std::uint32_t len = 256u << 10;
    const auto key = test::random_bytes(16, 1), data = test::random_bytes(len, 2);
    const std::uint32_t config = (7u << REQ_SIZE_SHIFT) | (kPipeSet << PIPE_SET_SELECT_SHIFT) | LITTLE_ENDIAN_MODE;
    w(REG_CONFIG, config);
    w(REG_AUTH_SEG_CFG, 0);
    for (std::size_t i = 0; i < 16; i += 4) w(REG_ENCR_KEY0 + static_cast<std::uint32_t>(i), load_be32(key.data() + i));
    w(REG_ENCR_SEG_CFG, cfg(ENCR_ALG_AES, ENCR_KEY_SZ_AES128, ENCR_MODE_ECB, true));
    w(REG_ENCR_SEG_SIZE, len);
    w(REG_ENCR_SEG_START, 0);
    w(REG_SEG_SIZE, len);
    w(REG_GOPROC, GO | RESULTS_DUMP);
    RawPipe in(e, 2 * kPipeSet), out(e, 2 * kPipeSet + 1);
    in.init();
    out.init(true);
    const cpu::DmaBuf src = test::load(h, data), dst = h.dma_alloc(len, 64), dump = h.dma_alloc(QCE_RESULT_BUF_SZ, 64);
    const std::uint32_t chunk = 16384;
    for (std::uint32_t i = 0; i < len / chunk; ++i)
      in.put(i, {static_cast<std::uint32_t>(src.addr + i * chunk), static_cast<std::uint16_t>(chunk), 0});
    in.doorbell(8 * (len / chunk));
    settle();
    const std::uint64_t taken = e.soc().qce.stats().bytes_in;
    EXPECT_GE(taken, 64u << 10);
    EXPECT_LE(taken, (64u << 10) + chunk);
    for (std::uint32_t i = 0; i < len / chunk; ++i)
      out.put(i, {static_cast<std::uint32_t>(dst.addr + i * chunk), static_cast<std::uint16_t>(chunk), 0});
    out.put(len / chunk,
            {static_cast<std::uint32_t>(dump.addr), static_cast<std::uint16_t>(QCE_RESULT_BUF_SZ), bam::DESC_FLAG_EOT});
    out.doorbell(8 * (len / chunk + 1));
    settle();
    EXPECT_EQ(e.soc().qce.stats().bytes_in, len);
    EXPECT_TRUE(h.readl(q + REG_STATUS) & OPERATION_DONE);
    EXPECT_EQ(std::vector<std::uint8_t>(dst.ptr, dst.ptr + len),
              test::openssl_cipher(EVP_aes_128_ecb(), true, key, {}, data));
  });
}

// Timed: the cipher core paces the data (a 64-byte burst every 4 AES blocks), so 4 KiB of
// AES-128 at 0.25 us per block takes the core's 64 us, AES-256 at 0.35 us its 89.6 us, plus the
// engine's finish for a cipher alone (finish_cipher, not the hash's finish), whatever the BAM's
// faster bursts.
TEST(QceCipher, TheCipherCorePacesATimedOperation) {
  soc::EmulatorConfig ec;
  ec.soc.bam.burst = sc_core::sc_time(0.1, sc_core::SC_US);
  ec.soc.qce.block_aes128 = sc_core::sc_time(0.25, sc_core::SC_US);
  ec.soc.qce.block_aes256 = sc_core::sc_time(0.35, sc_core::SC_US);
  ec.soc.qce.finish = sc_core::sc_time(9, sc_core::SC_US);
  ec.soc.qce.finish_cipher = sc_core::sc_time(2, sc_core::SC_US);
  soc::Emulator emu(ec);
  emu.run([](soc::Emulator& e) {
    for (std::size_t key : {16u, 32u}) {
      Job j;
      j.key = test::random_bytes(key, 1);
      j.in = test::random_bytes(4096, 2);
      j.encr_cfg = cfg(ENCR_ALG_AES, key == 32 ? ENCR_KEY_SZ_AES256 : ENCR_KEY_SZ_AES128, ENCR_MODE_ECB, true);
      const sc_core::sc_time t0 = sc_core::sc_time_stamp();
      // run_engine settles 1 us; then wait for the operation.
      auto& h = e.host();
      const std::uint64_t q = e.soc().cfg.map.qce_base;
      const Outcome o = run_engine(e, j);
      for (int i = 0; i < 2000 && !(h.readl(q + REG_STATUS) & OPERATION_DONE); ++i)
        sc_core::wait(sc_core::sc_time(0.1, sc_core::SC_US));
      const double us = (sc_core::sc_time_stamp() - t0).to_seconds() * 1e6;
      const double core = 256 * (key == 32 ? 0.35 : 0.25);
      EXPECT_GT(us, core + 2) << key;
      EXPECT_LT(us, core + 2 + 3) << key;  // the first burst, register writes, polling
      EXPECT_EQ(o.out.size(), 4096u);
      // The dump leaves after OPERATION_DONE: the next GO waits for it.
      for (int i = 0; i < 100 && e.soc().qce.busy(); ++i) sc_core::wait(sc_core::sc_time(0.1, sc_core::SC_US));
      EXPECT_FALSE(e.soc().qce.busy());
    }
  });
}
