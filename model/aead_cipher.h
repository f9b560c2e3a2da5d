// The AEADs functionally, as the kernel's software implementations compute them (crypto/ccm.c
// or arm64's aes-ce-ccm; crypto/authenc.c over cbc(...) and hmac(...)): whole messages, any
// payload length, in the kernel's conventions (ccm(aes)'s 16-byte IV with L - 1 in byte 0;
// authenc's tag = HMAC over the associated data and the ciphertext). The reference the engine's
// CCM and authenc are checked against, the CPU path of `qcesim cipher`, and the driver's
// software fallback. The engine's own arithmetic is in qce/ (auth_core, cipher_core).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "model/block_cipher.h"
#include "model/sha_core.h"

namespace qcesim {

using AeadBytes = std::vector<std::uint8_t>;

// CCM (SP 800-38C, RFC 3610): ciphertext then a tag of tag_bytes (4..16, even). iv[0] = L - 1
// (1..7); iv[1 .. 15 - L] is the nonce; the counter bytes are ignored (zeroed, as the kernel does).
AeadBytes ccm_encrypt(const AeadBytes& key, const std::array<std::uint8_t, 16>& iv, const AeadBytes& assoc,
                      const AeadBytes& plaintext, unsigned tag_bytes);
// RFC 3610's encoding of the associated data's length, which CCM's MAC takes before the data:
// two bytes below 0xff00, else 0xff 0xfe and four bytes. Returns the header's length (2 or 6).
std::size_t ccm_adata_header(std::uint32_t assoc_bytes, std::uint8_t out[6]);

// ct_and_tag: ciphertext then tag. nullopt when the tag does not match.
std::optional<AeadBytes> ccm_decrypt(const AeadBytes& key, const std::array<std::uint8_t, 16>& iv,
                                     const AeadBytes& assoc, const AeadBytes& ct_and_tag, unsigned tag_bytes);

// authenc(hmac(H),cbc(C)): CBC ciphertext (whole blocks) then the first tag_bytes of
// HMAC-H(auth_key, assoc || ciphertext).
AeadBytes authenc_encrypt(CipherAlg c, HashAlg h, const AeadBytes& enc_key, const AeadBytes& auth_key,
                          const std::array<std::uint8_t, 16>& iv, const AeadBytes& assoc, const AeadBytes& plaintext,
                          unsigned tag_bytes);
std::optional<AeadBytes> authenc_decrypt(CipherAlg c, HashAlg h, const AeadBytes& enc_key, const AeadBytes& auth_key,
                                         const std::array<std::uint8_t, 16>& iv, const AeadBytes& assoc,
                                         const AeadBytes& ct_and_tag, unsigned tag_bytes);

// Either AEAD by what it is: ccm(aes) (auth_key unused) or authenc(hmac(hash),cbc(cipher)).
// Encrypting, the ciphertext then the tag; decrypting (text ending with the tag), the plaintext,
// nullopt when the tag does not match.
std::optional<AeadBytes> aead_crypt(bool ccm, CipherAlg cipher, HashAlg hash, bool encrypt, const AeadBytes& key,
                                    const AeadBytes& auth_key, const std::array<std::uint8_t, 16>& iv,
                                    const AeadBytes& assoc, const AeadBytes& text, unsigned tag_bytes);

}  // namespace qcesim
