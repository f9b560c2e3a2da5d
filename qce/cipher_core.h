// The engine's cipher part, beside the auth part (auth_core.h): latched from ENCR_SEG_CFG,
// ENCR_SEG_START/SIZE, the key, XTS key, IV/counter and counter-mask registers at GO and fed
// the cipher segment's bytes. This engine model has no cipher algorithms yet: an operation that
// selects one (ENCR_SEG_CFG not 0) is refused at GO with SW_ERR, and the cipher part takes no
// data. The AES/DES core slots in here; the engine's pipes, timing and dump do not change.
#pragma once

#include <cstdint>
#include <string>

#include "model/register_bank.h"

namespace qcesim::qce {

class CipherCore {
 public:
  // At GO, first of the engine's checks: "" when the operation uses no cipher, else why it
  // cannot run.
  std::string latch(model::RegisterBank& regs);
};

}  // namespace qcesim::qce
