#include "model/memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <new>

namespace qcesim::model {

void Memory::Unmap::operator()(std::uint8_t* p) const { munmap(p, size); }

Memory::Memory(sc_core::sc_module_name name, std::uint64_t size_bytes)
    : sc_core::sc_module(name), socket("socket"), m_size(size_bytes), m_data(nullptr, Unmap{0}) {
  // Fresh zero pages are mapped lazily, so a large DRAM costs only what is used.
  const auto bytes = static_cast<std::size_t>(std::max<std::uint64_t>(size_bytes, 1));
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  m_data = std::unique_ptr<std::uint8_t, Unmap>(static_cast<std::uint8_t*>(p), Unmap{bytes});
  socket.register_b_transport(this, &Memory::b_transport);
  socket.register_get_direct_mem_ptr(this, &Memory::get_direct_mem_ptr);
  socket.register_transport_dbg(this, &Memory::transport_dbg);
}

bool Memory::access(tlm::tlm_generic_payload& trans) {
  const std::uint64_t addr = trans.get_address();
  const std::uint64_t len = trans.get_data_length();
  if (trans.get_byte_enable_ptr()) {
    trans.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return false;
  }
  if (addr >= m_size || len > m_size - addr) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  std::uint8_t* mem = m_data.get() + addr;
  if (trans.is_read()) {
    std::memcpy(trans.get_data_ptr(), mem, len);
  } else if (trans.is_write()) {
    std::memcpy(mem, trans.get_data_ptr(), len);
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  return true;
}

void Memory::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time&) {
  if (access(trans)) trans.set_dmi_allowed(true);
}

unsigned int Memory::transport_dbg(tlm::tlm_generic_payload& trans) {
  return access(trans) ? trans.get_data_length() : 0u;
}

bool Memory::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  dmi.allow_read_write();
  dmi.set_dmi_ptr(m_data.get());
  dmi.set_start_address(0);
  dmi.set_end_address(m_size - 1);
  dmi.set_read_latency(sc_core::SC_ZERO_TIME);
  dmi.set_write_latency(sc_core::SC_ZERO_TIME);
  return true;
}

}  // namespace qcesim::model
