// Misprogramming the engine sets the STATUS error bits instead of doing anything undefined,
// and the driver turns them into a failed request.
#include <gtest/gtest.h>

#include "qce/regs_v5.h"
#include "tests/emu_helpers.h"
#include "tests/raw_bam.h"

using namespace qcesim;
using namespace qcesim::qce;
using test::settle;

namespace {
struct Regs {
  soc::Emulator& e;
  void w(std::uint32_t off, std::uint32_t v) { e.host().writel(e.soc().cfg.map.qce_base + off, v); }
  std::uint32_t r(std::uint32_t off) { return e.host().readl(e.soc().cfg.map.qce_base + off); }
};
constexpr std::uint32_t kSha256First =
    (AUTH_ALG_SHA << AUTH_ALG_SHIFT) | (AUTH_SIZE_SHA256 << AUTH_SIZE_SHIFT) | AUTH_FIRST | AUTH_LAST;
constexpr std::uint32_t kPipeSet2 = 2u << PIPE_SET_SELECT_SHIFT;
}  // namespace

TEST(QceErrors, CipherConfigurationIsRejectedWithSwErr) {
  test::with_emulator(RegIo::mmio, [](soc::Emulator& e) {
    Regs q{e};
    q.w(REG_CONFIG, kPipeSet2);
    q.w(REG_ENCR_SEG_CFG, 2u | (1u << 3) | (1u << 6));  // AES-192-CBC: the engine has no AES-192
    q.w(REG_AUTH_SEG_CFG, 0);
    q.w(REG_SEG_SIZE, 16);
    q.w(REG_GOPROC, GO);
    settle();
    const std::uint32_t st = q.r(REG_STATUS);
    EXPECT_TRUE(st & SW_ERR);
    EXPECT_TRUE(st & ERR_INTR);
    EXPECT_FALSE(st & OPERATION_DONE);
    EXPECT_NE(e.soc().qce.last_error().find("ENCR_SEG_CFG"), std::string::npos);
    EXPECT_FALSE(e.soc().qce.busy());
  });
}

TEST(QceErrors, UnsupportedAuthSizeIsRejected) {
  test::with_emulator(RegIo::mmio, [](soc::Emulator& e) {
    Regs q{e};
    q.w(REG_CONFIG, kPipeSet2);
    q.w(REG_AUTH_SEG_CFG, (AUTH_ALG_SHA << AUTH_ALG_SHIFT) | (3u << AUTH_SIZE_SHIFT) | AUTH_FIRST | AUTH_LAST);
    q.w(REG_SEG_SIZE, 64);
    q.w(REG_AUTH_SEG_SIZE, 64);
    q.w(REG_GOPROC, GO);
    settle();
    EXPECT_TRUE(q.r(REG_STATUS) & SW_ERR);
    EXPECT_NE(e.soc().qce.last_error().find("SIZE=3"), std::string::npos);
  });
}

TEST(QceErrors, NonLastSegmentMustBeWholeBlocks) {
  test::with_emulator(RegIo::mmio, [](soc::Emulator& e) {
    Regs q{e};
    q.w(REG_CONFIG, kPipeSet2);
    q.w(REG_AUTH_SEG_CFG, kSha256First & ~AUTH_LAST);
    q.w(REG_SEG_SIZE, 100);
    q.w(REG_AUTH_SEG_SIZE, 100);
    q.w(REG_GOPROC, GO);
    settle();
    EXPECT_TRUE(q.r(REG_STATUS) & SW_ERR);
  });
}

TEST(QceErrors, GoWhileBusySetsSwErrAndClrCntxtRecovers) {
  test::with_emulator(RegIo::mmio, [](soc::Emulator& e) {
    Regs q{e};
    q.w(REG_CONFIG, kPipeSet2);
    q.w(REG_AUTH_SEG_CFG, kSha256First);
    q.w(REG_SEG_SIZE, 64);
    q.w(REG_AUTH_SEG_SIZE, 64);
    q.w(REG_GOPROC, GO);  // waits for 64 bytes that never come
    settle();
    EXPECT_TRUE(e.soc().qce.busy());
    EXPECT_TRUE(q.r(REG_STATUS) & AUTH_BUSY);
    q.w(REG_GOPROC, GO);
    settle();
    EXPECT_TRUE(q.r(REG_STATUS) & SW_ERR);
    q.w(REG_GOPROC, CLR_CNTXT);
    settle();
    EXPECT_FALSE(e.soc().qce.busy());
  });
}

// SEG_SIZE says 128 bytes, the consumer pipe delivers 64 and ends the transfer (EOT).
TEST(QceErrors, DataShorterThanSegSizeSetsDinErr) {
  test::with_emulator(RegIo::mmio, [](soc::Emulator& e) {
    Regs q{e};
    auto& dma = e.bam_dma();
    std::vector<std::uint8_t> data(64, 0x11);
    cpu::DmaBuf src = test::load(e.host(), data);
    cpu::DmaBuf result = e.host().dma_alloc(QCE_RESULT_BUF_SZ);
    cpu::Runner& task = e.task();
    cpu::Completion done(e.kernel());
    auto& rx = dma.chan(4);
    auto& tx = dma.chan(5);
    dma.submit(rx, dma.bam_prep_slave_sg(task, rx, {{src.addr, 64}}, bam::DMA_PREP_INTERRUPT));
    dma.submit(tx, dma.bam_prep_slave_sg(task, tx, {{result.addr, QCE_RESULT_BUF_SZ}}, bam::DMA_PREP_INTERRUPT,
                                         [&](cpu::Runner& s, const bam::DmaResult&) { done.complete(s); }));
    dma.bam_issue_pending(task, rx);
    dma.bam_issue_pending(task, tx);
    const ShaState iv = sha_initial_state(HashAlg::sha256);
    q.w(REG_CONFIG, kPipeSet2 | LITTLE_ENDIAN_MODE);
    for (unsigned i = 0; i < 8; ++i) q.w(REG_AUTH_IV0 + 4 * i, iv.h[i]);
    q.w(REG_AUTH_BYTECNT0, 0);
    q.w(REG_AUTH_BYTECNT0 + 4, 0);
    q.w(REG_AUTH_SEG_CFG, kSha256First);
    q.w(REG_SEG_SIZE, 128);
    q.w(REG_AUTH_SEG_SIZE, 128);
    q.w(REG_GOPROC, GO | RESULTS_DUMP);
    ASSERT_TRUE(done.wait_for(task, sc_core::sc_time(1, sc_core::SC_MS)));
    const std::uint32_t st = q.r(REG_STATUS);
    EXPECT_TRUE(st & DIN_ERR);
    EXPECT_TRUE(st & ERR_INTR);
    EXPECT_FALSE(st & OPERATION_DONE);
    std::uint32_t dump_status;
    std::memcpy(&dump_status, result.ptr + DUMP_STATUS, 4);
    EXPECT_EQ(dump_status, st & ~DOUT_RDY);
    EXPECT_NE(e.soc().qce.last_error().find("64 of SEG_SIZE 128"), std::string::npos);
  });
}

// A continuation whose byte count is not whole blocks: the engine refuses at GO, still
// dumps its status, and the driver's qce_check_status turns that into an error.
TEST(QceErrors, DriverReportsEngineStatusError) {
  test::with_emulator(RegIo::bam, [](soc::Emulator& e) {
    std::vector<std::uint8_t> data(64, 1);
    cpu::DmaBuf src = test::load(e.host(), data);
    ShaRequest req;
    req.first = false;
    req.last = true;
    req.carry.iv = sha_initial_state(HashAlg::sha256).h;
    req.carry.byte_count = 10;
    req.src.push_back({src.addr, 64});
    req.nbytes = 64;
    try {
      e.qce().run_sha(e.task(), req);
      ADD_FAILURE() << "the engine must refuse";
    } catch (const QceError& ex) {
      EXPECT_NE(std::string(ex.what()).find("STATUS="), std::string::npos) << ex.what();
    }
    // And the next request works.
    EXPECT_EQ(test::hex(test::qce_digest(e, HashAlg::sha256, data)),
              test::hex(test::openssl_digest(HashAlg::sha256, data)));
  });
}

// Errors reach the request's completion as errno values, as crypto_request_complete's `err`:
// a refused request -EINVAL, an engine error in STATUS -ENXIO; a good one 0.
TEST(QceErrors, RequestsCompleteWithErrnoValues) {
  test::with_emulator(RegIo::mmio, [](soc::Emulator& e) {
    std::vector<std::uint8_t> data(64, 1);
    cpu::DmaBuf src = test::load(e.host(), data);
    auto status_of = [&](ShaRequest& req) {
      QceStatus got{1, "not completed"};
      cpu::Completion done(e.kernel());
      req.complete = [&](cpu::Runner& k, const QceStatus& st) {
        got = st;
        done.complete(k);
      };
      e.qce().enqueue(e.task(), req);
      EXPECT_TRUE(done.wait_for(e.task(), sc_core::sc_time(1, sc_core::SC_MS)));
      return got;
    };
    ShaRequest bad_len;
    bad_len.carry.iv = sha_initial_state(HashAlg::sha256).h;
    bad_len.src.push_back({src.addr, 64});
    bad_len.nbytes = 32;  // the scatterlist holds 64
    EXPECT_EQ(status_of(bad_len).err, -EINVAL);
    ShaRequest refused;
    refused.first = false;
    refused.carry.iv = sha_initial_state(HashAlg::sha256).h;
    refused.carry.byte_count = 10;  // not whole blocks: the engine sets SW_ERR
    refused.src.push_back({src.addr, 64});
    refused.nbytes = 64;
    const QceStatus st = status_of(refused);
    EXPECT_EQ(st.err, -ENXIO);
    EXPECT_NE(st.why.find("STATUS="), std::string::npos) << st.why;
    ShaRequest good;
    good.carry.iv = sha_initial_state(HashAlg::sha256).h;
    good.src.push_back({src.addr, 64});
    good.nbytes = 64;
    EXPECT_EQ(status_of(good).err, 0);
  });
}
