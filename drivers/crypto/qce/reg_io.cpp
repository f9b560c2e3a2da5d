#include "drivers/crypto/qce/reg_io.h"

namespace qcesim::qce {

const char* reg_io_name(RegIo r) { return r == RegIo::mmio ? "mmio" : "bam"; }

}  // namespace qcesim::qce
