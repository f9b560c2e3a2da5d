// Text into HTML and SVG: every string that comes from an input file (scenario names, variant
// names, function names, free text) goes through xml_text, so no input can open an element, an
// attribute or a script in a page or chart qcesim writes.
#pragma once

#include <string>

namespace qcesim::cli {

// &, <, >, " and ' as entities; control characters as spaces (XML 1.0 cannot hold them), bytes
// that are not UTF-8 and the characters XML refuses (U+FFFE, U+FFFF) U+FFFD (model::markup_safe).
std::string xml_text(const std::string& s);

// A number as an SVG coordinate or length: fixed, at most two decimals, never "nan" or "inf".
std::string svg_num(double v);

}  // namespace qcesim::cli
