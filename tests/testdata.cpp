#include "tests/testdata.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "cli/hex.h"

namespace qcesim::test {

std::string testdata_path(const std::string& relative) {
  const char* env = std::getenv("QCESIM_TESTDATA");
  return std::string(env ? env : QCESIM_TESTDATA) + "/" + relative;
}

const std::string& RspRecord::at(const std::string& key) const {
  auto it = fields.find(key);
  if (it == fields.end()) throw std::runtime_error("record has no field " + key);
  return it->second;
}

static std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::vector<RspRecord> parse_rsp(const std::string& relative) {
  const std::string path = testdata_path(relative);
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open test vectors " + path);
  std::vector<RspRecord> out;
  std::string section, line;
  RspRecord cur;
  auto flush = [&] {
    if (!cur.fields.empty()) out.push_back(cur);
    cur = RspRecord{};
  };
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty()) {
      flush();
      continue;
    }
    if (line[0] == '#') continue;
    if (line[0] == '[') {
      flush();
      section.clear();
      for (char c : line.substr(1, line.find(']') - 1))
        if (c != ' ') section += c;
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    cur.section = section;
    cur.fields[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
  }
  flush();
  return out;
}

std::vector<std::uint8_t> unhex(const std::string& hex) {
  std::string why;
  auto v = cli::parse_hex(hex, &why);
  if (!v) throw std::runtime_error("bad hex in test vector: expected " + why);
  return *v;
}

}  // namespace qcesim::test
