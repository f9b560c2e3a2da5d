#include "cli/markup.h"

#include <spdlog/fmt/fmt.h>

#include <cmath>

#include "model/config_error.h"

namespace qcesim::cli {

std::string xml_text(const std::string& text) {
  // UTF-8 throughout, and only characters XML allows (no U+FFFE, no control character).
  const std::string s = model::markup_safe(text);
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string svg_num(double v) {
  if (!std::isfinite(v)) return "0";
  std::string s = fmt::format("{:.2f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

}  // namespace qcesim::cli
