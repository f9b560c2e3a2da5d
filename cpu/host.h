// The Linux CPU cluster as the drivers see the bus: MMIO readl/writel (charged to the calling
// context's Runner), DMA-able memory in DRAM and its host pointers. Execution contexts,
// interrupts and threads are the Kernel's (cpu/kernel.h).
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "cpu/core.h"
#include "cpu/costs.h"
#include "model/timing_state.h"

namespace qcesim::cpu {

// An MMIO access that the bus answered with an error: an external abort on real hardware.
class BusFault : public std::runtime_error {
 public:
  BusFault(const std::string& what, std::uint64_t addr) : std::runtime_error(what), address(addr) {}
  std::uint64_t address;
};

// A buffer in DRAM: its bus (IOVA = physical, no IOMMU translation modelled) address and
// the host pointer to the same bytes.
struct DmaBuf {
  std::uint64_t addr = 0;
  std::uint8_t* ptr = nullptr;
  std::size_t size = 0;
  explicit operator bool() const { return ptr != nullptr; }
};

// First-fit allocator over a DRAM range, with coalescing on free.
class DmaAllocator {
 public:
  DmaAllocator() = default;
  DmaAllocator(std::uint64_t base, std::uint64_t size);
  // Returns the bus address, or throws std::bad_alloc when no block fits.
  std::uint64_t alloc(std::uint64_t size, std::uint64_t align);
  void free(std::uint64_t addr);
  std::uint64_t bytes_free() const;

 private:
  std::map<std::uint64_t, std::uint64_t> m_free;  // addr -> size
  std::map<std::uint64_t, std::uint64_t> m_used;  // addr -> size
};

struct HostStats {
  std::uint64_t mmio_reads = 0;
  std::uint64_t mmio_writes = 0;
};

class Host : public sc_core::sc_module, public model::TimingState {
 public:
  tlm_utils::simple_initiator_socket<Host> bus;

  Host(sc_core::sc_module_name name, std::uint64_t dma_base, std::uint64_t dma_size, const Costs& costs);

  // Raw bus accesses, no CPU time (tests and set-up).
  std::uint32_t readl(std::uint64_t addr);
  void writel(std::uint64_t addr, std::uint32_t value);
  // Driver accesses: a read waits for the CPU time spent so far and its own round trip; a write
  // is posted now and its cost is paid at the caller's next sync.
  std::uint32_t readl(Runner& r, std::uint64_t addr);
  void writel(Runner& r, std::uint64_t addr, std::uint32_t value);

  DmaBuf dma_alloc(std::size_t size, std::size_t align = 64);
  void dma_free(const DmaBuf& buf);
  // phys_to_virt for DRAM: the host pointer to `len` bytes at bus address `addr`.
  std::uint8_t* dram_ptr(std::uint64_t addr, std::uint64_t len);

  const HostStats& stats() const { return m_stats; }
  // Every driver write lands when the CPU gets there (a sync per write) instead of being posted
  // ahead of the CPU's owed time: slower, needed when another EE may interleave its writes.
  void set_exact_writes(bool on) { m_exact_writes = on; }

  // Each access runs in the calling context at once; the time it owes is that context's (the
  // kernel's runners): no state of its own decides timing.
  void fingerprint(model::StateHash&) const override {}
  std::string timing_name() const override { return name(); }

 private:
  std::uint32_t access(tlm::tlm_command cmd, std::uint64_t addr, std::uint32_t value);

  DmaAllocator m_alloc;
  const Costs& m_costs;
  tlm::tlm_generic_payload m_trans;  // reused: building a payload per access is costly
  tlm::tlm_dmi m_dmi;
  bool m_dmi_valid = false;
  HostStats m_stats;
  bool m_exact_writes = false;
};

}  // namespace qcesim::cpu
