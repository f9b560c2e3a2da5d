// Whether a TLM DMI grant covers an access: the bounds test every initiator with a cached
// grant makes before it touches the granted pointer.
#pragma once

#include <cstdint>
#include <tlm>

namespace qcesim::model {

// [addr, addr + len) inside the grant's [start, end]. Written so that nothing wraps: with the
// room left computed as end + 1 - addr, an address past the end (a descriptor ring or a buffer
// address from a guest's register) made the room look huge and the access ran off the grant.
inline bool dmi_covers_range(const tlm::tlm_dmi& dmi, std::uint64_t addr, std::uint64_t len) {
  const std::uint64_t start = dmi.get_start_address();
  const std::uint64_t end = dmi.get_end_address();
  return addr >= start && addr <= end && (len == 0 || len - 1 <= end - addr);
}

}  // namespace qcesim::model
