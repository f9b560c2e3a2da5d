// The dma-mapping API (kernel/dma/mapping.c) as the drivers call it: dma_map_sg / dma_unmap_sg of
// a scatterlist in a direction, through the kernel's dma-mapping layer (cpu/dma_iommu.h), which
// charges what the mapping costs for the buffer's shape and the IOMMU mode.
#pragma once

#include <initializer_list>
#include <vector>

#include "cpu/core.h"
#include "cpu/dma_iommu.h"
#include "drivers/dma/qcom/bam_dma.h"

namespace qcesim::dma {

using cpu::DmaDir;

// The shape of one or more scatterlists mapped in one call (the data table with the result
// buffer chained, as the qce driver builds it).
inline cpu::SgShape sg_shape(std::initializer_list<const std::vector<bam::ScatterEntry>*> tables) {
  cpu::SgShape s;
  for (const auto* t : tables)
    for (const bam::ScatterEntry& e : *t) s.add(e.addr, e.len);
  return s;
}

inline void dma_map_sg(cpu::Runner& r, cpu::DmaIommu& d, const cpu::SgShape& sg, DmaDir dir) { d.map_sg(r, sg, dir); }
inline void dma_unmap_sg(cpu::Runner& r, cpu::DmaIommu& d, const cpu::SgShape& sg, DmaDir dir) {
  d.unmap_sg(r, sg, dir);
}

}  // namespace qcesim::dma
