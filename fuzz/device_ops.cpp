#include "fuzz/device_ops.h"

#include <systemc>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "bam/bam_hw.h"
#include "soc/soc.h"
#include "qce/regs_v5.h"

namespace qcesim::fuzz {

namespace {

using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;

constexpr std::uint32_t kWindow = 64 * 1024;  // memory an input may point at
constexpr std::uint32_t kRingArea = 0x0000;   // a ring of 64 descriptors (0x200 bytes) per pipe
constexpr std::uint32_t kRingBytes = 0x200;
constexpr std::uint32_t kCeArea = 0x1000;    // 256 command elements of 16 bytes
constexpr std::uint32_t kDataArea = 0x2000;  // 256 blocks of 16 bytes
constexpr unsigned kPipes = 8;

struct Device {
  std::unique_ptr<soc::Soc> soc;
  cpu::DmaBuf window;
  sc_core::sc_event go;
  const std::uint8_t* input = nullptr;
  std::size_t size = 0;
};
Device* g_dev = nullptr;

// Operands are read past the end as zeros: every byte string is a program.
class Reader {
 public:
  Reader(const std::uint8_t* p, std::size_t n) : m_p(p), m_n(n) {}
  bool more() const { return m_i < m_n; }
  std::uint8_t u8() { return m_i < m_n ? m_p[m_i++] : 0; }
  std::uint16_t u16() { return static_cast<std::uint16_t>(u8() | u8() << 8); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(u16()) | static_cast<std::uint32_t>(u16()) << 16; }

 private:
  const std::uint8_t* m_p;
  std::size_t m_n, m_i = 0;
};

// QCESIM_FUZZ_VERBOSE=1 prints every register read: what a seed program reached.
void show(const char* block, std::uint64_t offset, std::uint32_t value) {
  static const bool verbose = std::getenv("QCESIM_FUZZ_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr, "read %s+0x%05llx = 0x%08x\n", block, static_cast<unsigned long long>(offset), value);
}

void reset(Device& d) {
  cpu::Host& h = d.soc->host;
  const std::uint64_t bam = d.soc->cfg.map.bam_base;
  for (unsigned p = 0; p < kPipes; ++p) {
    h.writel(bam + bam::BAM_P_RST(p), 1);
    h.writel(bam + bam::BAM_P_RST(p), 0);
  }
  h.writel(d.soc->cfg.map.qce_base + qce::REG_GOPROC, qce::CLR_CNTXT);
  std::memset(d.window.ptr, 0, kWindow);
  sc_core::wait(sc_time(1, SC_US));
}

void run_program(Device& d) {
  cpu::Host& h = d.soc->host;
  const auto& map = d.soc->cfg.map;
  const std::uint32_t base = static_cast<std::uint32_t>(d.window.addr);
  Reader in(d.input, d.size);
  // A register write (u16 word offset, u32 value) or read (u16 word offset) in a block.
  auto access = [&](std::uint64_t block, std::uint64_t size, bool write, const char* name) {
    const std::uint64_t off = (in.u16() * 4ull) % size;
    if (write) {
      h.writel(block + off, in.u32());
    } else {
      show(name, off, h.readl(block + off));
    }
  };
  while (in.more()) {
    const unsigned op = in.u8() % 10;
    try {
      switch (op) {
        case 0:
          access(map.bam_base, map.bam_size, true, "BAM");
          break;
        case 1:
          access(map.bam_base, map.bam_size, false, "BAM");
          break;
        case 2:
          access(map.qce_base, map.qce_size, true, "QCE");
          break;
        case 3:
          access(map.qce_base, map.qce_size, false, "QCE");
          break;
        case 4: {
          const unsigned slot = in.u16() % (kPipes * kRingBytes / bam::BAM_DESC_BYTES);
          bam::BamDescHw desc{base + in.u16() % kWindow, in.u16(), in.u16()};
          std::memcpy(d.window.ptr + kRingArea + slot * sizeof desc, &desc, sizeof desc);
          break;
        }
        case 5: {
          const unsigned slot = in.u8();
          const std::uint32_t cmd = in.u8() % 4;
          const std::uint32_t reg = static_cast<std::uint32_t>(map.qce_base + (in.u16() * 4u) % map.qce_size);
          bam::BamCmdElement ce{(reg & bam::BAM_CE_ADDR_MASK) | cmd << 24, in.u32(), in.u32(), 0};
          if (cmd != bam::BAM_WRITE_COMMAND) ce.data = base + ce.data % kWindow;  // a read lands in the window
          std::memcpy(d.window.ptr + kCeArea + slot * sizeof ce, &ce, sizeof ce);
          break;
        }
        case 6: {
          const unsigned block = in.u8();
          for (unsigned i = 0; i < 16; ++i) d.window.ptr[kDataArea + block * 16 + i] = in.u8();
          break;
        }
        case 7: {
          const unsigned p = in.u8() % kPipes;
          const unsigned mode = in.u8();
          const std::uint64_t bam = map.bam_base;
          h.writel(bam + bam::BAM_P_RST(p), 1);
          h.writel(bam + bam::BAM_P_RST(p), 0);
          h.writel(bam + bam::BAM_P_DESC_FIFO_ADDR(p), base + kRingArea + p * kRingBytes);
          h.writel(bam + bam::BAM_P_FIFO_SIZES(p), ((mode >> 3) % 8 + 1) * 8 * bam::BAM_DESC_BYTES);
          h.writel(bam + bam::BAM_P_IRQ_EN(p), bam::P_DEFAULT_IRQS_EN);
          h.writel(bam + bam::BAM_P_TRUST_REG(p), (mode >> 1) & 3);
          h.writel(bam + bam::BAM_P_CTRL(p), bam::P_EN | bam::P_SYS_MODE | ((mode & 1) ? bam::P_DIRECTION : 0));
          break;
        }
        case 8: {
          const unsigned p = in.u8() % kPipes;
          h.writel(map.bam_base + bam::BAM_P_EVNT_REG(p), (in.u8() % 65) * bam::BAM_DESC_BYTES);
          break;
        }
        case 9:
          sc_core::wait(sc_time(100.0 * (in.u8() + 1), SC_NS));
          break;
      }
    } catch (const cpu::BusFault&) {
      // A missing register answers with a bus error, as the interconnect would.
    }
  }
  // Time for what the program started: a ring of 64 descriptors of 64 KiB each streams in about
  // this long in the untimed platform.
  sc_core::wait(sc_time(50, SC_US));
}

}  // namespace

void device_elaborate() {
  static Device dev;
  g_dev = &dev;
  soc::SocConfig cfg;
  dev.soc = std::make_unique<soc::Soc>("soc", cfg);
  sc_core::sc_spawn(
      [] {
        g_dev->window = g_dev->soc->host.dma_alloc(kWindow, 4096);  // the bus grants DMI once running
        for (;;) {
          sc_core::wait(g_dev->go);
          reset(*g_dev);
          run_program(*g_dev);
          sc_core::sc_pause();
        }
      },
      "fuzz_program");
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // the runner waits for its first input
}

int device_one_input(const std::uint8_t* data, std::size_t size) {
  g_dev->input = data;
  g_dev->size = size;
  g_dev->go.notify(sc_core::SC_ZERO_TIME);
  try {
    sc_core::sc_start();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "qcesim_fuzz device: the model threw: %s\n", e.what());
    std::abort();
  }
  return 0;
}

}  // namespace qcesim::fuzz
