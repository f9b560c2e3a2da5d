// The kit's text members as lines and words, every member bounded the same way: at most
// 1000000 lines of at most 4096 bytes (a 32 MiB function_graph trace has about 550000), a
// trailing CR dropped. Errors name the archive, the member and the line (model::ConfigError).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace qcesim::ingest {

std::vector<std::string> split_lines(const std::string& bytes, const std::string& file, const std::string& member);
// The blank-separated words of a line, at most `max`.
std::vector<std::string> words(const std::string& line, std::size_t max = 64);
// The line after its first `n` words, leading blanks dropped.
std::string rest(const std::string& line, std::size_t n);

}  // namespace qcesim::ingest
