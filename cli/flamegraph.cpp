#include "cli/flamegraph.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "cli/markup.h"
#include "cli/output_file.h"
#include "model/config_error.h"

namespace qcesim::cli {

namespace {

struct Frame {
  std::string name;
  std::uint64_t total = 0;
  std::map<std::string, std::unique_ptr<Frame>> children;  // sorted by name, as flamegraph.pl does
};

// A warm colour per name, stable across runs (FNV-1a of the name).
std::string colour(const std::string& name) {
  std::uint32_t h = 2166136261u;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  const unsigned r = 205 + h % 50, g = 80 + (h >> 8) % 130, b = 40 + (h >> 16) % 50;
  return fmt::format("rgb({},{},{})", r, g, b);
}

constexpr double kWidth = 1200, kFrameHeight = 17, kPad = 10, kTitleHeight = 40;

void draw(const Frame& f, double x, int depth, int max_depth, double per_count, std::uint64_t all,
          const std::string& unit, std::string& svg) {
  const double w = static_cast<double>(f.total) * per_count;
  if (w < 0.1) return;
  const double y = kTitleHeight + (max_depth - depth) * kFrameHeight;
  const std::string tip = fmt::format("{} ({} {}, {:.2f}%)", f.name, f.total, unit,
                                      100.0 * static_cast<double>(f.total) / static_cast<double>(all));
  svg += fmt::format(
      "<g><title>{}</title><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" rx=\"2\"/>",
      xml_text(tip), x, y, w, kFrameHeight - 1, colour(f.name));
  // As much of the name as fits, at about 7 px a character.
  const std::size_t fits = static_cast<std::size_t>(std::max(0.0, (w - 6) / 7));
  if (fits >= 3) {
    // Cut at a character's boundary (in bytes: an estimate either way), never inside one.
    const std::string shown = f.name.size() <= fits ? f.name : model::utf8_prefix(f.name, fits - 2) + "..";
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>", x + 3, y + 12, xml_text(shown));
  }
  svg += "</g>\n";
  double cx = x;
  for (const auto& [name, child] : f.children) {
    draw(*child, cx, depth + 1, max_depth, per_count, all, unit, svg);
    cx += static_cast<double>(child->total) * per_count;
  }
}

int depth_of(const Frame& f) {
  int d = 0;
  for (const auto& [name, child] : f.children) d = std::max(d, 1 + depth_of(*child));
  return d;
}

}  // namespace

std::string flamegraph_svg(const std::string& text, const std::string& source, const std::string& title,
                           const std::string& unit) {
  Frame root;
  root.name = "all";
  std::istringstream in(text);
  std::size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto space = line.rfind(' ');
    const std::string count_text = space == std::string::npos ? "" : line.substr(space + 1);
    const bool digits = !count_text.empty() && count_text.size() <= 19 &&
                        std::all_of(count_text.begin(), count_text.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || space == 0)
      throw model::ConfigError(source, fmt::format("line {}", line_no), "\"frame;frame;... count\" with a whole count",
                               model::quoted_input(line));
    const std::uint64_t count = std::stoull(count_text);
    if (root.total > UINT64_MAX - count)
      throw model::ConfigError(source, fmt::format("line {}", line_no), "counts whose sum fits 64 bits", count_text);
    root.total += count;
    Frame* f = &root;
    std::istringstream frames(line.substr(0, space));
    int depth = 0;
    for (std::string name; std::getline(frames, name, ';');) {
      if (++depth > 64) throw model::ConfigError(source, fmt::format("line {}", line_no), "at most 64 frames", "more");
      auto& child = f->children[name];
      if (!child) {
        child = std::make_unique<Frame>();
        child->name = name;
      }
      child->total += count;
      f = child.get();
    }
  }
  if (root.total == 0) throw model::ConfigError(source, "", "folded stacks with a count above 0", "none");
  const int max_depth = depth_of(root);
  const double height = kTitleHeight + (max_depth + 1) * kFrameHeight + kPad;
  std::string svg = fmt::format(
      "<?xml version=\"1.0\" standalone=\"no\"?>\n"
      "<svg version=\"1.1\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" "
      "xmlns=\"http://www.w3.org/2000/svg\" "
      "font-family=\"Verdana, sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"#f8f8f0\"/>\n"
      "<text x=\"{2:.0f}\" y=\"24\" text-anchor=\"middle\" font-size=\"17\">{3}</text>\n",
      kWidth, height, kWidth / 2, xml_text(title));
  draw(root, kPad, 0, max_depth, (kWidth - 2 * kPad) / static_cast<double>(root.total), root.total, unit, svg);
  svg += "</svg>\n";
  return svg;
}

namespace {

// A stream's text up to the inputs' size limit, as read_input_file reads a file: `flamegraph -`
// fed from /dev/zero stops with an error instead of filling memory.
std::string read_capped(std::istream& in, const std::string& name, const std::string& what) {
  std::string text;
  char block[65536];
  while (in.read(block, sizeof block) || in.gcount() > 0) {
    text.append(block, static_cast<std::size_t>(in.gcount()));
    if (text.size() > model::kMaxInputBytes)
      throw model::ConfigError(name, "", fmt::format("{} of at most {} bytes", what, model::kMaxInputBytes), "more");
  }
  return text;
}

}  // namespace

int run_flamegraph(const FlamegraphOptions& opt, std::ostream& out, std::ostream&) {
  const std::string text = opt.folded == "-" ? read_capped(std::cin, "standard input", "folded-stacks file")
                                             : model::read_input_file(opt.folded, "folded-stacks file");
  if (!opt.out.empty()) check_output("--output", opt.out);
  const std::string svg = flamegraph_svg(text, opt.folded, opt.title, opt.unit);
  if (opt.out.empty()) {
    out << svg;
  } else {
    write_output("--output", opt.out, svg);
  }
  return 0;
}

}  // namespace qcesim::cli
