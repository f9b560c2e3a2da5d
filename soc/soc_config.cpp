#include "soc/device_tree.h"
#include "soc/soc.h"

namespace qcesim::soc {

using namespace model;

SocConfig soc_config(const Profile& p) {
  SocConfig s;
  const DeviceTree& dt = parse_named(p.param("soc.dt"), "a SoC of the device-tree table", device_tree);
  s.map.qce_base = dt.qce_base;
  s.map.qce_size = dt.qce_size;
  s.map.bam_base = dt.bam_base;
  s.map.bam_size = dt.bam_size;
  s.linux_ee = dt.bam_ee;
  s.rx_pipe = dt.rx_pipe;
  s.tx_pipe = dt.tx_pipe;
  s.costs = cpu::costs_from_profile(p);
  s.bam = bam::bam_config(p);
  s.bam.ce_addr_base = dt.ce_addr_base;
  s.bam.pipe_owner_ee = dt.bam_ee;
  s.qce = qce::qce_config(p);
  return s;
}

}  // namespace qcesim::soc
