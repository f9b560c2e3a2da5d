#include "bam/bam.h"

namespace qcesim::bam {

BamConfig bam_config(const model::Profile& p) {
  BamConfig c;
  c.desc_fetch = p.time("bam.desc_fetch");
  c.ce_fetch = p.time("bam.ce_fetch");
  // The element's write crosses the config bus into the engine at the engine's clock.
  c.ce_write = sc_core::sc_time(p.num("bam.ce_write_cycles") / (p.num("qce.clock") * 1e6), sc_core::SC_SEC);
  c.ce_exec = c.ce_fetch + c.ce_write;
  c.burst = sc_core::sc_time(64.0 / (p.num("bam.bandwidth") * 1e6), sc_core::SC_SEC);  // one 64-byte burst
  c.iotlb_miss = p.time("iommu.tlb_miss");
  return c;
}

}  // namespace qcesim::bam
