// Charts of sweep results drawn by gnuplot (Debian's gnuplot-nox, installed by scripts/setup.sh):
// a metric against a swept value, one line per variant and per combination of the other axes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace qcesim::cli {

struct PlotSpec {
  std::string file;   // .svg, or .png
  std::string x, y;   // axis path, metric name
  bool log_x = false, log_y = false;
  std::string title;
};

// rows: {"values": {path: value}, "variant": name, "metrics": {...}} as the sweep writes them.
// Writes the SVG through a temporary file; throws with gnuplot's message when it fails.
void plot_svg(const PlotSpec& spec, const std::vector<std::string>& axis_paths, const std::vector<nlohmann::json>& rows);

}  // namespace qcesim::cli
