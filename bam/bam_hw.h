// BAM v1.7.0 programming interface as the Linux bam_dma driver and include/linux/dma/qcom_bam_dma.h
// define it: register offsets, bits, the 8-byte hardware descriptor and the 16-byte command element.
// Shared by the BAM model (bam.cpp) and the dmaengine-side driver (bam_dma.cpp).
#pragma once

#include <cstdint>

namespace qcesim::bam {

// Global registers.
constexpr std::uint32_t BAM_CTRL = 0x0000;
constexpr std::uint32_t BAM_DESC_CNT_TRSHLD = 0x0008;
constexpr std::uint32_t BAM_IRQ_STTS = 0x0014;
constexpr std::uint32_t BAM_IRQ_CLR = 0x0018;
constexpr std::uint32_t BAM_IRQ_EN = 0x001C;
constexpr std::uint32_t BAM_CNFG_BITS = 0x007C;
constexpr std::uint32_t BAM_REVISION = 0x1000;
constexpr std::uint32_t BAM_NUM_PIPES = 0x1008;
constexpr std::uint32_t BAM_IRQ_SRCS_EE(unsigned ee) { return 0x3000 + 0x1000 * ee; }
constexpr std::uint32_t BAM_IRQ_SRCS_MSK_EE(unsigned ee) { return 0x3004 + 0x1000 * ee; }

// Per-pipe registers.
constexpr std::uint32_t BAM_P_CTRL(unsigned p) { return 0x13000 + 0x1000 * p; }
constexpr std::uint32_t BAM_P_RST(unsigned p) { return 0x13004 + 0x1000 * p; }
constexpr std::uint32_t BAM_P_HALT(unsigned p) { return 0x13008 + 0x1000 * p; }
constexpr std::uint32_t BAM_P_IRQ_STTS(unsigned p) { return 0x13010 + 0x1000 * p; }
constexpr std::uint32_t BAM_P_IRQ_CLR(unsigned p) { return 0x13014 + 0x1000 * p; }
constexpr std::uint32_t BAM_P_IRQ_EN(unsigned p) { return 0x13018 + 0x1000 * p; }
// Pipe-to-EE assignment. Linux never writes it (the BAM is "controlled remotely": the
// secure side owns the mapping); the offset and EE[2:0] field are the model's [I].
constexpr std::uint32_t BAM_P_TRUST_REG(unsigned p) { return 0x13020 + 0x1000 * p; }
constexpr std::uint32_t BAM_P_SW_OFSTS(unsigned p) { return 0x13800 + 0x1000 * p; }
constexpr std::uint32_t BAM_P_EVNT_REG(unsigned p) { return 0x13818 + 0x1000 * p; }
constexpr std::uint32_t BAM_P_DESC_FIFO_ADDR(unsigned p) { return 0x1381C + 0x1000 * p; }
constexpr std::uint32_t BAM_P_FIFO_SIZES(unsigned p) { return 0x13820 + 0x1000 * p; }
constexpr std::uint32_t BAM_P_EVNT_GEN_TRSHLD(unsigned p) { return 0x13828 + 0x1000 * p; }

// BAM_REVISION.
constexpr std::uint32_t CMD_DESC_EN = 1u << 23;

// BAM_CTRL.
constexpr std::uint32_t BAM_SW_RST = 1u << 0;
constexpr std::uint32_t BAM_EN = 1u << 1;

// BAM_P_CTRL.
constexpr std::uint32_t P_EN = 1u << 1;
constexpr std::uint32_t P_DIRECTION = 1u << 3;  // set: producer (peripheral to memory)
constexpr std::uint32_t P_SYS_STRM = 1u << 4;
constexpr std::uint32_t P_SYS_MODE = 1u << 5;
constexpr std::uint32_t P_LOCK_GROUP_SHIFT = 16;
constexpr std::uint32_t P_LOCK_GROUP_MASK = 0x1Fu << P_LOCK_GROUP_SHIFT;

// BAM_P_IRQ_STTS / _CLR / _EN.
constexpr std::uint32_t P_PRCSD_DESC = 1u << 0;  // a descriptor with INT was processed
constexpr std::uint32_t P_TIMER = 1u << 1;
constexpr std::uint32_t P_WAKE = 1u << 2;
constexpr std::uint32_t P_OUT_OF_DESC = 1u << 3;
constexpr std::uint32_t P_ERR = 1u << 4;
constexpr std::uint32_t P_TRNSFR_END = 1u << 5;  // a descriptor with EOT was processed
constexpr std::uint32_t P_DEFAULT_IRQS_EN = P_PRCSD_DESC | P_ERR | P_TRNSFR_END;

// BAM_IRQ_SRCS_EE.
constexpr std::uint32_t P_IRQ = 0x7fffffffu;
constexpr std::uint32_t BAM_IRQ = 1u << 31;

// Hardware descriptor flags.
constexpr std::uint16_t DESC_FLAG_INT = 0x8000;
constexpr std::uint16_t DESC_FLAG_EOT = 0x4000;
constexpr std::uint16_t DESC_FLAG_EOB = 0x2000;
constexpr std::uint16_t DESC_FLAG_NWD = 0x1000;
constexpr std::uint16_t DESC_FLAG_CMD = 0x0800;
constexpr std::uint16_t DESC_FLAG_LOCK = 0x0400;
constexpr std::uint16_t DESC_FLAG_UNLOCK = 0x0200;

// struct bam_desc_hw: little-endian in memory.
struct BamDescHw {
  std::uint32_t addr;
  std::uint16_t size;  // bytes
  std::uint16_t flags;
};
static_assert(sizeof(BamDescHw) == 8, "BAM descriptors are 8 bytes");
constexpr std::uint32_t BAM_DESC_BYTES = 8;

// struct bam_cmd_element.
struct BamCmdElement {
  std::uint32_t cmd_and_addr;  // addr[23:0] | cmd << 24
  std::uint32_t data;          // value to write, or destination address of a read
  std::uint32_t mask;
  std::uint32_t reserved;
};
static_assert(sizeof(BamCmdElement) == 16, "command elements are 16 bytes");

constexpr std::uint32_t BAM_WRITE_COMMAND = 0;
constexpr std::uint32_t BAM_READ_COMMAND = 1;
constexpr std::uint32_t BAM_CE_ADDR_MASK = 0x00FFFFFFu;

inline BamCmdElement bam_prep_ce(std::uint32_t addr, std::uint32_t cmd, std::uint32_t data) {
  return {(addr & BAM_CE_ADDR_MASK) | (cmd << 24), data, 0xFFFFFFFFu, 0};
}

// Sizes the Linux driver uses.
constexpr std::uint32_t BAM_DESC_FIFO_SIZE = 32 * 1024;                                // bytes per ring
constexpr std::uint32_t MAX_DESCRIPTORS = BAM_DESC_FIFO_SIZE / sizeof(BamDescHw) - 1;  // 4095
constexpr std::uint32_t BAM_FIFO_SIZE = 32 * 1024 - 8;                                 // max bytes per descriptor
constexpr std::uint32_t BAM_BURST_BYTES = 64;                                          // BAM<->CE block

}  // namespace qcesim::bam
