#include "cli/hex.h"

namespace qcesim::cli {

std::string to_hex(const std::vector<std::uint8_t>& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (std::uint8_t b : bytes) {
    s.push_back(digits[b >> 4]);
    s.push_back(digits[b & 0xF]);
  }
  return s;
}

std::optional<std::vector<std::uint8_t>> parse_hex(const std::string& text, std::string* why) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (text.size() % 2 != 0) {
    if (why) *why = "an even number of hex digits, found " + std::to_string(text.size()) + " digits";
    return std::nullopt;
  }
  std::vector<std::uint8_t> out(text.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int hi = nibble(text[2 * i]), lo = nibble(text[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      if (why) *why = "hex digits, found '" + std::string(1, hi < 0 ? text[2 * i] : text[2 * i + 1]) +
                      "' at position " + std::to_string(hi < 0 ? 2 * i : 2 * i + 1);
      return std::nullopt;
    }
    out[i] = static_cast<std::uint8_t>(hi << 4 | lo);
  }
  return out;
}

}  // namespace qcesim::cli
