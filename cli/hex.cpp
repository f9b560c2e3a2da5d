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
  // A character that is not a digit is the first thing wrong with the text, whatever its length.
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (nibble(text[i]) >= 0) continue;
    const auto u = static_cast<unsigned char>(text[i]);
    const std::string shown = u >= 0x20 && u < 0x7f ? "'" + std::string(1, text[i]) + "'" : "byte " + std::to_string(u);
    if (why) *why = "hex digits, found " + shown + " at position " + std::to_string(i);
    return std::nullopt;
  }
  if (text.size() % 2 != 0) {
    if (why) *why = "an even number of hex digits, found " + std::to_string(text.size()) + " digits";
    return std::nullopt;
  }
  std::vector<std::uint8_t> out(text.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<std::uint8_t>(nibble(text[2 * i]) << 4 | nibble(text[2 * i + 1]));
  return out;
}

}  // namespace qcesim::cli
