// Reads the NIST CAVP .rsp files and the RFC/SP 800-38A JSON vectors from tests/vectors.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace qcesim::test {

std::string testdata_path(const std::string& relative);

struct RspRecord {
  std::string section;  // e.g. "L=32" (spaces removed)
  std::map<std::string, std::string> fields;
  const std::string& at(const std::string& key) const;
};

// Records of consecutive "KEY = value" lines, split at blank lines; '#' comments and CR dropped.
std::vector<RspRecord> parse_rsp(const std::string& relative);

std::vector<std::uint8_t> unhex(const std::string& hex);

}  // namespace qcesim::test
