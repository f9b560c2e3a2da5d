// DRAM as a TLM-2.0 loosely-timed target. Holds descriptor rings, data and result buffers.
// Grants DMI for its whole range so the BAM and the host driver reach bytes through a
// pointer instead of one transaction per burst.
#pragma once

#include <cstdint>
#include <memory>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "model/timing_state.h"

namespace qcesim::model {

class Memory : public sc_core::sc_module, public TimingState {
 public:
  tlm_utils::simple_target_socket<Memory> socket;

  Memory(sc_core::sc_module_name name, std::uint64_t size_bytes);

  std::uint64_t size() const { return m_size; }
  std::uint8_t* data() { return m_data.get(); }

  // Answers every access at once, whatever came before: no state decides its timing (its bytes
  // are data).
  void fingerprint(StateHash&) const override {}
  std::string timing_name() const override { return name(); }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  bool access(tlm::tlm_generic_payload& trans);

  struct Unmap {
    std::size_t size;
    void operator()(std::uint8_t* p) const;
  };
  std::uint64_t m_size;
  // An anonymous mapping: zero pages appear as they are touched, and it starts on a host page,
  // so whole pages of it can be made read-only (model/read_only_pages.h).
  std::unique_ptr<std::uint8_t, Unmap> m_data;
};

}  // namespace qcesim::model
