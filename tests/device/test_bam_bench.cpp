// The BAM alone on a bench (memory + bus + BAM, no SoC, no Linux driver), driven by register
// accesses as a device test would: a transfer from a consumer pipe through the peripheral to a
// producer pipe; a hung peripheral recovered by BAM_P_RST and the pipe used again; BAM_SW_RST
// putting every register back to its reset value. Its own test binary (qcesim_bam_bench_tests),
// linking only the model and bam layers. One elaboration per test (each its own process).
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <functional>
#include <tlm_utils/simple_initiator_socket.h>
#include <vector>

#include "bam/bam.h"
#include "bam/bam_hw.h"
#include "model/bus.h"
#include "model/memory.h"
#include "tests/device/bench.h"

using namespace qcesim;
using namespace qcesim::bam;

namespace {

constexpr std::uint64_t kDram = 0x80000000ull, kDramSize = 1u << 20, kBamBase = 0x01dc4000ull;
constexpr unsigned kEe = 0;

// Test double for the peripheral (not the engine): a loopback FIFO. What a consumer pipe
// delivers comes out of the producer pipe, the end of an EOT transfer ending the output; with
// `stalled` it takes nothing, as a hung peripheral would.
class LoopbackDouble : public sc_core::sc_module, public BamPeripheralIf {
 public:
  explicit LoopbackDouble(sc_core::sc_module_name n) : sc_core::sc_module(n) {}
  bool stalled = false;

  std::size_t bam_din(unsigned, const std::uint8_t* data, std::size_t len, bool, bool eot,
                      const sc_core::sc_time& start, const sc_core::sc_time&, sc_core::sc_time& delivered_at) override {
    if (stalled) return 0;
    m_fifo.insert(m_fifo.end(), data, data + len);
    if (eot) m_ends.push_back(m_fifo.size());
    delivered_at = std::max(start, sc_core::sc_time_stamp());
    if (m_listener) m_listener();
    return len;
  }
  std::size_t bam_dout(unsigned, std::uint8_t* dst, std::size_t max, bool& eot) override {
    const std::size_t end = m_ends.empty() ? m_fifo.size() : m_ends.front();
    const std::size_t n = std::min(max, end);
    std::copy(m_fifo.begin(), m_fifo.begin() + static_cast<std::ptrdiff_t>(n), dst);
    m_fifo.erase(m_fifo.begin(), m_fifo.begin() + static_cast<std::ptrdiff_t>(n));
    for (std::size_t& e : m_ends) e -= n;
    eot = !m_ends.empty() && m_ends.front() == 0;
    if (eot) m_ends.pop_front();
    return n;
  }
  bool bam_transaction_done(unsigned) const override { return true; }
  void bam_set_state_listener(std::function<void()> fn) override { m_listener = std::move(fn); }
  void unstall() {
    stalled = false;
    if (m_listener) m_listener();
  }

 private:
  std::deque<std::uint8_t> m_fifo;
  std::deque<std::size_t> m_ends;
  std::function<void()> m_listener;
};

// DRAM, a bus, the BAM and the loopback; the test's thread is the CPU writing registers.
class BamBench : public sc_core::sc_module {
 public:
  BamBench(sc_core::sc_module_name n, const BamConfig& cfg)
      : sc_core::sc_module(n),
        cpu("cpu"),
        dram("dram", kDramSize),
        bus("bus"),
        bam("bam", cfg),
        periph("periph"),
        irq("irq", cfg.num_ees) {
    bus.to_targets.bind(dram.socket);
    bus.to_targets.bind(bam.regs_socket);
    bus.map("dram", kDram, kDramSize, 0);
    bus.map("bam", kBamBase, 0x28000, 1);
    cpu.bind(bus.from_initiators);
    bam.bus_socket.bind(bus.from_initiators);
    bam.peripheral.bind(periph);
    for (unsigned ee = 0; ee < cfg.num_ees; ++ee) bam.irq[ee].bind(irq[ee]);
  }

  void write(std::uint32_t off, std::uint32_t v) { access(tlm::TLM_WRITE_COMMAND, off, v); }
  std::uint32_t read(std::uint32_t off) { return access(tlm::TLM_READ_COMMAND, off, 0); }
  std::uint8_t* mem(std::uint64_t addr) { return dram.data() + (addr - kDram); }

  // bam_chan_init_hw by registers: the ring at `ring`, default interrupts, the EE's mask.
  void init_pipe(unsigned p, std::uint64_t ring, bool producer) {
    write(BAM_P_RST(p), 1);
    write(BAM_P_RST(p), 0);
    write(BAM_P_DESC_FIFO_ADDR(p), static_cast<std::uint32_t>(ring));
    write(BAM_P_FIFO_SIZES(p), 0x1000);
    write(BAM_P_IRQ_EN(p), P_DEFAULT_IRQS_EN);
    write(BAM_IRQ_SRCS_MSK_EE(kEe), read(BAM_IRQ_SRCS_MSK_EE(kEe)) | (1u << p));
    write(BAM_P_CTRL(p), P_EN | P_SYS_MODE | (producer ? P_DIRECTION : 0));
  }
  // One descriptor at `slot` of the ring at `ring`, and the doorbell past it.
  void post(unsigned p, std::uint64_t ring, unsigned slot, std::uint64_t buf, std::uint16_t len, std::uint16_t flags) {
    const BamDescHw d{static_cast<std::uint32_t>(buf), len, flags};
    std::memcpy(mem(ring + slot * sizeof d), &d, sizeof d);
    write(BAM_P_EVNT_REG(p), (slot + 1) * static_cast<std::uint32_t>(sizeof d));
  }

  tlm_utils::simple_initiator_socket<BamBench> cpu;
  model::Memory dram;
  model::Bus bus;
  Bam bam;
  LoopbackDouble periph;
  sc_core::sc_vector<sc_core::sc_signal<bool, sc_core::SC_UNCHECKED_WRITERS>> irq;

 private:
  std::uint32_t access(tlm::tlm_command cmd, std::uint32_t off, std::uint32_t v) {
    return test::reg_access(cpu, cmd, kBamBase + off, v);
  }
};

// Elaborates the bench and runs `body` as the CPU's thread.
void run_bench(const BamConfig& cfg, const std::function<void(BamBench&)>& body) {
  BamBench bench("bench", cfg);
  test::run_on(bench, body);
}

void settle() { sc_core::wait(sc_core::sc_time(1, sc_core::SC_US)); }

constexpr std::uint64_t kRingIn = kDram, kRingOut = kDram + 0x1000, kIn = kDram + 0x10000, kOut = kDram + 0x20000;

// 256 bytes in on pipe 0, out on pipe 1: the consumer's EOT descriptor raises TRNSFR_END, the
// producer's descriptor is filled and ends the transfer; both read offsets past their descriptor.
void transfer(BamBench& b, unsigned slot, std::uint8_t seed) {
  for (unsigned i = 0; i < 256; ++i) *b.mem(kIn + i) = static_cast<std::uint8_t>(seed + i);
  std::memset(b.mem(kOut), 0, 256);
  b.post(1, kRingOut, slot, kOut, 256, DESC_FLAG_INT);
  b.post(0, kRingIn, slot, kIn, 256, DESC_FLAG_EOT);
  settle();
  EXPECT_EQ(std::memcmp(b.mem(kIn), b.mem(kOut), 256), 0);
  EXPECT_EQ(b.read(BAM_P_SW_OFSTS(0)) & 0xFFFF, (slot + 1) * 8u);
  EXPECT_EQ(b.read(BAM_P_SW_OFSTS(1)) & 0xFFFF, (slot + 1) * 8u);
  EXPECT_TRUE(b.read(BAM_P_IRQ_STTS(0)) & P_TRNSFR_END);
  EXPECT_TRUE(b.read(BAM_IRQ_SRCS_EE(kEe)) & 1u);
  EXPECT_TRUE(b.irq[kEe].read());
  b.write(BAM_P_IRQ_CLR(0), b.read(BAM_P_IRQ_STTS(0)));
  b.write(BAM_P_IRQ_CLR(1), b.read(BAM_P_IRQ_STTS(1)));
  settle();
  EXPECT_FALSE(b.irq[kEe].read());
}

}  // namespace

TEST(BamBench, ATransferThroughThePeripheralByRegisters) {
  run_bench(BamConfig{}, [](BamBench& b) {
    b.init_pipe(0, kRingIn, false);
    b.init_pipe(1, kRingOut, true);
    transfer(b, 0, 1);
    transfer(b, 1, 7);  // the next slot of the same rings
  });
}

// The peripheral stops taking data: the consumer pipe waits at its descriptor (no offset moves,
// no interrupt). BAM_P_RST drops the pipe's work; the pipe set up again carries the next
// transfer once the peripheral takes data again.
TEST(BamBench, AHungPipeIsResetAndUsedAgain) {
  run_bench(BamConfig{}, [](BamBench& b) {
    b.init_pipe(0, kRingIn, false);
    b.init_pipe(1, kRingOut, true);
    b.periph.stalled = true;
    b.post(0, kRingIn, 0, kIn, 256, DESC_FLAG_EOT);
    sc_core::wait(sc_core::sc_time(100, sc_core::SC_US));
    EXPECT_EQ(b.read(BAM_P_SW_OFSTS(0)) & 0xFFFF, 0u);
    EXPECT_EQ(b.read(BAM_P_IRQ_STTS(0)), 0u);
    b.write(BAM_P_RST(0), 1);  // the recovery bam_dma_terminate_all makes
    b.write(BAM_P_RST(0), 0);
    EXPECT_EQ(b.read(BAM_P_CTRL(0)), 0u);
    EXPECT_EQ(b.read(BAM_P_SW_OFSTS(0)), 0u);
    b.periph.unstall();
    settle();
    EXPECT_EQ(b.read(BAM_P_SW_OFSTS(0)), 0u);  // the dropped descriptor stays dropped
    b.init_pipe(0, kRingIn, false);
    transfer(b, 0, 3);
  });
}

// BAM_CTRL.BAM_SW_RST (what the owning EE's bam_init writes, 1 then 0): every register back to
// its reset value, every pipe idle, the line low; set up again, the BAM carries a transfer.
TEST(BamBench, SoftwareResetPutsEveryRegisterBack) {
  run_bench(BamConfig{}, [](BamBench& b) {
    b.init_pipe(0, kRingIn, false);
    b.init_pipe(1, kRingOut, true);
    transfer(b, 0, 5);
    // Another 64 bytes through, their interrupts left pending.
    b.post(1, kRingOut, 1, kOut, 64, DESC_FLAG_INT);
    b.post(0, kRingIn, 1, kIn, 64, DESC_FLAG_EOT | DESC_FLAG_INT);
    settle();
    EXPECT_EQ(b.read(BAM_P_SW_OFSTS(1)) & 0xFFFF, 16u);
    EXPECT_TRUE(b.irq[kEe].read());
    b.write(BAM_CTRL, BAM_SW_RST);
    b.write(BAM_CTRL, 0);
    settle();
    for (unsigned p : {0u, 1u}) {
      EXPECT_EQ(b.read(BAM_P_CTRL(p)), 0u) << p;
      EXPECT_EQ(b.read(BAM_P_DESC_FIFO_ADDR(p)), 0u) << p;
      EXPECT_EQ(b.read(BAM_P_FIFO_SIZES(p)), 0u) << p;
      EXPECT_EQ(b.read(BAM_P_IRQ_EN(p)), 0u) << p;
      EXPECT_EQ(b.read(BAM_P_IRQ_STTS(p)), 0u) << p;
      EXPECT_EQ(b.read(BAM_P_SW_OFSTS(p)), 0u) << p;
    }
    EXPECT_EQ(b.read(BAM_IRQ_SRCS_MSK_EE(kEe)), 0u);
    EXPECT_EQ(b.read(BAM_DESC_CNT_TRSHLD), 0xFFFFu);
    EXPECT_FALSE(b.irq[kEe].read());
    EXPECT_EQ(b.bam.lock_owner_pipe(), -1);
    b.init_pipe(0, kRingIn, false);
    b.init_pipe(1, kRingOut, true);
    transfer(b, 0, 9);
  });
}
