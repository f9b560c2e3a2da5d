// Encrypting or decrypting a buffer as `qcesim cipher` does: through the emulated engine (the
// skcipher driver, BAM descriptors, the engine's cipher part), in requests of up to 1 MiB with
// the IV chained through the result dump, or on the CPU (model/block_cipher, one stream).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "drivers/crypto/qce/reg_io.h"
#include "model/block_cipher.h"

namespace qcesim::studies {

struct CipherSetup {
  CipherAlg alg = CipherAlg::aes;
  CipherMode mode = CipherMode::cbc;
  bool encrypt = true;
  std::vector<std::uint8_t> key;  // XTS: both keys
  std::vector<std::uint8_t> iv;   // ivsize bytes (none for ECB)
  qce::RegIo reg_io = qce::RegIo::mmio;
  std::uint32_t request_bytes = 1u << 20;  // bytes per engine request (a multiple of the block)
};

// Everything the job would refuse, checked without simulating: "" or "<what>: expected ...,
// found ..." (the option it concerns first: --key, --iv, or the input's length).
std::string check_cipher_job(const CipherSetup& s, std::size_t input_bytes);

std::vector<std::uint8_t> cipher_on_engine(const CipherSetup& s, const std::vector<std::uint8_t>& in);
std::vector<std::uint8_t> cipher_on_cpu(const CipherSetup& s, const std::vector<std::uint8_t>& in);

}  // namespace qcesim::studies
