// `qcesim cipher --alg NAME --key HEX [--iv HEX] [--decrypt] [FILE]`: encrypts or decrypts a file
// (or standard input) through the emulated engine (or on the CPU) to standard output, like
// `openssl enc -nopad`; NAME is the kernel's (cbc(aes), xts(aes), ecb(des3_ede), ...).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

namespace qcesim::cli {

struct CipherOptions {
  std::string alg;
  std::string key_hex, iv_hex;
  bool decrypt = false;
  bool on_cpu = false;         // --engine cpu
  bool bam_reg_io = false;     // --reg-io bam
  std::string file;            // empty or "-": standard input
};

// Exit status: 0, or 2 for bad options, input or an engine failure (nothing is written then).
int run_cipher(const CipherOptions& opt, std::ostream& out, std::ostream& err);

}  // namespace qcesim::cli
