#include "soc/soc.h"

namespace qcesim::soc {

using namespace model;

SocConfig soc_config(const Profile& p) {
  SocConfig s;
  s.num_cores = static_cast<unsigned>(p.num("cpu.cores"));
  s.costs = cpu::costs_from_profile(p);
  s.bam = bam::bam_config(p);
  s.qce = qce::qce_config(p);
  return s;
}

}  // namespace qcesim::soc
