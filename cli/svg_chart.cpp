#include "cli/svg_chart.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "cli/markup.h"

namespace qcesim::cli {

namespace {

const char* const kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999999"};
const char* const kDashes[] = {"", "8 4", "2 3", "10 3 2 3", "5 5"};

constexpr double kFont = 13;    // px: labels and ticks
constexpr double kCharW = 7.8;  // px: a character's width at kFont, for layout (DejaVu Sans, mixed text)
constexpr double kTitleFont = 15;

double text_width(const std::string& s, double font = kFont) {
  // Multi-byte UTF-8 sequences count once.
  std::size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return static_cast<double>(n) * kCharW * font / kFont;
}

std::string trimmed(double v, int decimals) {
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

// "1.5", "20", "0.002", "10k", "1M": short tick labels (SI prefixes from ten thousand up).
std::string tick_text(double v) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e10) return fmt::format("{:.3g}", v);
  if (a >= 1e7 || (a >= 1e6 && std::fmod(a, 1e5) == 0)) return trimmed(v / 1e6, 2) + "M";
  if (a >= 1e4) return trimmed(v / 1e3, 2) + "k";
  if (a < 1e-3) return fmt::format("{:.3g}", v);
  return trimmed(v, 6);
}

// Text broken at spaces into lines of at most `width` px.
std::vector<std::string> wrap(const std::string& text, double width, double font) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t j = text.find(' ', i);
    if (j == std::string::npos) j = text.size();
    std::string word = text.substr(i, j - i);
    // A word wider than the line is cut (a path or a name without spaces).
    while (text_width(word, font) > width && word.size() > 1) {
      if (!line.empty()) lines.push_back(line);
      std::size_t fit = 1;
      while (fit < word.size() && text_width(word.substr(0, fit + 1), font) <= width) ++fit;
      lines.push_back(word.substr(0, fit));
      word.erase(0, fit);
      line.clear();
    }
    const std::string next = line.empty() ? word : line + " " + word;
    if (!line.empty() && text_width(next, font) > width) {
      lines.push_back(line);
      line = word;
    } else {
      line = next;
    }
    i = j + 1;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

// Lines of text from (x, y) down, `step` apart, anchored as given.
std::string text_lines(const std::vector<std::string>& lines, double x, double y, double step, const char* anchor,
                       const std::string& attrs = "") {
  std::string s;
  for (std::size_t k = 0; k < lines.size(); ++k)
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\"{}>{}</text>\n", svg_num(x),
                     svg_num(y + step * static_cast<double>(k)), anchor, attrs, xml_text(lines[k]));
  return s;
}

// Decades (with 2 and 5 between when there are few) covering [lo, hi], lo > 0.
std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> t;
  const int d0 = static_cast<int>(std::floor(std::log10(lo))), d1 = static_cast<int>(std::ceil(std::log10(hi)));
  for (int d = d0; d <= d1; ++d)
    for (double m : (d1 - d0 <= 2 ? std::vector<double>{1, 2, 5} : std::vector<double>{1})) {
      const double v = m * std::pow(10.0, d);
      if (v >= lo * 0.999 && v <= hi * 1.001) t.push_back(v);
    }
  return t;
}

struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  std::vector<double> ticks;
  double pos(double v, double p0, double p1) const {
    const double f = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
    return p0 + f * (p1 - p0);
  }
};

Axis make_axis(double lo, double hi, bool log, int want, bool from_zero) {
  Axis a;
  a.log = log;
  if (log) {
    if (!(lo > 0)) lo = hi > 0 ? hi / 10 : 1;
    if (!(hi > lo)) hi = lo * 10;
    // The data's range with a little room (5 % of it in log space), ticks at the decades inside;
    // a range under one decade gets its ends as ticks too.
    const double pad = (std::log10(hi) - std::log10(lo)) * 0.05 + 0.02;
    a.lo = std::pow(10.0, std::log10(lo) - pad);
    a.hi = std::pow(10.0, std::log10(hi) + pad);
    a.ticks = log_ticks(a.lo, a.hi);
    if (a.ticks.size() < 2) a.ticks = {lo, hi};
    return a;
  }
  if (from_zero) {
    lo = std::min(lo, 0.0);
    hi = std::max(hi, 0.0);
  }
  if (!(hi > lo)) hi = lo + 1;
  a.ticks = linear_ticks(lo, hi, want);
  a.lo = a.ticks.front();
  a.hi = a.ticks.back();
  return a;
}

// A bar's fill: the palette's colour for the first eight series, then the same colours hatched
// (diagonal lines on white), so that a ninth series never looks like the first.
std::string bar_fill(std::size_t k) {
  return k < 8 ? std::string(kColours[k]) : fmt::format("url(#qcesim-hatch-{})", k % 8);
}

// The hatch patterns bar_fill refers to (one set per chart; equal definitions, so a page holding
// several charts resolves them alike).
std::string hatch_defs() {
  std::string s = "<defs>";
  for (std::size_t k = 0; k < 8; ++k)
    s += fmt::format(
        "<pattern id=\"qcesim-hatch-{0}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
        "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#ffffff\"/>"
        "<rect width=\"3\" height=\"6\" fill=\"{1}\"/></pattern>",
        k, kColours[k]);
  return s + "</defs>\n";
}

std::string svg_open(double w, double h, const std::string& title) {
  return fmt::format(
             "<svg class=\"chart\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
             "aria-label=\"{2}\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"DejaVu Sans, Verdana, sans-serif\" "
             "font-size=\"{3}\">\n<title>{2}</title>\n<rect width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
             svg_num(w), svg_num(h), xml_text(title), svg_num(kFont)) +
         hatch_defs();
}

// A legend of coloured keys, wrapped over lines of width `w` from (x, y); returns its height.
double legend(const std::vector<std::string>& labels, const std::vector<std::size_t>& colours, double x, double y,
              double w, bool lines, std::string& svg) {
  double cx = x, cy = y;
  const double row = kFont + 8;
  for (std::size_t k = 0; k < labels.size(); ++k) {
    const double item = 26 + text_width(labels[k]) + 18;
    if (cx > x && cx + item > x + w) {
      cx = x;
      cy += row;
    }
    const std::size_t c = colours.empty() ? k : colours[k];
    if (lines) {
      svg += fmt::format(
          "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2.5\" stroke-dasharray=\"{}\"/>",
          svg_num(cx), svg_num(cy - 4), svg_num(cx + 20), svg_num(cy - 4), chart_colour(c), kDashes[c % 5]);
    } else {
      svg += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"{}\" stroke=\"#555555\" "
          "stroke-width=\"0.5\"/>",
          svg_num(cx), svg_num(cy - 12), bar_fill(c));
    }
    svg += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", svg_num(cx + 26), svg_num(cy), xml_text(labels[k]));
    cx += item;
  }
  return labels.empty() ? 0 : cy - y + row;
}

}  // namespace

// Ticks at 1, 2 or 5 times a power of ten covering [lo, hi], about `want` of them.
std::vector<double> linear_ticks(double lo, double hi, int want) {
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / want;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  // From the step at or below lo to the one at or above hi, so every value lies inside.
  std::vector<double> t;
  const double first = std::floor(lo / step + 1e-9) * step;
  for (int k = 0; k < 1000; ++k) {
    const double v = first + step * k;
    t.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
    if (v >= hi - step * 1e-9) break;
  }
  return t;
}

const char* chart_colour(std::size_t k) { return kColours[k % 8]; }

std::string bar_chart_svg(const BarChart& c) {
  const double width = 960, bar_h = 22, gap = 10;
  double label_w = 0;
  for (const std::string& r : c.rows) label_w = std::max(label_w, text_width(r));
  label_w = std::min(label_w + 12, width * 0.4);
  const double left = label_w + 8, right = width - 24;
  // The value axis: the sums of each bar's positive and negative segments.
  double lo = 0, hi = 0;
  for (const auto& row : c.values) {
    double pos = 0, neg = 0;
    for (double v : row) (v >= 0 ? pos : neg) += v;
    lo = std::min(lo, neg);
    hi = std::max(hi, pos);
  }
  const Axis ax = make_axis(lo, hi > lo ? hi : lo + 1, false, 6, true);
  std::string body;
  double y = 34;  // below the title
  const bool with_legend = c.series.size() > 1;
  if (with_legend) y += legend(c.series, c.colours, left, y + 14, right - left, false, body) + 4;
  const double top = y;
  for (std::size_t r = 0; r < c.rows.size(); ++r) {
    const double by = top + static_cast<double>(r) * (bar_h + gap);
    std::string label = c.rows[r];
    body += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", svg_num(left - 8),
                        svg_num(by + bar_h / 2 + 4.5), xml_text(label));
    double pos = 0, neg = 0;
    for (std::size_t s = 0; s < c.series.size() && s < c.values[r].size(); ++s) {
      const double v = c.values[r][s];
      if (v == 0 || !std::isfinite(v)) continue;
      const double a = v >= 0 ? pos : neg + v, b = v >= 0 ? pos + v : neg;
      (v >= 0 ? pos : neg) += v;
      const double x0 = ax.pos(a, left, right), x1 = ax.pos(b, left, right);
      const std::size_t colour = c.colours.size() > s ? c.colours[s] : s;
      const std::string tip = fmt::format("{}{}{}: {} {}", c.rows[r], c.series.size() > 1 ? ", " : "",
                                          c.series.size() > 1 ? c.series[s] : std::string(),
                                          tick_text(std::round(v * 1000) / 1000), c.axis);
      body += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}</title></rect>",
                          svg_num(x0), svg_num(by), svg_num(std::max(x1 - x0, 0.5)), svg_num(bar_h), bar_fill(colour),
                          xml_text(tip));
      const std::string shown = tick_text(std::round(v * 10) / 10);
      if (x1 - x0 > text_width(shown) + 8)
        body += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"{}\">{}</text>",
                            svg_num((x0 + x1) / 2), svg_num(by + bar_h / 2 + 4.5),
                            colour >= 8 || colour == 4 || colour == 5 || colour == 7 ? "#000000" : "#ffffff",
                            xml_text(shown));
      body += "\n";
    }
  }
  const double bottom = top + static_cast<double>(c.rows.size()) * (bar_h + gap);
  std::string axis;
  for (double t : ax.ticks) {
    const double x = ax.pos(t, left, right);
    axis += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\"/><text x=\"{0}\" y=\"{4}\" "
        "text-anchor=\"middle\">{5}</text>\n",
        svg_num(x), svg_num(top - 4), svg_num(bottom), t == 0 ? "#555555" : "#dddddd", svg_num(bottom + 16),
        tick_text(t));
  }
  const double height = bottom + 44;
  std::string svg = svg_open(width, height, c.title);
  svg += fmt::format("<text x=\"{}\" y=\"22\" font-size=\"{}\" font-weight=\"bold\">{}</text>\n", svg_num(8),
                     svg_num(kTitleFont), xml_text(c.title));
  svg += axis + body;  // the title is one line: report titles are short
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", svg_num((left + right) / 2),
                     svg_num(bottom + 36), xml_text(c.axis));
  return svg + "</svg>\n";
}

std::string line_chart_svg(const LineChart& c) {
  const bool bars = !c.categories.empty();
  // The y axis from every point; bars start at zero.
  double ylo = std::numeric_limits<double>::infinity(), yhi = -ylo, xlo = ylo, xhi = -ylo;
  for (const LineSeries& s : c.series)
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y) || (c.log_y && y <= 0) || (c.log_x && !bars && x <= 0)) continue;
      ylo = std::min(ylo, y);
      yhi = std::max(yhi, y);
      xlo = std::min(xlo, x);
      xhi = std::max(xhi, x);
    }
  if (!(yhi >= ylo)) ylo = 0, yhi = 1, xlo = 0, xhi = 1;
  const Axis ay = make_axis(ylo, yhi, c.log_y, 6, bars || !c.log_y);
  std::string tick_labels;
  // Margins measured from the text they hold: the y ticks and the rotated y title on the left.
  double ytick_w = 0;
  for (double t : ay.ticks) ytick_w = std::max(ytick_w, text_width(tick_text(t)));
  const std::vector<std::string> y_title_lines = wrap(c.y_title, c.height - 170, kFont);
  const double left = 8 + static_cast<double>(y_title_lines.size()) * (kFont + 4) + 8 + ytick_w + 8;
  const double right = c.width - 20;
  std::string legend_svg;
  std::vector<std::string> labels;
  std::vector<std::size_t> colours;
  for (std::size_t k = 0; k < c.series.size(); ++k) {
    labels.push_back(c.series[k].label);
    colours.push_back(k);
  }
  const std::vector<std::string> title_lines = wrap(c.title, c.width - 16, kTitleFont);
  const double title_h = 10 + static_cast<double>(title_lines.size()) * (kTitleFont + 5);
  const double legend_h =
      c.series.size() > 1 ? legend(labels, colours, left, title_h + 18, right - left, !bars, legend_svg) : 0;
  const double top = title_h + legend_h + 16;
  const std::vector<std::string> x_title_lines = wrap(c.x_title, right - left, kFont);
  const double x_title_h = static_cast<double>(x_title_lines.size()) * (kFont + 4);
  // Category labels below the axis, rotated when they do not fit side by side.
  double cat_w = 0;
  for (const std::string& s : c.categories) cat_w = std::max(cat_w, text_width(s));
  const double slot = bars ? (right - left) / static_cast<double>(c.categories.size()) : 0;
  const bool rotate = bars && cat_w + 6 > slot;
  const double xlabels_h = rotate ? std::min(cat_w, 160.0) * 0.72 + 14 : kFont + 10;
  const double height = c.height + (title_h - 30) + std::max(0.0, x_title_h - kFont - 4);
  const double bottom = height - (xlabels_h + x_title_h + 14);
  std::string svg = svg_open(c.width, height, c.title);
  svg += text_lines(title_lines, 8, 24, kTitleFont + 5, "start",
                    fmt::format(" font-size=\"{}\" font-weight=\"bold\"", svg_num(kTitleFont)));
  svg += legend_svg;
  for (double t : ay.ticks) {
    const double y = ay.pos(t, bottom, top);
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#dddddd\"/><text x=\"{3}\" y=\"{4}\" "
        "text-anchor=\"end\">{5}</text>\n",
        svg_num(left), svg_num(y), svg_num(right), svg_num(left - 6), svg_num(y + 4.5), tick_text(t));
  }
  // The y title, rotated, inside the left margin (its width was counted above).
  for (std::size_t k = 0; k < y_title_lines.size(); ++k)
    svg += fmt::format("<text transform=\"translate({},{}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
                       svg_num(8 + kFont + static_cast<double>(k) * (kFont + 4)), svg_num((top + bottom) / 2),
                       xml_text(y_title_lines[k]));
  if (bars) {
    const std::size_t n = std::max<std::size_t>(c.series.size(), 1);
    const double group_w = slot * 0.8, bw = group_w / static_cast<double>(n);
    for (std::size_t i = 0; i < c.categories.size(); ++i) {
      const double cx = left + slot * (static_cast<double>(i) + 0.5);
      if (rotate) {
        svg += fmt::format("<text transform=\"translate({},{}) rotate(-35)\" text-anchor=\"end\">{}</text>\n",
                           svg_num(cx + 4), svg_num(bottom + 14), xml_text(c.categories[i]));
      } else {
        svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", svg_num(cx),
                           svg_num(bottom + 18), xml_text(c.categories[i]));
      }
    }
    for (std::size_t k = 0; k < c.series.size(); ++k)
      for (const auto& [x, y] : c.series[k].points) {
        if (!std::isfinite(y) || x < 0 || x >= static_cast<double>(c.categories.size())) continue;
        const double x0 = left + slot * x + (slot - group_w) / 2 + bw * static_cast<double>(k);
        const double base = c.log_y ? bottom : ay.pos(0, bottom, top);
        const double yy = c.log_y && y <= 0 ? bottom : ay.pos(y, bottom, top);
        svg += fmt::format(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}: {}, {}</title></rect>\n",
            svg_num(x0), svg_num(std::min(yy, base)), svg_num(std::max(bw - 1, 0.5)),
            svg_num(std::max(std::fabs(base - yy), 0.5)), chart_colour(k), xml_text(c.series[k].label),
            xml_text(c.categories[static_cast<std::size_t>(x)]), tick_text(y));
      }
  } else {
    const Axis ax = make_axis(xlo, xhi, c.log_x, 8, false);
    for (double t : ax.ticks) {
      const double x = ax.pos(t, left, right);
      svg += fmt::format(
          "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#dddddd\"/><text x=\"{0}\" y=\"{3}\" "
          "text-anchor=\"middle\">{4}</text>\n",
          svg_num(x), svg_num(top), svg_num(bottom), svg_num(bottom + 18), tick_text(t));
    }
    for (std::size_t m = 0; m < c.markers.size(); ++m) {
      const double x = c.markers[m].x;
      if (!std::isfinite(x) || x < ax.lo || x > ax.hi || (c.log_x && x <= 0)) continue;
      const double px = ax.pos(x, left, right);
      svg += fmt::format(
          "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#555555\" stroke-dasharray=\"3 3\"/>"
          "<text x=\"{3}\" y=\"{4}\" text-anchor=\"end\" font-size=\"11\">{5}</text>\n",
          svg_num(px), svg_num(top), svg_num(bottom), svg_num(px - 4), svg_num(top + 14 + 13 * static_cast<double>(m)),
          xml_text(c.markers[m].label));
    }
    for (std::size_t k = 0; k < c.series.size(); ++k) {
      std::vector<std::pair<double, double>> pts;
      for (const auto& [x, y] : c.series[k].points)
        if (std::isfinite(x) && std::isfinite(y) && !(c.log_y && y <= 0) && !(c.log_x && x <= 0))
          pts.emplace_back(x, y);
      std::sort(pts.begin(), pts.end());
      std::string path;
      for (const auto& [x, y] : pts)
        path += fmt::format("{}{},{}", path.empty() ? "M" : " L", svg_num(ax.pos(x, left, right)),
                            svg_num(ay.pos(y, bottom, top)));
      // Earlier series wider, so a later one on top leaves them visible.
      const double w = 1.8 + 1.6 * static_cast<double>(c.series.size() - 1 - k) /
                                 static_cast<double>(std::max<std::size_t>(c.series.size() - 1, 1));
      svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" stroke-dasharray=\"{}\"/>\n",
                         path, chart_colour(k), svg_num(w), kDashes[k % 5]);
      for (const auto& [x, y] : pts)
        svg += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\"><title>{}: {}, {}</title></circle>\n",
                           svg_num(ax.pos(x, left, right)), svg_num(ay.pos(y, bottom, top)), chart_colour(k),
                           xml_text(c.series[k].label), tick_text(x), tick_text(y));
    }
  }
  svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#555555\"/>\n",
                     svg_num(left), svg_num(top), svg_num(right - left), svg_num(bottom - top));
  svg += text_lines(x_title_lines, (left + right) / 2, bottom + xlabels_h + kFont + 8, kFont + 4, "middle");
  return svg + "</svg>\n";
}

}  // namespace qcesim::cli
