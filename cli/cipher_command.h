// `qcesim cipher --alg NAME --key HEX [--iv HEX] [--decrypt] [FILE]`: encrypts or decrypts a file
// (or standard input) through the emulated engine (or on the CPU) to standard output, like
// `openssl enc -nopad`; NAME is the kernel's (cbc(aes), xts(aes), ecb(des3_ede), ccm(aes),
// authenc(hmac(sha256),cbc(aes)), ...). AEADs take --assoc/--assoc-file, --tag-bytes and (authenc)
// --auth-key; the tag follows the ciphertext, and a tag that does not match is exit 1.
// --platform names a profile whose kernel era's algorithms and fallback rules apply.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

namespace qcesim::cli {

struct CipherOptions {
  std::string alg;
  std::string key_hex, iv_hex;
  std::string auth_key_hex;           // authenc: the HMAC key
  std::string assoc_hex, assoc_file;  // AEAD: associated data (one of the two)
  unsigned tag_bytes = 0;             // AEAD: 0 = the algorithm's largest
  std::string platform;               // a profile JSON: its kernel era's rules apply
  int era = -1;                       // --era: the driver's kernel era (-1: the platform's, else none)
  bool decrypt = false;
  bool on_cpu = false;            // --engine cpu
  bool bam_reg_io = false;        // --reg-io bam
  bool forbid_weak_keys = false;  // --forbid-weak-keys: CRYPTO_TFM_REQ_FORBID_WEAK_KEYS
  std::string iv_out;             // --iv-out FILE: the IV the request leaves, in hex
  std::string file;               // empty or "-": standard input
};

// Exit status: 0; 1 when an AEAD's tag does not match; 2 for bad options, input or an engine
// failure (nothing is written in either case).
int run_cipher(const CipherOptions& opt, std::ostream& out, std::ostream& err);

}  // namespace qcesim::cli
