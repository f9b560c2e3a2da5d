#include "qce/cipher_core.h"

#include <spdlog/fmt/fmt.h>

#include "qce/regs_v5.h"

namespace qcesim::qce {

std::string CipherCore::latch(model::RegisterBank& regs) {
  const std::uint32_t encr = regs.at(REG_ENCR_SEG_CFG).value;
  if (encr != 0) return fmt::format("ENCR_SEG_CFG=0x{:08x}: cipher operations are not modelled", encr);
  return "";
}

}  // namespace qcesim::qce
