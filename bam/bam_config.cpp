#include "bam/bam.h"

namespace qcesim::bam {

BamConfig bam_config(const model::Profile& p) {
  BamConfig c;
  c.desc_fetch = p.time("bam.desc_fetch");
  c.ce_exec = p.time("bam.ce_exec");
  c.burst = sc_core::sc_time(64.0 / (p.num("bam.bandwidth") * 1e6), sc_core::SC_SEC);  // one 64-byte burst
  c.iotlb_miss = p.time("iommu.tlb_miss");
  return c;
}

}  // namespace qcesim::bam
