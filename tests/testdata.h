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

// A CAVP CCM record with the file's and section's defaults carried forward (the CCM files state
// Plen/Nlen/Tlen/Alen at file or section level, Key and Nonce once for several records).
struct CcmCase {
  std::string file;
  std::string count;
  std::vector<std::uint8_t> key, nonce, adata, payload, ct;  // ct: ciphertext then tag
  unsigned tlen = 0;
  bool pass = true;           // DVPT's Result
  bool decrypt_test = false;  // DVPT: a decryption-verification record
};
std::vector<CcmCase> ccm_cases(const std::string& relative);
// The ten CCM files (DVPT, VADT, VNT, VPT, VTT; AES-128 and AES-256): 1920 records.
extern const char* const kCcmFiles[10];

}  // namespace qcesim::test
