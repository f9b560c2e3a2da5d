// Programs a BAM pipe by hand (MMIO from the CPU thread), for tests that drive the BAM or the
// engine below the driver: ring set-up, descriptors, command elements, doorbells. The pipe
// belongs to an execution environment other than Linux's (EE 2 unless told), so the Linux
// bam_dma interrupt handler leaves its status alone and the test sees it.
#pragma once

#include <cstring>
#include <optional>
#include <vector>

#include "bam/bam_hw.h"
#include "soc/soc.h"

namespace qcesim::test {

class RawPipe {
 public:
  RawPipe(soc::Emulator& e, unsigned pipe, unsigned ee = 2)
      : m_e(e), m_pipe(pipe), m_ee(ee), m_base(e.soc().cfg.map.bam_base) {}

  // bam_chan_init_hw by hand; ring_bytes goes to P_FIFO_SIZES, ring_addr overrides the ring.
  void init(bool producer = false, std::uint32_t ring_bytes = bam::BAM_DESC_FIFO_SIZE,
            std::optional<std::uint32_t> ring_addr = std::nullopt) {
    auto& h = m_e.host();
    if (!m_ring) m_ring = h.dma_alloc(bam::BAM_DESC_FIFO_SIZE, 4096);
    h.writel(m_base + bam::BAM_P_RST(m_pipe), 1);
    h.writel(m_base + bam::BAM_P_RST(m_pipe), 0);
    h.writel(m_base + bam::BAM_P_DESC_FIFO_ADDR(m_pipe),
             ring_addr ? *ring_addr : static_cast<std::uint32_t>(m_ring.addr));
    h.writel(m_base + bam::BAM_P_FIFO_SIZES(m_pipe), ring_bytes);
    h.writel(m_base + bam::BAM_P_IRQ_EN(m_pipe), bam::P_DEFAULT_IRQS_EN);
    h.writel(m_base + bam::BAM_P_TRUST_REG(m_pipe), m_ee);
    const std::uint32_t msk = h.readl(m_base + bam::BAM_IRQ_SRCS_MSK_EE(m_ee));
    h.writel(m_base + bam::BAM_IRQ_SRCS_MSK_EE(m_ee), msk | (1u << m_pipe));
    h.writel(m_base + bam::BAM_P_CTRL(m_pipe), bam::P_EN | bam::P_SYS_MODE | (producer ? bam::P_DIRECTION : 0));
  }
  unsigned ee() const { return m_ee; }
  void put(std::uint32_t slot, const bam::BamDescHw& d) { std::memcpy(m_ring.ptr + slot * sizeof d, &d, sizeof d); }
  void doorbell(std::uint32_t offset_bytes) { m_e.host().writel(m_base + bam::BAM_P_EVNT_REG(m_pipe), offset_bytes); }
  std::uint32_t irq_stts() { return m_e.host().readl(m_base + bam::BAM_P_IRQ_STTS(m_pipe)); }
  std::uint32_t sw_ofsts() { return m_e.host().readl(m_base + bam::BAM_P_SW_OFSTS(m_pipe)) & 0xFFFF; }

  // A command descriptor over fresh command elements.
  bam::BamDescHw cmd(const std::vector<bam::BamCmdElement>& ces, std::uint16_t extra_flags = 0) {
    cpu::DmaBuf b = m_e.host().dma_alloc(ces.size() * sizeof(bam::BamCmdElement), 16);
    std::memcpy(b.ptr, ces.data(), ces.size() * sizeof(bam::BamCmdElement));
    return {static_cast<std::uint32_t>(b.addr), static_cast<std::uint16_t>(ces.size() * 16),
            static_cast<std::uint16_t>(bam::DESC_FLAG_CMD | extra_flags)};
  }

 private:
  soc::Emulator& m_e;
  unsigned m_pipe;
  unsigned m_ee;
  std::uint64_t m_base;
  cpu::DmaBuf m_ring;
};

inline void settle() { sc_core::wait(sc_core::sc_time(1, sc_core::SC_US)); }

}  // namespace qcesim::test
