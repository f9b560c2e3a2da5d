#include "cli/plot.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <spdlog/fmt/fmt.h>
#include <stdexcept>

#include "cli/output_file.h"
#include "cli/svg_chart.h"
#include "studies/stop_signals.h"
#include "model/config_error.h"

namespace qcesim::cli {

using nlohmann::json;

std::string gnuplot_quoted(const std::string& text) {
  const std::string s = model::markup_safe(text);  // UTF-8 throughout, no control characters
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "''";
    } else {
      out += model::is_control(c) ? ' ' : c;
    }
  }
  return out + "'";
}

namespace {

// Orders values as numbers when both are numbers, else as text.
bool value_less(const json& a, const json& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() < b.get<double>();
  return model::json_text(a) < model::json_text(b);
}

struct Series {
  std::size_t variant = 0;   // index into the legend's variant order
  std::vector<json> others;  // the other axes' values (product sweeps)
  std::string label;
  std::vector<std::pair<double, double>> pts;  // x (value, or position for labelled x), y
};

// The charts' palette (chart_colour: eight colours that stay apart for colour-blind readers) and
// five dash patterns: series k gets colour k mod 8 and dash k mod 5, so neighbours differ in
// both, and earlier series are drawn wider so a later one lying on top leaves them visible.
const int kPointTypes[] = {7, 5, 9, 11, 13, 15, 4, 6};

std::string line_style(std::size_t k, std::size_t n) {
  const double width =
      1.5 + 2.0 * static_cast<double>(n - 1 - k) / static_cast<double>(std::max<std::size_t>(n - 1, 1));
  return fmt::format("lc rgb '{}' dt {} lw {:.2f} pt {} ps 0.7", chart_colour(k), 1 + k % 5, width, kPointTypes[k % 8]);
}

// Runs gnuplot on the script with no shell; its output goes to `log`.
int run_gnuplot(const std::filesystem::path& script, const std::filesystem::path& log) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork for gnuplot failed");
  if (pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    const int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in >= 0) dup2(in, 0);
    execlp("gnuplot", "gnuplot", script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

namespace {

struct ChartData {
  std::vector<Series> series;
  std::vector<std::string> ticks;  // labelled or text x
  bool numeric_x = true;
  std::size_t missing = 0;  // rows without the metric
};

ChartData chart_data(const PlotSpec& spec, const std::vector<std::string>& axis_paths,
                     const std::vector<std::string>& variants, const std::vector<json>& rows) {
  if (std::find(axis_paths.begin(), axis_paths.end(), spec.x) == axis_paths.end())
    throw std::invalid_argument("--x " + spec.x + ": not one of the sweep's axes");
  // Zipped axes: x is the point's position, labelled with every axis's value.
  const bool labelled_x = spec.zip && axis_paths.size() > 1;
  bool numeric_x = !labelled_x;
  for (const json& r : rows)
    if (!r["values"][spec.x].is_number()) numeric_x = false;
  // x labels (labelled or text x) and series, in order of appearance, each found by its text.
  std::vector<std::string> ticks;
  std::map<std::string, std::size_t> tick_at, series_at;
  std::vector<Series> series;
  std::size_t missing = 0;
  for (const json& r : rows) {
    const json& m = r["metrics"];
    if (!m.contains(spec.y) || !m[spec.y].is_number()) {
      ++missing;
      continue;
    }
    const double y = m[spec.y];
    if (spec.log_y && y <= 0) continue;  // not drawable on a log axis
    Series key;
    key.variant = static_cast<std::size_t>(
        std::find(variants.begin(), variants.end(), r["variant"].get<std::string>()) - variants.begin());
    key.label = r["variant"];
    if (!spec.zip)
      for (const std::string& p : axis_paths)
        if (p != spec.x) {
          key.others.push_back(r["values"][p]);
          key.label += fmt::format(", {}={}", p, model::json_text(r["values"][p]));
        }
    const auto [at, added] = series_at.emplace(key.label, series.size());
    if (added) series.push_back(std::move(key));
    Series& sr = series[at->second];
    double x = 0;
    if (numeric_x) {
      x = r["values"][spec.x];
    } else {
      std::string tick;
      if (labelled_x) {
        for (const std::string& p : axis_paths) tick += (tick.empty() ? "" : " / ") + model::json_text(r["values"][p]);
      } else {
        tick = model::json_text(r["values"][spec.x]);
      }
      const auto [t, new_tick] = tick_at.emplace(tick, ticks.size());
      if (new_tick) ticks.push_back(tick);
      x = static_cast<double>(t->second);
    }
    sr.pts.emplace_back(x, y);
  }
  if (series.empty()) throw std::invalid_argument("--y " + spec.y + ": no row has this metric");
  // Legend: variants in the sweep's order, then the other axes' values in numeric order.
  std::stable_sort(series.begin(), series.end(), [](const Series& a, const Series& b) {
    if (a.variant != b.variant) return a.variant < b.variant;
    return std::lexicographical_compare(a.others.begin(), a.others.end(), b.others.begin(), b.others.end(), value_less);
  });
  for (Series& sr : series) std::sort(sr.pts.begin(), sr.pts.end());
  return {series, ticks, numeric_x, missing};
}

}  // namespace

namespace {

LineChart line_chart(const PlotSpec& spec, const ChartData& d) {
  LineChart c;
  c.x_title = spec.x_label.empty() ? spec.x : spec.x_label;
  c.y_title = spec.y_label.empty() ? spec.y : spec.y_label;
  c.title = spec.title.empty() ? c.y_title + " against " + c.x_title : spec.title;
  c.log_x = spec.log_x && d.numeric_x;
  c.log_y = spec.log_y;
  if (!d.numeric_x) c.categories = d.ticks;
  for (const Series& sr : d.series) c.series.push_back({sr.label, sr.pts});
  return c;
}

}  // namespace

LineChart sweep_chart(const PlotSpec& spec, const std::vector<std::string>& axis_paths,
                      const std::vector<std::string>& variants, const std::vector<json>& rows) {
  return line_chart(spec, chart_data(spec, axis_paths, variants, rows));
}

void plot_svg(const PlotSpec& spec, const std::vector<std::string>& axis_paths,
              const std::vector<std::string>& variants, const std::vector<json>& rows) {
  const ChartData d = chart_data(spec, axis_paths, variants, rows);
  const bool png = std::filesystem::path(spec.file).extension() == ".png";
  if (!png) {
    write_output("--plot", spec.file, line_chart_svg(line_chart(spec, d)));
    if (d.missing) fmt::print(stderr, "plot: {} row(s) without {} left out\n", d.missing, spec.y);
    return;
  }
  const std::vector<Series>& series = d.series;
  const std::vector<std::string>& ticks = d.ticks;
  const bool numeric_x = d.numeric_x;
  const std::size_t missing = d.missing;
  // gnuplot's files live in a private folder, each removed on every exit path (signals too).
  char dir_template[] = "/tmp/qcesim-plot-XXXXXX";
  if (!mkdtemp(dir_template)) throw std::runtime_error("cannot create a temporary folder for gnuplot");
  const std::filesystem::path dir = dir_template;
  const auto data = dir / "series.dat", tmp_out = dir / "out.png", script = dir / "plot.gp", log = dir / "gnuplot.log";
  struct Cleanup {
    std::vector<std::filesystem::path> files;
    std::vector<int> slots;
    ~Cleanup() {
      std::error_code ec;
      for (const auto& f : files) std::filesystem::remove(f, ec);  // the folder last
      for (int s : slots) studies::forget_temp_file(s);
    }
  } cleanup{{data, tmp_out, script, log, dir}, {}};
  cleanup.slots.push_back(studies::register_temp_dir(dir.c_str()));
  for (const auto& f : {data, tmp_out, script, log}) cleanup.slots.push_back(studies::register_temp_file(f.c_str()));

  // One data file, a block per series (gnuplot's `index`).
  std::string plots;
  {
    std::ofstream f(data);
    for (std::size_t k = 0; k < series.size(); ++k) {
      const auto& pts = series[k].pts;
      for (const auto& [x, y] : pts) {
        f << fmt::format("{} {}\n", x, y);
      }
      f << "\n\n";
      plots += fmt::format("{}{} index {} using {} with linespoints {} title {}", plots.empty() ? "" : ", \\\n  ",
                           gnuplot_quoted(data.string()), k, "1:2", line_style(k, series.size()),
                           gnuplot_quoted(series[k].label));
    }
  }
  const std::string x_label = spec.x_label.empty() ? spec.x : spec.x_label;
  const std::string y_label = spec.y_label.empty() ? spec.y : spec.y_label;
  {
    std::ofstream g(script);
    g << "set terminal pngcairo size 960,600 enhanced font 'sans,11' background rgb 'white'\n";
    g << "set output " << gnuplot_quoted(tmp_out.string()) << "\n";
    // A long legend goes below the chart, so that it does not squeeze the plot.
    std::size_t longest = 0;
    for (const Series& sr : series) longest = std::max(longest, sr.label.size());
    g << "set encoding utf8\nset grid\n"
      << (longest > 28 ? "set key outside below center maxrows 4 noenhanced\n"
                       : "set key outside right top noenhanced\n");
    g << "set title " << gnuplot_quoted(spec.title.empty() ? y_label + " against " + x_label : spec.title)
      << " noenhanced\n";
    g << "set xlabel " << gnuplot_quoted(x_label) << " noenhanced\nset ylabel " << gnuplot_quoted(y_label)
      << " noenhanced\n";
    // Text x: the labels are the script's single-quoted strings, placed at their positions (in the
    // data file they would be double-quoted, where gnuplot expands backslash escapes).
    if (!numeric_x) {
      g << "set xtics rotate by -30 noenhanced (";
      for (std::size_t k = 0; k < ticks.size(); ++k) g << (k ? ", " : "") << gnuplot_quoted(ticks[k]) << " " << k;
      g << ")\nset offsets 0.3, 0.3, 0, 0\n";
    }
    if (spec.log_x && numeric_x) g << "set logscale x 2\nset format x '%.0f'\n";
    if (spec.log_y) g << "set logscale y 10\n";
    g << "plot " << plots << "\n";
  }
  const int rc = run_gnuplot(script, log);
  if (!WIFEXITED(rc) || WEXITSTATUS(rc) != 0) {
    std::ifstream l(log);
    std::string msg((std::istreambuf_iterator<char>(l)), {});
    if (WIFEXITED(rc) && WEXITSTATUS(rc) == 127)
      throw std::runtime_error("gnuplot is not installed: run scripts/setup.sh (package gnuplot-nox)");
    throw std::runtime_error("gnuplot failed: " + msg);
  }
  std::ifstream chart(tmp_out, std::ios::binary);
  write_output("--plot", spec.file, std::string((std::istreambuf_iterator<char>(chart)), {}));
  if (missing) fmt::print(stderr, "plot: {} row(s) without {} left out\n", missing, spec.y);
}

}  // namespace qcesim::cli
