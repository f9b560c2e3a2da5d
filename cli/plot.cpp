#include "cli/plot.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <spdlog/fmt/fmt.h>
#include <stdexcept>

#include "model/config_error.h"

namespace qcesim::cli {

using nlohmann::json;

namespace {

// gnuplot single-quoted strings: a quote is written twice.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

}  // namespace

void plot_svg(const PlotSpec& spec, const std::vector<std::string>& axis_paths, const std::vector<json>& rows) {
  if (std::find(axis_paths.begin(), axis_paths.end(), spec.x) == axis_paths.end())
    throw std::invalid_argument("--x " + spec.x + ": not one of the sweep's axes");
  bool numeric_x = true;
  for (const json& r : rows)
    if (!r["values"][spec.x].is_number()) numeric_x = false;
  // One series per variant and combination of the other axes' values.
  std::map<std::string, std::vector<std::pair<json, double>>> series;
  std::size_t missing = 0;
  for (const json& r : rows) {
    std::string label = r["variant"];
    for (const std::string& p : axis_paths)
      if (p != spec.x) label += fmt::format(", {}={}", p, model::json_text(r["values"][p]));
    const json& m = r["metrics"];
    if (!m.contains(spec.y) || !m[spec.y].is_number()) {
      ++missing;
      continue;
    }
    const double y = m[spec.y];
    if (spec.log_y && y <= 0) continue;  // not drawable on a log axis
    series[label].emplace_back(r["values"][spec.x], y);
  }
  if (series.empty()) throw std::invalid_argument("--y " + spec.y + ": no row has this metric");

  char dir_template[] = "/tmp/qcesim-plot-XXXXXX";
  if (!mkdtemp(dir_template)) throw std::runtime_error("cannot create a temporary folder for gnuplot");
  const std::filesystem::path dir = dir_template;
  struct Cleanup {
    std::filesystem::path d;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(d, ec);
    }
  } cleanup{dir};

  std::string plots;
  std::size_t k = 0;
  for (auto& [label, pts] : series) {
    if (numeric_x)
      std::sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) { return a.first.template get<double>() < b.first.template get<double>(); });
    const auto data = dir / fmt::format("s{}.dat", k++);
    std::ofstream f(data);
    for (std::size_t i = 0; i < pts.size(); ++i) {
      if (numeric_x) {
        f << fmt::format("{} {}\n", pts[i].first.get<double>(), pts[i].second);
      } else {
        f << fmt::format("{} {} \"{}\"\n", i, pts[i].second, model::json_text(pts[i].first));
      }
    }
    plots += fmt::format("{}{} using {} with linespoints lw 2 pt 7 ps 0.6 title {}", plots.empty() ? "" : ", \\\n  ",
                         quoted(data.string()), numeric_x ? "1:2" : "1:2:xtic(3)", quoted(label));
  }
  const bool png = std::filesystem::path(spec.file).extension() == ".png";
  const auto tmp_svg = dir / (png ? "out.png" : "out.svg");
  const auto script = dir / "plot.gp";
  {
    std::ofstream g(script);
    g << (png ? "set terminal pngcairo size 960,600 enhanced font 'sans,11' background rgb 'white'\n"
              : "set terminal svg size 960,600 dynamic enhanced font 'sans,12' background rgb 'white'\n");
    g << "set output " << quoted(tmp_svg.string()) << "\n";
    g << "set encoding utf8\nset grid\nset key outside right top noenhanced\n";
    g << "set title " << quoted(spec.title.empty() ? spec.y + " against " + spec.x : spec.title) << " noenhanced\n";
    g << "set xlabel " << quoted(spec.x) << " noenhanced\nset ylabel " << quoted(spec.y) << " noenhanced\n";
    if (spec.log_x && numeric_x) g << "set logscale x 2\nset format x '%.0f'\n";
    if (spec.log_y) g << "set logscale y 10\n";
    g << "plot " << plots << "\n";
  }
  const auto log = dir / "gnuplot.log";
  const std::string cmd = fmt::format("gnuplot {} >{} 2>&1", quoted(script.string()), quoted(log.string()));
  const int rc = std::system(cmd.c_str());
  if (rc != 0) {
    std::ifstream l(log);
    std::string msg((std::istreambuf_iterator<char>(l)), {});
    if (WIFEXITED(rc) && WEXITSTATUS(rc) == 127)
      throw std::runtime_error("gnuplot is not installed: run scripts/setup.sh (package gnuplot-nox)");
    throw std::runtime_error("gnuplot failed: " + msg);
  }
  std::filesystem::copy_file(tmp_svg, spec.file + ".tmp", std::filesystem::copy_options::overwrite_existing);
  std::filesystem::rename(spec.file + ".tmp", spec.file);
  if (missing) fmt::print(stderr, "plot: {} row(s) without {} left out\n", missing, spec.y);
}

}  // namespace qcesim::cli
