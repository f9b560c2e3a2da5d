#include "model/text_safety.h"

#include <algorithm>
#include <cstdint>

#include "spdlog/fmt/fmt.h"

namespace qcesim::model {

namespace {

constexpr std::uint32_t kInvalid = 0xFFFFFFFF;

// The code point at s[i] and its length in bytes; kInvalid (length 1) for a byte that does not
// begin a well-formed sequence (overlong forms, surrogates and values above U+10FFFF included).
std::uint32_t decode(const std::string& s, std::size_t i, std::size_t& len) {
  const auto b = [&s](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  len = 1;
  if (c < 0x80) return c;
  std::size_t n = 0;
  std::uint32_t cp = 0, min = 0;
  if ((c & 0xE0) == 0xC0) {
    n = 2, cp = c & 0x1Fu, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, cp = c & 0x0Fu, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, cp = c & 0x07u, min = 0x10000;
  } else {
    return kInvalid;
  }
  if (i + n > s.size()) return kInvalid;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return kInvalid;
    cp = (cp << 6) | (b(i + k) & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return kInvalid;
  len = n;
  return cp;
}

bool c0_or_del(std::uint32_t cp) { return cp < 0x20 || cp == 0x7F; }

bool refused(std::uint32_t cp) {
  return cp == kInvalid || c0_or_del(cp) || (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069) || (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE;
}

}  // namespace

bool printable(const std::string& s) {
  for (std::size_t i = 0, len = 0; i < s.size(); i += len)
    if (refused(decode(s, i, len))) return false;
  return true;
}

std::string terminal_safe(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0, len = 0; i < s.size(); i += len) {
    const std::uint32_t cp = decode(s, i, len);
    if (cp == '\n' || cp == '\t' || !refused(cp))
      out.append(s, i, len);
    else if (cp == kInvalid || cp < 0x80)
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(s[i]));
    else
      out += fmt::format("\\u{:04x}", cp);
  }
  return out;
}

std::string markup_safe(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0, len = 0; i < s.size(); i += len) {
    const std::uint32_t cp = decode(s, i, len);
    if (!refused(cp))
      out.append(s, i, len);
    else
      out += c0_or_del(cp) ? " " : "\xEF\xBF\xBD";
  }
  return out;
}

std::string markdown_cell(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else
      out += c == '\n' || c == '\r' ? ' ' : c;
  }
  return out;
}

std::string markdown_code(const std::string& s, bool in_table) {
  if (s.empty()) return s;
  std::size_t longest = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  // A span that begins or ends with a backtick needs a space between it and the fence; one that
  // begins and ends with a space (not only spaces) loses one of each, so it gets one more.
  const bool spaces = s.front() == ' ' && s.back() == ' ' && s.find_first_not_of(' ') != std::string::npos;
  const bool pad = s.front() == '`' || s.back() == '`' || spaces;
  std::string text = s;
  if (in_table) {
    text = markdown_cell(s);
  } else {
    std::replace(text.begin(), text.end(), '\n', ' ');
    std::replace(text.begin(), text.end(), '\r', ' ');
  }
  return fence + (pad ? " " : "") + text + (pad ? " " : "") + fence;
}

std::string utf8_prefix(const std::string& s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  std::size_t end = 0;
  for (std::size_t i = 0, len = 0; i < s.size(); i += len) {
    (void)decode(s, i, len);
    if (i + len > max_bytes) break;
    end = i + len;
  }
  return s.substr(0, end);
}

}  // namespace qcesim::model
