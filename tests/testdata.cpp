#include "tests/testdata.h"

#include <cstdlib>
#include <fstream>
#include <regex>
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

const char* const kCcmFiles[10] = {
    "aes-ccm/DVPT128.rsp", "aes-ccm/DVPT256.rsp", "aes-ccm/VADT128.rsp", "aes-ccm/VADT256.rsp", "aes-ccm/VNT128.rsp",
    "aes-ccm/VNT256.rsp",  "aes-ccm/VPT128.rsp",  "aes-ccm/VPT256.rsp",  "aes-ccm/VTT128.rsp",  "aes-ccm/VTT256.rsp"};

std::vector<CcmCase> ccm_cases(const std::string& file) {
  std::vector<CcmCase> out;
  std::map<std::string, std::string> carry;
  auto len = [&](const char* k) { return static_cast<std::size_t>(std::stoul(carry.at(k))); };
  for (const RspRecord& r : parse_rsp(file)) {
    // "[Alen=0,Plen=0,Nlen=7,Tlen=4]" or "[Alen=0]": section-level lengths.
    static const std::regex kv("(\\w+)=(\\d+)");
    for (auto it = std::sregex_iterator(r.section.begin(), r.section.end(), kv); it != std::sregex_iterator(); ++it)
      carry[(*it)[1]] = (*it)[2];
    for (const auto& [k, v] : r.fields)
      if (k == "Plen" || k == "Nlen" || k == "Tlen" || k == "Alen" || k == "Key" || k == "Nonce") carry[k] = v;
    if (!r.fields.count("Count")) continue;
    CcmCase c;
    c.file = file;
    c.count = r.at("Count");
    c.key = unhex(carry.at("Key"));
    c.nonce = unhex(carry.at("Nonce"));
    c.tlen = static_cast<unsigned>(len("Tlen"));
    c.adata = len("Alen") ? unhex(r.at("Adata")) : std::vector<std::uint8_t>{};
    c.ct = unhex(r.at("CT"));
    c.decrypt_test = r.fields.count("Result") != 0;
    c.pass = !c.decrypt_test || r.at("Result").rfind("Pass", 0) == 0;
    if (c.pass) c.payload = len("Plen") ? unhex(r.at("Payload")) : std::vector<std::uint8_t>{};
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace qcesim::test
