// Text from inputs, made safe for where it is shown: a terminal, XML and HTML, JSON.
//
// Input text is UTF-8. What no output may carry is refused where it is read (model::printable):
// C0 and C1 control characters and DEL (terminal escapes: ESC [ 2 J clears a screen, OSC sets a
// window title), the bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069: text
// that displays in another order than it reads), noncharacters (U+FFFE and U+FFFF are not
// allowed in XML), and byte sequences that are not UTF-8. What was not read through that check
// (a file's name, a command's message) is made safe where it is written, by the functions below.
#pragma once

#include <cstddef>
#include <string>

namespace qcesim::model {

// Whether text has only code points an output may carry (see above).
bool printable(const std::string& s);

// For a terminal: each refused code point, and each byte that is not UTF-8, written as an escape
// (\x1b, \u202e); line breaks and tabs kept (messages may span lines).
std::string terminal_safe(const std::string& s);

// For XML, HTML and JSON: bytes that are not UTF-8 become U+FFFD; C0 controls and DEL a space;
// the other refused code points U+FFFD.
std::string markup_safe(const std::string& s);

// For a Markdown table cell: | escaped (it would end the cell), line breaks as spaces.
std::string markdown_cell(const std::string& s);
// As an inline code span: fenced with one backtick more than the longest run of backticks inside,
// padded with a space where CommonMark would otherwise eat the text's own (CommonMark 6.1); in a
// table cell (`in_table`) | escaped, as GitHub's tables need it even in code (outside a table a
// backslash in code is shown). Empty text gives an empty string.
std::string markdown_code(const std::string& s, bool in_table);

// The longest prefix of at most `max_bytes` bytes that does not cut a UTF-8 sequence.
std::string utf8_prefix(const std::string& s, std::size_t max_bytes);

}  // namespace qcesim::model
