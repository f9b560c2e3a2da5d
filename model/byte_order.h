// Big-endian 32-bit words and their bytes: how the engine's key, IV and state registers, the
// result dump and the driver's qce_cpu_to_be32p_array see byte strings. And copy_bytes: memcpy
// for byte strings that may be empty (an empty vector's data() may be null, which memcpy forbids).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace qcesim {

inline std::uint32_t load_be32(const std::uint8_t* b) {
  return (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8) | b[3];
}

inline void store_be32(std::uint8_t* b, std::uint32_t w) {
  for (unsigned k = 0; k < 4; ++k) b[k] = static_cast<std::uint8_t>(w >> (24 - 8 * k));
}

inline void copy_bytes(void* dst, const void* src, std::size_t n) {
  if (n) std::memcpy(dst, src, n);
}

}  // namespace qcesim
