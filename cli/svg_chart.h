// Charts as SVG a reader can read, for the HTML report and `sweep --plot`: text is real SVG
// text (selectable, read by screen readers, with a <title> per mark for the exact value), the
// eight colours stay apart for colour-blind readers (Okabe and Ito's palette, with black and
// grey; lines also differ in dash and marker), axis titles are measured into the margins so
// none is clipped, and units are written as they are (µs). Each chart scales to its container
// (viewBox); every input string is escaped.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace qcesim::cli {

// Colour k of the palette (k mod 8).
const char* chart_colour(std::size_t k);

// Ticks at 1, 2 or 5 times a power of ten from the one at or below lo to the one at or above hi,
// about `want` of them.
std::vector<double> linear_ticks(double lo, double hi, int want);

// Horizontal bars, one per row, each split into the series' segments (stacked); negative
// values are drawn left of zero (a difference by mechanism).
struct BarChart {
  std::string title;                        // above the chart
  std::string axis;                         // the value axis' title, with its unit ("µs per request")
  std::vector<std::string> rows;            // a bar each (variants, mechanisms)
  std::vector<std::string> series;          // the legend: a segment each (one series: no legend)
  std::vector<std::vector<double>> values;  // [row][series]
  std::vector<std::size_t> colours;         // per series: the palette index (default: its position)
};
std::string bar_chart_svg(const BarChart& c);

// Lines over a numeric x axis (linear or logarithmic), or grouped vertical bars over a
// categorical one (text values, or zipped axes): a category axis is never drawn as a line.
struct LineSeries {
  std::string label;
  std::vector<std::pair<double, double>> points;  // (x, y); with categories x is the category's index
};
struct LineChart {
  std::string title, x_title, y_title;
  std::vector<LineSeries> series;
  std::vector<std::string> categories;  // non-empty: grouped bars, x indexes this
  struct Marker {
    double x;
    std::string label;  // a vertical line at x (a break-even point), labelled
  };
  std::vector<Marker> markers;  // numeric x only
  bool log_x = false, log_y = false;
  double width = 960, height = 540;
};
std::string line_chart_svg(const LineChart& c);

}  // namespace qcesim::cli
