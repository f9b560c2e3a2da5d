// Numeric and word command-line options read strictly: digits only (no sign, blank, base prefix or
// trailing junk), inside a documented range, refused before anything runs. CLI11 would
// otherwise read "-5" into an unsigned option as 2^64 - 5 (strtoull) and "3x" as 3.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace qcesim::cli {

// True and `value` set when `text` is a whole number written in decimal digits, min..max.
bool parse_whole(const std::string& text, std::uint64_t min, std::uint64_t max, std::uint64_t& value);

// A CLI11 check for a whole-number option: "expected a whole number from MIN to MAX, found 'TEXT'".
CLI::Validator whole_number(std::uint64_t min, std::uint64_t max);
// A CLI11 check for a decimal option (digits, one point, an optional exponent; no sign, no
// inf/nan): "expected a number from MIN to MAX, found 'TEXT'".
CLI::Validator real_number(double min, double max);
// A CLI11 check for an option that takes one of a few words, exactly as written:
// "expected one of A, B, found 'TEXT'". Its "{A,B}" in the type name is what --help, the man
// page and the completion list (command_docs.cpp reads it there, as from CLI11's IsMember).
CLI::Validator one_of(const std::vector<std::string>& words);

}  // namespace qcesim::cli
