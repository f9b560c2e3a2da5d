// The Linux CPU as the drivers see it: MMIO readl/writel over the bus, DMA-able memory in
// DRAM, a level-sensitive interrupt input, and one long-lived thread that runs the driver
// code (a "job") inside simulated time. Timing of these primitives comes with the CPU model.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

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
  std::uint64_t irqs = 0;
};

class Host : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Host> bus;
  sc_core::sc_in<bool> irq;

  Host(sc_core::sc_module_name name, std::uint64_t dma_base, std::uint64_t dma_size);

  std::uint32_t readl(std::uint64_t addr);
  void writel(std::uint64_t addr, std::uint32_t value);

  DmaBuf dma_alloc(std::size_t size, std::size_t align = 64);
  void dma_free(const DmaBuf& buf);

  // Waits until the interrupt line is high; false if `timeout` of simulated time passes first.
  bool wait_irq(const sc_core::sc_time& timeout);

  // The code to run on the CPU thread once the simulation starts; sc_stop() follows it.
  void set_job(std::function<void()> job) { m_job = std::move(job); }
  bool job_finished() const { return m_finished; }
  std::exception_ptr job_exception() const { return m_exception; }

  // phys_to_virt for DRAM: the host pointer to `len` bytes at bus address `addr`.
  std::uint8_t* dram_ptr(std::uint64_t addr, std::uint64_t len);

  const HostStats& stats() const { return m_stats; }

 private:
  void cpu_thread();

  DmaAllocator m_alloc;
  tlm::tlm_dmi m_dmi;
  bool m_dmi_valid = false;
  std::function<void()> m_job;
  bool m_finished = false;
  std::exception_ptr m_exception;
  HostStats m_stats;
};

}  // namespace qcesim::cpu
