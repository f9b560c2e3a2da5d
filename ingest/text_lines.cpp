#include "ingest/text_lines.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>

#include "model/config_error.h"

namespace qcesim::ingest {

namespace {
constexpr std::size_t kMaxLine = 4096;
constexpr std::size_t kMaxLines = 1000000;
}  // namespace

std::vector<std::string> split_lines(const std::string& bytes, const std::string& file, const std::string& member) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < bytes.size()) {
    const std::size_t end = std::min(bytes.find('\n', start), bytes.size());
    if (end - start > kMaxLine)
      throw model::ConfigError(file, fmt::format("{} line {}", member, lines.size() + 1),
                               fmt::format("a line of at most {} bytes", kMaxLine),
                               fmt::format("{} bytes", end - start));
    if (lines.size() >= kMaxLines)
      throw model::ConfigError(file, member, fmt::format("at most {} lines", kMaxLines), "more");
    std::string l = bytes.substr(start, end - start);
    if (!l.empty() && l.back() == '\r') l.pop_back();
    lines.push_back(std::move(l));
    start = end + 1;
  }
  return lines;
}

std::vector<std::string> words(const std::string& line, std::size_t max) {
  std::vector<std::string> w;
  std::size_t p = 0;
  while (p < line.size() && w.size() < max) {
    const std::size_t a = line.find_first_not_of(" \t", p);
    if (a == std::string::npos) break;
    const std::size_t b = std::min(line.find_first_of(" \t", a), line.size());
    w.push_back(line.substr(a, b - a));
    p = b;
  }
  return w;
}

std::string rest(const std::string& line, std::size_t n) {
  std::size_t p = 0;
  for (std::size_t k = 0; k < n; ++k) {
    p = line.find_first_not_of(" \t", p);
    if (p == std::string::npos) return "";
    p = line.find_first_of(" \t", p);
    if (p == std::string::npos) return "";
  }
  const std::size_t a = line.find_first_not_of(" \t", p);
  return a == std::string::npos ? "" : line.substr(a);
}

}  // namespace qcesim::ingest
