// `qcesim flamegraph FOLDED`: an SVG flame graph of folded stacks ("a;b;c count" per line, as
// `run --profile` writes them), so the teaching step needs nothing installed beyond qcesim.
// Frames are stacked bottom-up from the roots (here the CPU contexts), each as wide as its
// share of the total, with its name, time and share in a tooltip. Every name from the file is
// XML-escaped; a line that is not "stack count" is an error naming the file and line.
#pragma once

#include <iosfwd>
#include <string>

namespace qcesim::cli {

struct FlamegraphOptions {
  std::string folded;  // input file ("-" for stdin)
  std::string out;     // SVG file (empty: stdout)
  std::string title = "CPU time by context and function";
  std::string unit = "ns";  // what the counts are
};

// The SVG for a folded-stacks text; throws model::ConfigError naming `source` for bad lines.
std::string flamegraph_svg(const std::string& folded_text, const std::string& source, const std::string& title,
                           const std::string& unit);

int run_flamegraph(const FlamegraphOptions& opt, std::ostream& out, std::ostream& err);

}  // namespace qcesim::cli
