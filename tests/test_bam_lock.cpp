// BAM pipe locking: while a pipe holds the lock (a CMD|LOCK descriptor processed, its UNLOCK
// not yet), pipes of other execution environments fetch nothing; pipes of the same EE go on.
#include <gtest/gtest.h>

#include "qce/regs_v5.h"
#include "tests/emu_helpers.h"
#include "tests/raw_bam.h"

using namespace qcesim;
using test::RawPipe;
using test::settle;

namespace {
bam::BamCmdElement write_ce(std::uint64_t addr, std::uint32_t value) {
  return bam::bam_prep_ce(static_cast<std::uint32_t>(addr), bam::BAM_WRITE_COMMAND, value);
}
}  // namespace

TEST(BamLock, OtherEePipesWaitForUnlock) {
  test::with_emulator(qce::RegIo::mmio, [](soc::Emulator& e) {
    const auto qce = e.soc().cfg.map.qce_base;
    RawPipe holder(e, 0, 2), tz_pipe(e, 2, 1);
    holder.init();
    tz_pipe.init();
    holder.put(0, holder.cmd({write_ce(qce + qce::REG_VERSION, 0)}, bam::DESC_FLAG_LOCK));
    holder.doorbell(8);
    settle();
    EXPECT_EQ(e.soc().bam.lock_owner_pipe(), 0);

    tz_pipe.put(0, tz_pipe.cmd({write_ce(qce + qce::REG_SEG_SIZE, 0x1234)}));
    tz_pipe.doorbell(8);
    settle();
    EXPECT_NE(e.host().readl(qce + qce::REG_SEG_SIZE), 0x1234u) << "EE1 ran while EE0 held the lock";
    EXPECT_EQ(tz_pipe.sw_ofsts(), 0u);

    holder.put(1, holder.cmd({write_ce(qce + qce::REG_VERSION, 0)}, bam::DESC_FLAG_UNLOCK));
    holder.doorbell(16);
    settle();
    EXPECT_EQ(e.soc().bam.lock_owner_pipe(), -1);
    EXPECT_EQ(e.host().readl(qce + qce::REG_SEG_SIZE), 0x1234u);
    EXPECT_EQ(tz_pipe.sw_ofsts(), 8u);
  });
}

TEST(BamLock, SameEePipesAreStillServed) {
  test::with_emulator(qce::RegIo::mmio, [](soc::Emulator& e) {
    const auto qce = e.soc().cfg.map.qce_base;
    RawPipe a(e, 0, 2), b(e, 2, 2);
    a.init();
    b.init();  // the same EE
    a.put(0, a.cmd({write_ce(qce + qce::REG_VERSION, 0)}, bam::DESC_FLAG_LOCK));
    a.doorbell(8);
    settle();
    b.put(0, b.cmd({write_ce(qce + qce::REG_SEG_SIZE, 0x77)}));
    b.doorbell(8);
    settle();
    EXPECT_EQ(e.soc().bam.lock_owner_pipe(), 0);
    EXPECT_EQ(e.host().readl(qce + qce::REG_SEG_SIZE), 0x77u);
  });
}

// A locked pipe of another EE cannot take the lock until it is released.
TEST(BamLock, SecondLockWaitsForTheFirstUnlock) {
  test::with_emulator(qce::RegIo::mmio, [](soc::Emulator& e) {
    const auto qce = e.soc().cfg.map.qce_base;
    RawPipe a(e, 0, 2), b(e, 2, 1);
    a.init();
    b.init();
    a.put(0, a.cmd({write_ce(qce + qce::REG_VERSION, 0)}, bam::DESC_FLAG_LOCK));
    a.doorbell(8);
    settle();
    b.put(0, b.cmd({write_ce(qce + qce::REG_VERSION, 0)}, bam::DESC_FLAG_LOCK));
    b.put(1, b.cmd({write_ce(qce + qce::REG_SEG_SIZE, 0x99)}, bam::DESC_FLAG_UNLOCK));
    b.doorbell(16);
    settle();
    EXPECT_EQ(e.soc().bam.lock_owner_pipe(), 0);
    a.put(1, a.cmd({write_ce(qce + qce::REG_VERSION, 0)}, bam::DESC_FLAG_UNLOCK));
    a.doorbell(16);
    settle();
    EXPECT_EQ(e.host().readl(qce + qce::REG_SEG_SIZE), 0x99u);
    EXPECT_EQ(e.soc().bam.lock_owner_pipe(), -1);
    EXPECT_EQ(b.sw_ofsts(), 16u);
  });
}

// In the series' flow, the engine is held from LOCK to UNLOCK, and UNLOCK (after NWD on the
// data) only runs once the engine finished: the lock is free again when the request returns.
TEST(BamLock, DriverRequestReleasesTheLock) {
  test::with_emulator(qce::RegIo::bam, [](soc::Emulator& e) {
    std::vector<std::uint8_t> msg(4096, 9);
    EXPECT_EQ(test::hex(test::qce_digest(e, HashAlg::sha256, msg)),
              test::hex(test::openssl_digest(HashAlg::sha256, msg)));
    EXPECT_EQ(e.soc().bam.lock_owner_pipe(), -1);
    EXPECT_FALSE(e.bam_dma().chan(4).locked);
  });
}
