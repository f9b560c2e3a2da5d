// The dma-mapping layer as the CPU pays for it (kernel/dma/mapping.c over drivers/iommu/dma-iommu.c
// and arm-smmu's io-pgtable), item by item, so that its cost follows the scatterlist's shape and
// the IOMMU mode instead of a lump sum per call (iommu_dma_map_sg / iommu_dma_unmap_sg as
// docs/reference/kernel-costs.md and docs/timing.md describe them):
//  - map: the call, then per entry the cache-sync loop (a non-coherent device: every cache line
//    of the entry cleaned to the point of coherency and one DSB that waits for them, since
//    arch_sync_dma_for_device runs per segment), the alignment and finalise loops; one IOVA
//    range for the whole list (alloc_iova_fast); every entry padded to whole IOVA granules, so
//    entries never share an IOVA page, and iommu_map_sg makes one io-pgtable map call per
//    physically contiguous run (each small entry is its own: n command elements of 16 bytes in
//    one page cost n map calls and n page-table entries); where the SMMU's table walker is not
//    coherent each call also cleans its PTE line and waits on a DSB;
//  - unmap: the call and per entry the sync loop (an invalidation of each line the device
//    wrote, with its DSB), one io-pgtable unmap over the whole IOVA range clearing each page's
//    entry, then in strict mode one TLB invalidation per page (arm-smmu v2's TLBIVAL register
//    write after a barrier) and one TLB sync per call, the IOVA freed;
//  - lazy mode (flush queue): no invalidation per unmap; the IOVAs wait in a per-CPU queue that is
//    flushed (one whole-context invalidation and sync) when it is full or its timeout has passed
//    by the next unmap;
//  - passthrough / no IOMMU (dma-direct): only the cache maintenance;
//  - on the device side, every page of a new mapping is an IOTLB miss: the SMMU walks the tables
//    on the BAM's first access to it (a consumer pipe takes the count of the pages the device
//    reads, a producer pipe those it writes: take_fresh_pages).
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
  bool coherent = false;        // dma-coherent in the DT: no cache maintenance
  bool coherent_walk = true;    // the SMMU's dma-coherent: no PTE cleaning on map
  unsigned fq_size = 256;       // IOVA_DEFAULT_FQ_SIZE
  sc_core::sc_time fq_timeout;  // IOVA_DEFAULT_FQ_TIMEOUT
  unsigned page_bytes = 4096, line_bytes = 64;
  // strict or lazy: iommu-dma maps IOVAs through page tables (passthrough and none do not).
  bool translated() const { return mode == IommuMode::strict || mode == IommuMode::lazy; }
};
// iommu.mode, iommu.coherent, iommu.coherent_walk, iommu.fq_size, iommu.fq_timeout.
IommuConfig iommu_config_from_profile(const model::Profile& p);

// What a scatterlist costs to map: its entries (each its own cache-sync call and its own
// io-pgtable map call: iommu-dma pads every entry to whole granules, so consecutive entries are
// never one physically contiguous run unless each fills its pages), the IOVA pages they take
// (each entry rounded out to whole pages) and the cache lines they touch.
struct SgShape {
  std::size_t nents = 0;
  std::uint64_t pages = 0, lines = 0, bytes = 0;
  void add(std::uint64_t addr, std::uint64_t len, unsigned page_bytes = 4096, unsigned line_bytes = 64);
};

struct DmaMapStats {
  std::uint64_t maps = 0, unmaps = 0, pages_mapped = 0, map_calls = 0, tlb_invalidations = 0, tlb_syncs = 0,
                fq_flushes = 0, dsbs = 0;
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
  bool translated() const { return m_cfg.translated(); }
  const Costs& m_costs;
  IommuConfig m_cfg;
  DmaMapStats m_stats;
  unsigned m_fq_used = 0;
  std::uint64_t m_fresh_pages[2] = {0, 0};  // [device reads, device writes]
  sc_core::sc_time m_fq_since;              // when the oldest queued IOVA went in
};

}  // namespace qcesim::cpu
