#include "model/bus.h"

#include <stdexcept>

namespace qcesim::model {

Bus::Bus(sc_core::sc_module_name name)
    : sc_core::sc_module(name), from_initiators("from_initiators"), to_targets("to_targets") {
  from_initiators.register_b_transport(this, &Bus::b_transport);
  from_initiators.register_get_direct_mem_ptr(this, &Bus::get_direct_mem_ptr);
  from_initiators.register_transport_dbg(this, &Bus::transport_dbg);
  to_targets.register_invalidate_direct_mem_ptr(this, &Bus::invalidate_direct_mem_ptr);
}

void Bus::map(const std::string& name, std::uint64_t base, std::uint64_t size, unsigned target) {
  for (const auto& w : m_windows) {
    if (base < w.base + w.size && w.base < base + size)
      throw std::invalid_argument("bus: window " + name + " overlaps " + w.name);
  }
  m_windows.push_back({name, base, size, target});
}

const AddressWindow* Bus::decode(std::uint64_t addr) const {
  for (const auto& w : m_windows)
    if (addr >= w.base && addr - w.base < w.size) return &w;
  return nullptr;
}

void Bus::b_transport(int, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const std::uint64_t addr = trans.get_address();
  const AddressWindow* w = decode(addr);
  if (!w || trans.get_data_length() > w->size - (addr - w->base)) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  trans.set_address(addr - w->base);
  to_targets[static_cast<int>(w->target)]->b_transport(trans, delay);
  trans.set_address(addr);
}

bool Bus::get_direct_mem_ptr(int, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  const std::uint64_t addr = trans.get_address();
  const AddressWindow* w = decode(addr);
  if (!w) return false;
  trans.set_address(addr - w->base);
  const bool ok = to_targets[static_cast<int>(w->target)]->get_direct_mem_ptr(trans, dmi);
  trans.set_address(addr);
  if (ok) {
    // Translate the granted range back to global addresses, clipped to the window.
    dmi.set_start_address(dmi.get_start_address() + w->base);
    std::uint64_t end = dmi.get_end_address() + w->base;
    if (end > w->base + w->size - 1) end = w->base + w->size - 1;
    dmi.set_end_address(end);
  }
  return ok;
}

unsigned int Bus::transport_dbg(int, tlm::tlm_generic_payload& trans) {
  const std::uint64_t addr = trans.get_address();
  const AddressWindow* w = decode(addr);
  if (!w) return 0;
  trans.set_address(addr - w->base);
  const unsigned n = to_targets[static_cast<int>(w->target)]->transport_dbg(trans);
  trans.set_address(addr);
  return n;
}

void Bus::invalidate_direct_mem_ptr(int id, sc_dt::uint64 start, sc_dt::uint64 end) {
  for (const auto& w : m_windows) {
    if (static_cast<int>(w.target) != id) continue;
    for (unsigned i = 0; i < from_initiators.size(); ++i)
      from_initiators[static_cast<int>(i)]->invalidate_direct_mem_ptr(start + w.base, end + w.base);
  }
}

}  // namespace qcesim::model
