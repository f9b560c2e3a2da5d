// Charts of sweep results: a metric against a swept value, one line per variant and per
// combination of the other axes; a text axis, or zipped axes (combine: zip, the paired values as
// the labels), as grouped bars. SVG is drawn by cli/svg_chart (the same charts as the HTML
// report's); PNG by gnuplot (Debian's gnuplot-nox, installed by scripts/setup.sh).
//
// Every string from an input (titles, labels, variant names, values) reaches gnuplot only as a
// single-quoted string in the script, control characters removed, in which gnuplot expands
// nothing (no backquotes, no macros, no backslash escapes); the data file holds numbers only (a
// double-quoted label there would have its backslashes expanded). gnuplot itself is started
// without a shell.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/svg_chart.h"

namespace qcesim::cli {

struct PlotSpec {
  std::string file;  // .svg, or .png
  std::string x, y;  // axis path, metric name
  bool log_x = false, log_y = false;
  bool zip = false;  // the axes are paired point for point
  std::string title;
  std::string x_label, y_label;  // in words with units (default: x and y)
};

// rows: {"values": {path: value}, "variant": name, "metrics": {...}} as the sweep writes them;
// variants: the order of the legend. The chart of spec.y against spec.x.
LineChart sweep_chart(const PlotSpec& spec, const std::vector<std::string>& axis_paths,
                      const std::vector<std::string>& variants, const std::vector<nlohmann::json>& rows);
// Writes the chart to spec.file (.svg, or .png through gnuplot) through a temporary file; throws
// with gnuplot's message when it fails.
void plot_svg(const PlotSpec& spec, const std::vector<std::string>& axis_paths,
              const std::vector<std::string>& variants, const std::vector<nlohmann::json>& rows);

// s as a gnuplot single-quoted string: quotes doubled, control characters made spaces, bytes that
// are not UTF-8 U+FFFD.
std::string gnuplot_quoted(const std::string& s);

}  // namespace qcesim::cli
