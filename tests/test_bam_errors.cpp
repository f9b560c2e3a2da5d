// Bad rings stop the pipe with a documented error, set P_ERR in P_IRQ_STTS and raise the
// EE's interrupt line: never a crash, an assert or a hang.
#include <gtest/gtest.h>

#include "qce/regs_v5.h"
#include "tests/emu_helpers.h"
#include "tests/raw_bam.h"

using namespace qcesim;
using bam::PipeError;
using test::RawPipe;
using test::settle;

namespace {

// Runs `setup` on pipe 0 and checks the error it must produce.
void expect_pipe_error(PipeError want, const std::function<void(soc::Emulator&, RawPipe&)>& setup) {
  test::with_emulator(qce::RegIo::mmio, [&](soc::Emulator& e) {
    RawPipe p(e, 0);
    EXPECT_FALSE(e.soc().bam_irq[p.ee()].read());
    setup(e, p);
    settle();
    EXPECT_EQ(bam::pipe_error_name(e.soc().bam.pipe_error(0)), std::string(bam::pipe_error_name(want)))
        << e.soc().bam.pipe_error_detail(0);
    EXPECT_TRUE(p.irq_stts() & bam::P_ERR);
    EXPECT_TRUE(e.soc().bam_irq[p.ee()].read()) << "the pipe's EE interrupt line is raised";
    EXPECT_FALSE(e.soc().bam_irq[0].read()) << "Linux's line is not";
    const std::uint32_t srcs = e.host().readl(e.soc().cfg.map.bam_base + bam::BAM_IRQ_SRCS_EE(p.ee()));
    EXPECT_EQ(srcs & 1u, 1u);
  });
}

bam::BamCmdElement write_ce(std::uint32_t addr, std::uint32_t value) {
  return bam::bam_prep_ce(addr, bam::BAM_WRITE_COMMAND, value);
}

}  // namespace

TEST(BamErrors, RingSizeZero) {
  expect_pipe_error(PipeError::ring_size_invalid, [](soc::Emulator&, RawPipe& p) {
    p.init(false, 0);
    p.doorbell(8);
  });
}

TEST(BamErrors, RingSizeAbove32KiB) {
  expect_pipe_error(PipeError::ring_size_invalid, [](soc::Emulator&, RawPipe& p) {
    p.init(false, 40000);
    p.doorbell(8);
  });
}

TEST(BamErrors, DescriptorSizeZero) {
  expect_pipe_error(PipeError::desc_size_zero, [](soc::Emulator& e, RawPipe& p) {
    p.init();
    cpu::DmaBuf b = e.host().dma_alloc(64);
    p.put(0, {static_cast<std::uint32_t>(b.addr), 0, bam::DESC_FLAG_EOT});
    p.doorbell(8);
  });
}

TEST(BamErrors, DescriptorSizeAbove32760) {
  expect_pipe_error(PipeError::desc_size_too_big, [](soc::Emulator& e, RawPipe& p) {
    p.init();
    cpu::DmaBuf b = e.host().dma_alloc(40000);
    p.put(0, {static_cast<std::uint32_t>(b.addr), 40000, bam::DESC_FLAG_EOT});
    p.doorbell(8);
  });
}

TEST(BamErrors, RingOutsideMemory) {
  expect_pipe_error(PipeError::ring_address_invalid, [](soc::Emulator&, RawPipe& p) {
    p.init(false, bam::BAM_DESC_FIFO_SIZE, 0x10000000u);  // nothing is mapped there
    p.doorbell(8);
  });
}

// Once a pipe has fetched from DRAM the BAM keeps DRAM's DMI grant; a ring past DRAM's end must
// still be refused, not read through the grant's pointer off its end (the device fuzzer's
// finding: the bounds test wrapped for an address above the grant).
TEST(BamErrors, RingPastMemoryAfterTheGrantIsCached) {
  test::with_emulator(qce::RegIo::mmio, [&](soc::Emulator& e) {
    RawPipe first(e, 0);
    first.init();
    cpu::DmaBuf b = e.host().dma_alloc(64);
    first.put(0, {static_cast<std::uint32_t>(b.addr), 0, bam::DESC_FLAG_EOT});
    first.doorbell(8);
    settle();
    ASSERT_EQ(std::string(bam::pipe_error_name(e.soc().bam.pipe_error(0))),
              bam::pipe_error_name(PipeError::desc_size_zero))
        << "the first pipe fetched its descriptor from DRAM";
    const std::uint64_t past_end = e.soc().cfg.map.dram_base + e.soc().cfg.map.dram_size + 0x60000000ull;
    ASSERT_LE(past_end, 0xFFFFFFFFull);
    RawPipe p(e, 1);
    p.init(false, bam::BAM_DESC_FIFO_SIZE, static_cast<std::uint32_t>(past_end));
    p.doorbell(8);
    settle();
    EXPECT_EQ(std::string(bam::pipe_error_name(e.soc().bam.pipe_error(1))),
              bam::pipe_error_name(PipeError::ring_address_invalid))
        << e.soc().bam.pipe_error_detail(1);
    EXPECT_TRUE(p.irq_stts() & bam::P_ERR);
  });
}

TEST(BamErrors, DataOutsideMemory) {
  expect_pipe_error(PipeError::desc_address_invalid, [](soc::Emulator&, RawPipe& p) {
    p.init();
    p.put(0, {0x20000000u, 4096, bam::DESC_FLAG_EOT});
    p.doorbell(8);
  });
}

TEST(BamErrors, CommandElementToUnmappedAddress) {
  expect_pipe_error(PipeError::ce_address_unmapped, [](soc::Emulator&, RawPipe& p) {
    p.init();
    p.put(0, p.cmd({write_ce(0x100000u, 1)}));  // 0x01100000: no device
    p.doorbell(8);
  });
}

TEST(BamErrors, CommandElementToUnimplementedRegister) {
  expect_pipe_error(PipeError::ce_address_unmapped, [](soc::Emulator& e, RawPipe& p) {
    p.init();
    p.put(0, p.cmd({write_ce(static_cast<std::uint32_t>(e.soc().cfg.map.qce_base + 0x5000), 1)}));
    p.doorbell(8);
  });
}

// Consecutive register writes go to the engine as one bus burst; a burst that reaches a missing
// register is refused whole and the elements then run one by one: the ones before it land,
// the error names the element that failed.
TEST(BamErrors, CommandElementRunStopsAtTheUnimplementedRegister) {
  test::with_emulator(qce::RegIo::mmio, [&](soc::Emulator& e) {
    RawPipe p(e, 0);
    p.init();
    const auto q = static_cast<std::uint32_t>(e.soc().cfg.map.qce_base);
    // AUTH_BYTECNT0..3 at 0x390..0x39c, then 0x3a0, which the engine does not implement.
    p.put(0, p.cmd({write_ce(q + 0x390, 11), write_ce(q + 0x394, 22), write_ce(q + 0x398, 33), write_ce(q + 0x39c, 44),
                    write_ce(q + 0x3a0, 55), write_ce(q + qce::REG_SEG_SIZE, 66)}));
    p.doorbell(8);
    settle();
    EXPECT_EQ(e.soc().bam.pipe_error(0), PipeError::ce_address_unmapped);
    EXPECT_NE(e.soc().bam.pipe_error_detail(0).find("command element 4 writes"), std::string::npos)
        << e.soc().bam.pipe_error_detail(0);
    for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(e.host().readl(q + 0x390 + 4 * i), 11u * (i + 1)) << i;
    EXPECT_EQ(e.host().readl(q + qce::REG_SEG_SIZE), 0u) << "nothing after the failed element";
  });
}

TEST(BamErrors, MoreDescriptorsThanTheRingHolds) {
  // 5000 descriptors written without wrapping put the doorbell past a 4096-slot ring.
  expect_pipe_error(PipeError::doorbell_out_of_ring, [](soc::Emulator&, RawPipe& p) {
    p.init();
    p.doorbell(5000 * 8);
  });
}

TEST(BamErrors, CommandDescriptorOnProducerPipe) {
  expect_pipe_error(PipeError::cmd_on_producer, [](soc::Emulator& e, RawPipe& p) {
    p.init(true);
    p.put(0, p.cmd({write_ce(static_cast<std::uint32_t>(e.soc().cfg.map.qce_base + qce::REG_SEG_SIZE), 1)}));
    p.doorbell(8);
  });
}

TEST(BamErrors, CommandSizeNotMultipleOf16) {
  expect_pipe_error(PipeError::cmd_size_invalid, [](soc::Emulator& e, RawPipe& p) {
    p.init();
    auto d = p.cmd({write_ce(static_cast<std::uint32_t>(e.soc().cfg.map.qce_base + qce::REG_SEG_SIZE), 1)});
    d.size = 24;
    p.put(0, d);
    p.doorbell(8);
  });
}

TEST(BamErrors, ResetRecoversThePipe) {
  test::with_emulator(qce::RegIo::mmio, [&](soc::Emulator& e) {
    RawPipe p(e, 0);
    p.init();
    p.put(0, {0x20000000u, 64, bam::DESC_FLAG_EOT});
    p.doorbell(8);
    settle();
    ASSERT_EQ(e.soc().bam.pipe_error(0), PipeError::desc_address_invalid);
    p.doorbell(16);  // a failed pipe ignores doorbells
    settle();
    EXPECT_EQ(p.sw_ofsts(), 0u);
    p.init();  // P_RST clears the error
    EXPECT_EQ(e.soc().bam.pipe_error(0), PipeError::none);
    EXPECT_FALSE(p.irq_stts() & bam::P_ERR);
    const auto seg = static_cast<std::uint32_t>(e.soc().cfg.map.qce_base + qce::REG_SEG_SIZE);
    p.put(0, p.cmd({write_ce(seg, 0xABCD)}, bam::DESC_FLAG_INT));
    p.doorbell(8);
    settle();
    EXPECT_EQ(e.host().readl(seg), 0xABCDu);
    EXPECT_EQ(p.sw_ofsts(), 8u);
    EXPECT_TRUE(p.irq_stts() & bam::P_PRCSD_DESC);
  });
}

// The driver surfaces a BAM pipe error as a request failure and recovers on the next one.
TEST(BamErrors, DriverReportsPipeErrorAndRecovers) {
  test::with_emulator(qce::RegIo::mmio, [&](soc::Emulator& e) {
    qce::ShaRequest bad;
    bad.carry.iv = sha_initial_state(HashAlg::sha256).h;
    bad.src.push_back({0x20000000u, 4096});
    bad.nbytes = 4096;
    try {
      e.qce().run_sha(e.task(), bad);
      ADD_FAILURE() << "a source outside memory must fail";
    } catch (const qce::QceError& ex) {
      EXPECT_NE(std::string(ex.what()).find("BAM pipe 4 error"), std::string::npos) << ex.what();
    }
    EXPECT_EQ(e.soc().bam.pipe_error(4), PipeError::desc_address_invalid);
    std::vector<std::uint8_t> msg(4096, 3);
    EXPECT_EQ(test::hex(test::qce_digest(e, HashAlg::sha256, msg)),
              test::hex(test::openssl_digest(HashAlg::sha256, msg)));
  });
}
