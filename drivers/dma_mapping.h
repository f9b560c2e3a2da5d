// The dma-mapping API (kernel/dma/mapping.c, through the IOMMU's dma-iommu ops) as the drivers
// call it: the CPU time of mapping a scatterlist for the device and of unmapping it again. The
// drivers call these instead of charging the cost items themselves, so a finer IOMMU model
// (IOVA allocation, page-table writes, TLB invalidation and sync per unmap call) replaces this
// file and nothing in the drivers.
#pragma once

#include <cstddef>

#include "cpu/core.h"
#include "cpu/costs.h"

namespace qcesim::dma {

// dma_map_sg of nents entries: one call plus one IOMMU map per entry.
inline void dma_map_sg(cpu::Runner& r, const cpu::Costs& c, std::size_t nents) {
  r.charge(c(cpu::Cost::dma_map_sg, cpu::Cost::dma_map_sg_per_entry, nents));
}

// dma_unmap_sg of nents entries: one call plus one IOMMU unmap (with its TLB invalidation) per entry.
inline void dma_unmap_sg(cpu::Runner& r, const cpu::Costs& c, std::size_t nents) {
  r.charge(c(cpu::Cost::dma_unmap_sg, cpu::Cost::dma_unmap_sg_per_entry, nents));
}

}  // namespace qcesim::dma
