// The device-tree facts a SoC's crypto blocks are wired by: where the crypto engine and its BAM
// sit, which execution environment Linux is on that BAM, the pipe pair of the "rx"/"tx" dmas,
// the BAM's interrupt and the upper address bits the BAM adds to a command element's 24-bit
// register address. Facts, not model parameters: a profile names its SoC (soc.dt) and the
// table gives the rest; each entry says where it was read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace qcesim::soc {

struct DeviceTree {
  std::string name;                          // soc.dt
  std::string compatible;                    // the crypto node's
  std::uint64_t qce_base = 0, qce_size = 0;  // crypto@...
  std::uint64_t bam_base = 0, bam_size = 0;  // cryptobam: dma-controller@...
  unsigned bam_ee = 0;                       // qcom,ee
  unsigned rx_pipe = 0, tx_pipe = 0;         // dmas = <&cryptobam rx>, <&cryptobam tx>
  unsigned bam_spi = 0;                      // the cryptobam's GIC_SPI number
  std::uint32_t ce_addr_base = 0;            // address bits above a command element's 24 [I]
  std::string provenance;
};

// The built-in entries; throws std::invalid_argument naming the choices for an unknown one.
const DeviceTree& device_tree(const std::string& name);
std::vector<std::string> device_tree_names();

}  // namespace qcesim::soc
