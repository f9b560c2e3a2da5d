// The engine's register file as named handles (regs-v5.h's names), in the style of VCML's
// peripherals: each register is built once in the bank (which decodes bus accesses by offset)
// and then reached through its handle, never looked up by offset at run time. The cores read
// what they latch at GO and write back the state they export from these.
#pragma once

#include <array>
#include <cstdint>

#include "model/register_bank.h"
#include "qce/regs_v5.h"

namespace qcesim::qce {

struct QceRegs {
  using Reg = model::Register*;
  Reg VERSION = nullptr, STATUS = nullptr, STATUS2 = nullptr, ENGINES_AVAIL = nullptr, FIFO_SIZES = nullptr;
  Reg SEG_SIZE = nullptr, GOPROC = nullptr, CONFIG = nullptr;
  Reg ENCR_SEG_CFG = nullptr, ENCR_SEG_SIZE = nullptr, ENCR_SEG_START = nullptr;
  std::array<Reg, 4> CNTR_IV{};  // CNTR0_IV0 .. CNTR3_IV3
  Reg CNTR_MASK = nullptr, CNTR_MASK2 = nullptr, CNTR_MASK1 = nullptr, CNTR_MASK0 = nullptr;
  std::array<Reg, 4> ENCR_CCM_INT_CNTR{};
  Reg ENCR_XTS_DU_SIZE = nullptr;
  Reg AUTH_SEG_CFG = nullptr, AUTH_SEG_SIZE = nullptr, AUTH_SEG_START = nullptr;
  std::array<Reg, AUTH_IV_WORDS> AUTH_IV{};
  std::array<Reg, 4> AUTH_INFO_NONCE{};
  std::array<Reg, AUTH_BYTECNT_WORDS> AUTH_BYTECNT{};
  std::array<Reg, 8> ENCR_KEY{}, ENCR_XTS_KEY{};
  std::array<Reg, AUTH_KEY_WORDS> AUTH_KEY{};
};

}  // namespace qcesim::qce
