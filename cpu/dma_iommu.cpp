#include "cpu/dma_iommu.h"

#include <stdexcept>

#include "cpu/costs.h"
#include "model/profile.h"

namespace qcesim::cpu {

using sc_core::sc_time;

IommuMode parse_iommu_mode(const std::string& name) {
  if (name == "strict") return IommuMode::strict;
  if (name == "lazy") return IommuMode::lazy;
  if (name == "passthrough") return IommuMode::passthrough;
  if (name == "none") return IommuMode::none;
  throw std::invalid_argument("strict, lazy, passthrough or none");
}

const char* iommu_mode_name(IommuMode m) {
  switch (m) {
    case IommuMode::strict:
      return "strict";
    case IommuMode::lazy:
      return "lazy";
    case IommuMode::passthrough:
      return "passthrough";
    case IommuMode::none:
      return "none";
  }
  return "?";
}

IommuConfig iommu_config_from_profile(const model::Profile& p) {
  IommuConfig c;
  c.mode = model::parse_named(p.param("iommu.mode"), "an IOMMU mode", parse_iommu_mode);
  c.coherent = p.num("iommu.coherent") != 0;
  c.coherent_walk = p.num("iommu.coherent_walk") != 0;
  c.fq_size = static_cast<unsigned>(p.num("iommu.fq_size"));
  c.fq_timeout = p.time("iommu.fq_timeout");
  return c;
}

void SgShape::add(std::uint64_t addr, std::uint64_t len, unsigned page_bytes, unsigned line_bytes) {
  ++nents;
  bytes += len;
  if (len == 0) return;
  const std::uint64_t end = addr + len;
  pages += (end + page_bytes - 1) / page_bytes - addr / page_bytes;
  lines += (end + line_bytes - 1) / line_bytes - addr / line_bytes;
}

namespace {
Charge times(const Costs& c, Cost item, std::uint64_t n) { return c.times(item, static_cast<double>(n)); }
}  // namespace

// arch_sync_dma_for_device cleans for every direction; arch_sync_dma_for_cpu invalidates unless
// the buffer only went to the device. Both run per entry, each ending in a DSB.
void DmaIommu::cache_maintenance(Runner& r, const SgShape& sg, bool clean) {
  if (m_cfg.coherent) return;
  r.charge(times(m_costs, clean ? Cost::dcache_clean_poc : Cost::dcache_inval_poc, sg.lines));
  r.charge(times(m_costs, Cost::dsb_poc, sg.nents));
  m_stats.dsbs += sg.nents;
}

void DmaIommu::map_sg(Runner& r, const SgShape& sg, DmaDir dir) {
  ++m_stats.maps;
  r.charge(m_costs(Cost::dma_map_sg));
  r.charge(times(m_costs, Cost::dma_map_sg_entry, sg.nents));
  cache_maintenance(r, sg, true);
  if (!translated()) return;
  r.charge(m_costs(Cost::alloc_iova_fast));
  // One io-pgtable call per entry (each padded to its own granules), a PTE per page.
  r.charge(times(m_costs, Cost::arm_lpae_map_pages, sg.nents));
  r.charge(times(m_costs, Cost::arm_lpae_init_pte, sg.pages));
  r.charge(times(m_costs, Cost::dsb_st, sg.nents));  // the wmb() that ends each map call
  if (!m_cfg.coherent_walk) {
    // __arm_lpae_sync_pte: the new entries' line cleaned for the walker, per call.
    r.charge(times(m_costs, Cost::dcache_clean_poc, sg.nents));
    r.charge(times(m_costs, Cost::dsb_poc, sg.nents));
    m_stats.dsbs += sg.nents;
  }
  m_stats.map_calls += sg.nents;
  m_stats.pages_mapped += sg.pages;
  m_fresh_pages[dir == DmaDir::from_device ? 1 : 0] += sg.pages;
}

void DmaIommu::unmap_sg(Runner& r, const SgShape& sg, DmaDir dir) {
  ++m_stats.unmaps;
  r.charge(m_costs(Cost::dma_unmap_sg));
  r.charge(times(m_costs, Cost::dma_unmap_sg_entry, sg.nents));
  if (dir != DmaDir::to_device) cache_maintenance(r, sg, false);
  if (!translated()) return;
  r.charge(times(m_costs, Cost::arm_lpae_unmap_pages, sg.pages));
  if (m_cfg.mode == IommuMode::strict) {
    r.charge(times(m_costs, Cost::arm_smmu_tlb_inv, sg.pages));
    r.charge(m_costs(Cost::arm_smmu_tlb_sync));
    r.charge(m_costs(Cost::free_iova_fast));
    m_stats.tlb_invalidations += sg.pages;
    ++m_stats.tlb_syncs;
    return;
  }
  // Lazy: queue the IOVA; a full queue, or one older than the timeout, is flushed now (the
  // kernel's timer would do the latter in softirq; charging it here keeps the count and the
  // cost, on the path that finds it due).
  const sc_time now = sc_core::sc_time_stamp();
  if (m_fq_used == 0) m_fq_since = now;
  ++m_fq_used;
  if (m_fq_used >= m_cfg.fq_size || now - m_fq_since >= m_cfg.fq_timeout) {
    r.charge(m_costs(Cost::arm_smmu_tlb_inv));  // one whole-context invalidation
    r.charge(m_costs(Cost::arm_smmu_tlb_sync));
    r.charge(times(m_costs, Cost::free_iova_fast, m_fq_used));
    ++m_stats.tlb_invalidations;
    ++m_stats.tlb_syncs;
    ++m_stats.fq_flushes;
    m_fq_used = 0;
  }
}

}  // namespace qcesim::cpu
