#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace qcesim::cli {

std::string to_hex(const std::vector<std::uint8_t>& bytes);
// Parses an even-length hex string; returns nullopt (and why) when it is not one.
std::optional<std::vector<std::uint8_t>> parse_hex(const std::string& text, std::string* why = nullptr);

}  // namespace qcesim::cli
