// How the driver reaches the engine's registers: a choice a scenario names, so it lives apart
// from the driver (a scenario parse needs no SystemC).
#pragma once

namespace qcesim::qce {

enum class RegIo {
  mmio,  // mainline: CPU writel() to every register
  bam,   // locking series: register writes as command descriptors, LOCK/UNLOCK around them
};
const char* reg_io_name(RegIo r);

}  // namespace qcesim::qce
