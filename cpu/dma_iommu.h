// The dma-mapping layer as the CPU pays for it (kernel/dma/mapping.c over drivers/iommu/dma-iommu.c
// and arm-smmu's io-pgtable), item by item, so that its cost follows the buffer's shape and the
// IOMMU mode instead of a lump sum per call:
//  - map: the call, an IOVA range from the per-CPU rcache (alloc_iova_fast), one page-table
//    write per IOVA page (arm_lpae_map_pages), and for a non-coherent device a clean to the point
//    of coherency of every cache line of the buffer (dcache_clean_poc);
//  - unmap: the call, the page-table clears (arm_lpae_unmap_pages), then in strict mode one TLB
//    invalidation per page (arm-smmu v2's TLBIVA register writes) and one TLB sync per call, the
//    IOVA freed; a non-coherent device's buffer is invalidated unless it only went to the device;
//  - lazy mode (flush queue): no invalidation per unmap; the IOVAs wait in a per-CPU queue that is
//    flushed (one whole-context invalidation and sync) when it is full or its timeout has passed
//    by the next unmap;
//  - passthrough / no IOMMU (dma-direct): only the cache maintenance;
//  - on the device side, every page of a new mapping is an IOTLB miss: the SMMU walks the tables
//    on the BAM's first access to it (a consumer pipe takes the count of the pages the device
//    reads, a producer pipe those it writes: take_fresh_pages).
// iommu-dma gives every scatterlist entry its own IOVA granule(s): n command elements of 8 bytes
// in one buffer cost n pages of mapping, n invalidations and one sync.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <systemc>

#include "cpu/core.h"
#include "model/state_hash.h"

namespace qcesim::model {
class Profile;
}

namespace qcesim::cpu {

struct Costs;

enum class DmaDir : std::uint8_t { to_device, from_device, bidirectional };
enum class IommuMode : std::uint8_t { strict, lazy, passthrough, none };
IommuMode parse_iommu_mode(const std::string& name);  // std::invalid_argument if unknown
const char* iommu_mode_name(IommuMode m);

struct IommuConfig {
  IommuMode mode = IommuMode::strict;
  bool coherent = false;                 // dma-coherent in the DT: no cache maintenance
  unsigned fq_size = 256;                // IOVA_DEFAULT_FQ_SIZE
  sc_core::sc_time fq_timeout;           // IOVA_DEFAULT_FQ_TIMEOUT
  unsigned page_bytes = 4096, line_bytes = 64;
};
// iommu.mode, iommu.coherent, iommu.fq_size, iommu.fq_timeout.
IommuConfig iommu_config_from_profile(const model::Profile& p);

// What a scatterlist costs to map: its entries, the IOVA pages they take (each entry rounded out
// to whole pages) and the cache lines they touch.
struct SgShape {
  std::size_t nents = 0;
  std::uint64_t pages = 0, lines = 0, bytes = 0;
  void add(std::uint64_t addr, std::uint64_t len, unsigned page_bytes = 4096, unsigned line_bytes = 64);
};

struct DmaMapStats {
  std::uint64_t maps = 0, unmaps = 0, pages_mapped = 0, tlb_invalidations = 0, tlb_syncs = 0, fq_flushes = 0;
};

class DmaIommu {
 public:
  DmaIommu(const Costs& costs, const IommuConfig& cfg) : m_costs(costs), m_cfg(cfg) {}
  void map_sg(Runner& r, const SgShape& sg, DmaDir dir);
  void unmap_sg(Runner& r, const SgShape& sg, DmaDir dir);
  const IommuConfig& config() const { return m_cfg; }
  // The IOVA pages mapped since the last call (translated modes only): the device's IOTLB has
  // none of them, so its first access to each walks the page tables (bam::BamConfig::iotlb_miss).
  // `reads`: the pages the device reads (to_device, bidirectional), else those it writes.
  std::uint64_t take_fresh_pages(bool reads) { return std::exchange(m_fresh_pages[reads ? 0 : 1], 0); }
  const DmaMapStats& stats() const { return m_stats; }
  // The flush queue's fill and age, the pages not yet walked (model/state_hash.h).
  void fingerprint(model::StateHash& h) const {
    h.add(std::uint64_t{m_fq_used});
    if (m_fq_used) h.add_at(m_fq_since);
    h.add(m_fresh_pages[0]);
    h.add(m_fresh_pages[1]);
  }

 private:
  void cache_maintenance(Runner& r, const SgShape& sg, bool clean);
  const Costs& m_costs;
  IommuConfig m_cfg;
  DmaMapStats m_stats;
  unsigned m_fq_used = 0;
  std::uint64_t m_fresh_pages[2] = {0, 0};  // [device reads, device writes]
  sc_core::sc_time m_fq_since;  // when the oldest queued IOVA went in
};

}  // namespace qcesim::cpu
