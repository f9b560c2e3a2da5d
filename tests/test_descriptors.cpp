// What one 4096-byte SHA-256 digest puts on the BAM: mainline 1 rx + 1 tx hardware
// descriptors and 2 pipe events; the locking series LOCK + 21 command + data + UNLOCK on rx,
// 1 on tx, and 3 pipe events. Counts come from the BAM model, not the driver.
#include <gtest/gtest.h>

#include "qce/regs_v5.h"
#include "tests/emu_helpers.h"

using namespace qcesim;

namespace {
struct Counts {
  std::uint64_t rx_desc, rx_cmd_desc, tx_desc, pipe_events, reg_writes, command_elements, mmio_writes, blocks;
  std::string digest;
};

Counts one_request(qce::RegIo io) {
  Counts c{};
  test::with_emulator(io, [&](soc::Emulator& e) {
    std::vector<std::uint8_t> msg(4096, 0x5a);
    cpu::DmaBuf b = test::load(e.host(), msg);
    auto& soc = e.soc();
    qce::QceAhash warm(e.qce(), e.task(), HashAlg::sha256);
    warm.digest(b.addr, 4096);  // the first request also initialises both pipes
    const auto ops0 = e.qce().stats();
    const auto blocks0 = soc.qce.stats().blocks_hashed;
    const auto rx0 = soc.bam.pipe_stats(4), tx0 = soc.bam.pipe_stats(5);
    const auto w0 = soc.host.stats().mmio_writes;
    qce::QceAhash h(e.qce(), e.task(), HashAlg::sha256);
    c.digest = test::hex(h.digest(b.addr, 4096));
    const auto rx = soc.bam.pipe_stats(4), tx = soc.bam.pipe_stats(5);
    c.rx_desc = rx.descriptors - rx0.descriptors;
    c.rx_cmd_desc = rx.cmd_descriptors - rx0.cmd_descriptors;
    c.tx_desc = tx.descriptors - tx0.descriptors;
    c.pipe_events = rx.irq_events - rx0.irq_events + tx.irq_events - tx0.irq_events;
    c.reg_writes = e.qce().stats().reg_writes - ops0.reg_writes;
    c.command_elements = e.qce().stats().command_elements - ops0.command_elements;
    c.mmio_writes = soc.host.stats().mmio_writes - w0;
    c.blocks = soc.qce.stats().blocks_hashed - blocks0;
    EXPECT_EQ(c.digest, test::hex(test::openssl_digest(HashAlg::sha256, msg)));
  });
  return c;
}
}  // namespace

TEST(Descriptors, MainlineOneRequest) {
  const Counts c = one_request(qce::RegIo::mmio);
  EXPECT_EQ(c.rx_desc, 1u);
  EXPECT_EQ(c.rx_cmd_desc, 0u);
  EXPECT_EQ(c.tx_desc, 1u);
  EXPECT_EQ(c.pipe_events, 2u);  // rx EOT, tx EOT
  EXPECT_EQ(c.reg_writes, 21u);
  EXPECT_EQ(c.command_elements, 0u);
  EXPECT_EQ(c.mmio_writes, 21u + 2u + 2u);  // qce registers, two doorbells, P_IRQ_CLR for two pipes
  EXPECT_EQ(c.blocks, 65u);                 // 64 data blocks and one padding block
}

TEST(Descriptors, LockingSeriesOneRequest) {
  const Counts c = one_request(qce::RegIo::bam);
  EXPECT_EQ(c.rx_desc, 24u);      // LOCK, 21 command descriptors, data (NWD|EOT), UNLOCK
  EXPECT_EQ(c.rx_cmd_desc, 23u);  // the 21 register writes and the two dummy writes
  EXPECT_EQ(c.tx_desc, 1u);
  EXPECT_EQ(c.pipe_events, 3u);  // rx EOT, rx UNLOCK INT, tx EOT
  EXPECT_EQ(c.reg_writes, 21u);
  EXPECT_EQ(c.command_elements, 21u);
  // Two doorbells, and one P_IRQ_CLR per pipe per hardirq that finds it flagged: rx's EOT and
  // UNLOCK events are cleared together or apart depending on when the handler runs.
  EXPECT_GE(c.mmio_writes, 2u + 2u);
  EXPECT_LE(c.mmio_writes, 2u + 3u);
  EXPECT_EQ(c.blocks, 65u);
}

// The last hardware descriptor of each transfer carries the flags the dmaengine flags map to.
TEST(Descriptors, LockingSeriesRingContents) {
  test::with_emulator(qce::RegIo::bam, [&](soc::Emulator& e) {
    std::vector<std::uint8_t> msg(4096, 1);
    cpu::DmaBuf b = test::load(e.host(), msg);
    qce::QceAhash h(e.qce(), e.task(), HashAlg::sha256);
    h.digest(b.addr, 4096);
    const bam::BamChan& rx = e.bam_dma().chan(4);
    std::vector<bam::BamDescHw> ring(24);
    std::memcpy(ring.data(), rx.fifo.ptr, ring.size() * sizeof(bam::BamDescHw));
    EXPECT_EQ(ring[0].flags, bam::DESC_FLAG_CMD | bam::DESC_FLAG_LOCK);
    for (int i = 1; i <= 21; ++i) {
      EXPECT_EQ(ring[static_cast<std::size_t>(i)].flags, bam::DESC_FLAG_CMD) << i;
      EXPECT_EQ(ring[static_cast<std::size_t>(i)].size, 16u);
    }
    EXPECT_EQ(ring[22].flags, bam::DESC_FLAG_EOT | bam::DESC_FLAG_NWD);
    EXPECT_EQ(ring[22].size, 4096u);
    EXPECT_EQ(ring[22].addr, b.addr);
    EXPECT_EQ(ring[23].flags, bam::DESC_FLAG_CMD | bam::DESC_FLAG_UNLOCK | bam::DESC_FLAG_INT);
    // The 21st command element is GOPROC <- GO|RESULTS_DUMP at the QCE's 24-bit address.
    bam::BamCmdElement go;
    std::memcpy(&go, e.host().dram_ptr(ring[21].addr, 16), 16);
    EXPECT_EQ(go.cmd_and_addr, (0x01dfa000u + qce::REG_GOPROC) & 0xFFFFFFu);
    EXPECT_EQ(go.data, qce::GO | qce::RESULTS_DUMP);
  });
}

// A request over 32760 bytes is split into several hardware descriptors, EOT on the last.
TEST(Descriptors, LongRequestSplitsAt32760) {
  test::with_emulator(qce::RegIo::mmio, [&](soc::Emulator& e) {
    std::vector<std::uint8_t> msg(100000, 7);
    auto d = test::qce_digest(e, HashAlg::sha256, msg);
    EXPECT_EQ(test::hex(d), test::hex(test::openssl_digest(HashAlg::sha256, msg)));
    EXPECT_EQ(e.soc().bam.pipe_stats(4).descriptors, 4u);  // 3 x 32760 + 1720
    EXPECT_EQ(e.soc().bam.pipe_stats(4).bytes, 100000u);
    EXPECT_EQ(e.soc().bam.pipe_stats(4).bursts, 3u * 512u + 27u);  // 64-byte bursts per descriptor
  });
}
