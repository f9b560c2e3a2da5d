#include "cpu/host.h"

#include "model/dmi_range.h"

#include <spdlog/fmt/fmt.h>

#include <new>

namespace qcesim::cpu {

DmaAllocator::DmaAllocator(std::uint64_t base, std::uint64_t size) { m_free[base] = size; }

std::uint64_t DmaAllocator::alloc(std::uint64_t size, std::uint64_t align) {
  if (size == 0) size = 1;
  if (align == 0) align = 1;
  for (auto it = m_free.begin(); it != m_free.end(); ++it) {
    const std::uint64_t start = it->first, len = it->second;
    const std::uint64_t a = (start + align - 1) / align * align;
    if (a - start > len || len - (a - start) < size) continue;
    m_free.erase(it);
    if (a > start) m_free[start] = a - start;
    if (start + len > a + size) m_free[a + size] = start + len - (a + size);
    m_used[a] = size;
    return a;
  }
  throw std::bad_alloc();
}

void DmaAllocator::free(std::uint64_t addr) {
  auto u = m_used.find(addr);
  if (u == m_used.end()) return;
  std::uint64_t start = addr, size = u->second;
  m_used.erase(u);
  auto next = m_free.lower_bound(start);
  if (next != m_free.end() && start + size == next->first) {
    size += next->second;
    next = m_free.erase(next);
  }
  if (next != m_free.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      size += prev->second;
      m_free.erase(prev);
    }
  }
  m_free[start] = size;
}

std::uint64_t DmaAllocator::bytes_free() const {
  std::uint64_t n = 0;
  for (const auto& f : m_free) n += f.second;
  return n;
}

Host::Host(sc_core::sc_module_name name, std::uint64_t dma_base, std::uint64_t dma_size, const Costs& costs)
    : sc_core::sc_module(name), bus("bus"), m_alloc(dma_base, dma_size), m_costs(costs) {}

// A read returns what the device holds when the CPU gets there: the work charged before it
// must have elapsed. Temporal decoupling: below sync_quantum of debt the read goes ahead early
// by at most that much, which saves a context switch of the simulator per read.
std::uint32_t Host::readl(Runner& r, std::uint64_t addr) {
  if (r.debt() > m_costs.sync_quantum || m_costs.sync_quantum == sc_core::SC_ZERO_TIME) r.sync();
  const std::uint32_t v = readl(addr);
  r.charge(m_costs(Cost::readl));
  return v;
}

void Host::writel(Runner& r, std::uint64_t addr, std::uint32_t value) {
  if (m_exact_writes) r.sync();
  writel(addr, value);
  r.charge(m_costs(Cost::writel));
}

std::uint32_t Host::access(tlm::tlm_command cmd, std::uint64_t addr, std::uint32_t value) {
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  m_trans.set_command(cmd);
  m_trans.set_address(addr);
  m_trans.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
  m_trans.set_data_length(4);
  m_trans.set_streaming_width(4);
  m_trans.set_byte_enable_ptr(nullptr);
  m_trans.set_dmi_allowed(false);
  m_trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  bus->b_transport(m_trans, delay);
  if (!m_trans.is_response_ok()) {
    throw BusFault(cmd == tlm::TLM_READ_COMMAND
                       ? fmt::format("readl(0x{:x}): {}", addr, m_trans.get_response_string())
                       : fmt::format("writel(0x{:x}, 0x{:x}): {}", addr, value, m_trans.get_response_string()),
                   addr);
  }
  return value;
}

std::uint32_t Host::readl(std::uint64_t addr) {
  ++m_stats.mmio_reads;
  return access(tlm::TLM_READ_COMMAND, addr, 0);
}

void Host::writel(std::uint64_t addr, std::uint32_t value) {
  ++m_stats.mmio_writes;
  access(tlm::TLM_WRITE_COMMAND, addr, value);
}

std::uint8_t* Host::dram_ptr(std::uint64_t addr, std::uint64_t len) {
  if (!m_dmi_valid || !model::dmi_covers_range(m_dmi, addr, len)) {
    tlm::tlm_generic_payload t;
    t.set_address(addr);
    t.set_command(tlm::TLM_WRITE_COMMAND);
    if (!bus->get_direct_mem_ptr(t, m_dmi)) throw std::runtime_error(fmt::format("no DMI to DRAM at 0x{:x}", addr));
    m_dmi_valid = true;
    if (!model::dmi_covers_range(m_dmi, addr, len))
      throw std::runtime_error(fmt::format("DMA buffer 0x{:x}+{} outside DRAM", addr, len));
  }
  return m_dmi.get_dmi_ptr() + (addr - m_dmi.get_start_address());
}

DmaBuf Host::dma_alloc(std::size_t size, std::size_t align) {
  DmaBuf b;
  b.addr = m_alloc.alloc(size, align);
  b.size = size;
  b.ptr = dram_ptr(b.addr, size ? size : 1);
  return b;
}

void Host::dma_free(const DmaBuf& buf) {
  if (buf.ptr) m_alloc.free(buf.addr);
}

}  // namespace qcesim::cpu
