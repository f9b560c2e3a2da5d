// `qcesim hash`: sha256sum/sha1sum-compatible output, computed through the emulated QCE
// (driver, BAM descriptors, engine, result dump) or on the CPU path.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "model/sha_core.h"
#include "drivers/crypto/qce/reg_io.h"

namespace qcesim::cli {

enum class Engine { qce, ce };

struct HashOptions {
  Engine engine = Engine::qce;
  HashAlg alg = HashAlg::sha256;
  std::optional<std::vector<std::uint8_t>> hmac_key;
  qce::RegIo reg_io = qce::RegIo::mmio;
  std::uint32_t request_bytes = 1u << 20;  // bytes per update() call (engine request size)
  bool stats = false;
  bool reimport = false;           // export and import the state after every update()
  std::string platform;            // a profile: its kernel era applies
  int era = -1;                    // --era: the driver's kernel era (-1: the platform's, else none)
  std::vector<std::string> files;  // empty: standard input
};

// Returns the process exit status: 0, or 2 if a file could not be read or the engine failed.
int run_hash(const HashOptions& opt, std::ostream& out, std::ostream& err);

// sha256sum's line for one file: "<hex>  <name>", with its escaping of '\\' and '\n'.
std::string checksum_line(const std::vector<std::uint8_t>& digest, const std::string& name);

}  // namespace qcesim::cli
