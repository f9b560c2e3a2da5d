#include "cli/numbers.h"

#include <cmath>
#include <cstdlib>
#include <spdlog/fmt/fmt.h>
#include <spdlog/fmt/ranges.h>

#include "model/config_error.h"

namespace qcesim::cli {

bool parse_whole(const std::string& text, std::uint64_t min, std::uint64_t max, std::uint64_t& value) {
  if (text.empty() || text.size() > 20) return false;
  std::uint64_t v = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;  // beyond 2^64 - 1
    v = v * 10 + d;
  }
  if (v < min || v > max) return false;
  value = v;
  return true;
}

CLI::Validator whole_number(std::uint64_t min, std::uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        std::uint64_t v = 0;
        if (parse_whole(text, min, max, v)) return "";
        return fmt::format("expected a whole number from {} to {}, found {}", min, max, model::quoted_input(text));
      },
      fmt::format("{}..{}", min, max));
}

CLI::Validator real_number(double min, double max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        // Digits with at most one point, then an optional e/E exponent with its own sign.
        bool ok = !text.empty() && text.size() <= 40;
        bool digit = false, point = false;
        std::size_t i = 0;
        for (; ok && i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) {
          if (text[i] >= '0' && text[i] <= '9') {
            digit = true;
          } else if (text[i] == '.' && !point) {
            point = true;
          } else {
            ok = false;
          }
        }
        if (ok && i < text.size()) {  // exponent
          ++i;
          if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
          ok = i < text.size() && text.find_first_not_of("0123456789", i) == std::string::npos;
        }
        if (ok && digit) {
          const double v = std::strtod(text.c_str(), nullptr);
          if (std::isfinite(v) && v >= min && v <= max) return "";
        }
        return fmt::format("expected a number from {} to {}, found {}", min, max, model::quoted_input(text));
      },
      fmt::format("{}..{}", min, max));
}

CLI::Validator one_of(const std::vector<std::string>& words) {
  return CLI::Validator(
      [words](std::string& text) -> std::string {
        for (const std::string& w : words)
          if (text == w) return "";
        return fmt::format("expected one of {}, found {}", fmt::join(words, ", "), model::quoted_input(text));
      },
      fmt::format("{{{}}}", fmt::join(words, ",")));
}

}  // namespace qcesim::cli
