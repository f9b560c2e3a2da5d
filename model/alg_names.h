// The kernel's algorithm names the emulator knows ("sha256", "cbc(aes)", "ccm(aes)",
// "authenc(hmac(sha256),cbc(aes))", ...) and what each is: one table, without SystemC, for the
// scenario reader, the CLI and the drivers alike.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/block_cipher.h"
#include "model/sha_core.h"

namespace qcesim {

enum class AlgKind { hash, skcipher, aead };

struct AlgName {
  std::string name;
  AlgKind kind = AlgKind::hash;
  HashAlg hash = HashAlg::sha256;     // hash; authenc's HMAC
  CipherAlg cipher = CipherAlg::aes;  // skcipher; authenc's CBC cipher
  CipherMode mode = CipherMode::cbc;  // skcipher
  bool ccm = false;                   // aead: ccm(aes), else authenc
  // The default key: AES-128 (XTS: two of them), DES 8, 3DES 24 bytes.
  std::size_t default_key_bytes() const;
};

std::optional<AlgName> parse_alg_name(const std::string& name);
// Every name, hashes first, in the driver's order.
const std::vector<AlgName>& alg_names();
std::string alg_name_list(AlgKind kind);

}  // namespace qcesim
