// The interconnect: decodes global physical addresses to targets (DRAM, QCE registers,
// BAM registers) and forwards b_transport, DMI and debug accesses with the window base
// taken off. An address no window claims gets TLM_ADDRESS_ERROR_RESPONSE, which initiators
// turn into their own error (an external abort for the CPU, a pipe error for the BAM).
#pragma once

#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "model/timing_state.h"
#include <vector>

namespace qcesim::model {

struct AddressWindow {
  std::string name;
  std::uint64_t base;
  std::uint64_t size;
  unsigned target;  // index of the bound target socket
};

class Bus : public sc_core::sc_module, public TimingState {
 public:
  tlm_utils::multi_passthrough_target_socket<Bus> from_initiators;
  tlm_utils::multi_passthrough_initiator_socket<Bus> to_targets;

  explicit Bus(sc_core::sc_module_name name);

  // Maps [base, base+size) to the target bound as number `target` on to_targets.
  void map(const std::string& name, std::uint64_t base, std::uint64_t size, unsigned target);
  const AddressWindow* decode(std::uint64_t addr) const;
  const std::vector<AddressWindow>& windows() const { return m_windows; }

  // Routes each access by its address alone: no state decides its timing.
  void fingerprint(StateHash&) const override {}
  std::string timing_name() const override { return name(); }

 private:
  void b_transport(int id, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  unsigned int transport_dbg(int id, tlm::tlm_generic_payload& trans);
  void invalidate_direct_mem_ptr(int id, sc_dt::uint64 start, sc_dt::uint64 end);

  std::vector<AddressWindow> m_windows;
};

}  // namespace qcesim::model
