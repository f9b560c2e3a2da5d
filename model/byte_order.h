// Big-endian 32-bit words and their bytes: how the engine's key, IV and state registers, the
// result dump and the driver's qce_cpu_to_be32p_array see byte strings. Little-endian integers of
// 1 to 8 bytes: the result dump's counters and the driver's native fields as an arm64 kernel
// lays them out (the exported hash state). And copy_bytes: memcpy for byte strings that may be
// empty (an empty vector's data() may be null, which memcpy forbids).
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

inline std::uint64_t load_le(const std::uint8_t* b, std::size_t bytes) {
  std::uint64_t v = 0;
  for (std::size_t k = 0; k < bytes; ++k) v |= std::uint64_t{b[k]} << (8 * k);
  return v;
}

inline void store_le(std::uint8_t* b, std::uint64_t v, std::size_t bytes) {
  for (std::size_t k = 0; k < bytes; ++k) b[k] = static_cast<std::uint8_t>(v >> (8 * k));
}

inline void copy_bytes(void* dst, const void* src, std::size_t n) {
  if (n) std::memcpy(dst, src, n);
}

}  // namespace qcesim
