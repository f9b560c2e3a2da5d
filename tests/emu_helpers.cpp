#include "tests/emu_helpers.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstring>
#include <random>

#include "cli/hex.h"

namespace qcesim::test {

void with_emulator(qce::RegIo io, const std::function<void(soc::Emulator&)>& job) {
  with_emulator(io, qce::QceRules{}, job);
}

void with_emulator(qce::RegIo io, const qce::QceRules& rules, const std::function<void(soc::Emulator&)>& job) {
  soc::EmulatorConfig cfg;
  cfg.driver.reg_io = io;
  cfg.driver.rules = rules;
  soc::Emulator emu(cfg);
  emu.run(job);
}

cpu::DmaBuf load(cpu::Host& host, const std::vector<std::uint8_t>& data) {
  cpu::DmaBuf b = host.dma_alloc(data.empty() ? 1 : data.size(), 64);
  if (!data.empty()) std::memcpy(b.ptr, data.data(), data.size());
  return b;
}

std::vector<std::uint8_t> qce_digest(soc::Emulator& e, HashAlg alg, const std::vector<std::uint8_t>& msg,
                                     const std::optional<std::vector<std::uint8_t>>& key) {
  cpu::DmaBuf b = load(e.host(), msg);
  qce::QceAhash h(e.qce(), e.task(), alg, key);
  auto d = h.digest(b.addr, static_cast<std::uint32_t>(msg.size()));
  e.host().dma_free(b);
  return d;
}

std::vector<std::uint8_t> qce_hash_chunked(soc::Emulator& e, HashAlg alg, const std::vector<std::uint8_t>& msg,
                                           const std::vector<std::size_t>& cuts,
                                           const std::optional<std::vector<std::uint8_t>>& key,
                                           std::uint64_t* requests) {
  cpu::DmaBuf b = load(e.host(), msg);
  qce::QceAhash h(e.qce(), e.task(), alg, key);
  std::size_t off = 0;
  for (std::size_t c : cuts) {
    if (off + c > msg.size()) break;
    h.update(b.addr + off, static_cast<std::uint32_t>(c));
    off += c;
  }
  if (off < msg.size()) h.update(b.addr + off, static_cast<std::uint32_t>(msg.size() - off));
  auto d = h.final();
  if (requests) *requests = h.requests();
  e.host().dma_free(b);
  return d;
}

std::vector<std::uint8_t> openssl_digest(HashAlg alg, const std::vector<std::uint8_t>& msg) {
  std::vector<std::uint8_t> out(EVP_MAX_MD_SIZE);
  unsigned len = 0;
  EVP_Digest(msg.data(), msg.size(), out.data(), &len, alg == HashAlg::sha1 ? EVP_sha1() : EVP_sha256(), nullptr);
  out.resize(len);
  return out;
}

std::vector<std::uint8_t> openssl_hmac(HashAlg alg, const std::vector<std::uint8_t>& key,
                                       const std::vector<std::uint8_t>& msg) {
  std::vector<std::uint8_t> out(EVP_MAX_MD_SIZE);
  unsigned len = 0;
  HMAC(alg == HashAlg::sha1 ? EVP_sha1() : EVP_sha256(), key.data(), static_cast<int>(key.size()), msg.data(),
       msg.size(), out.data(), &len);
  out.resize(len);
  return out;
}

std::vector<std::uint8_t> openssl_cipher(const EVP_CIPHER* c, bool encrypt, const std::vector<std::uint8_t>& key,
                                         const std::vector<std::uint8_t>& iv, const std::vector<std::uint8_t>& in) {
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  EVP_CipherInit_ex(ctx, c, nullptr, key.data(), iv.empty() ? nullptr : iv.data(), encrypt ? 1 : 0);
  EVP_CIPHER_CTX_set_padding(ctx, 0);
  std::vector<std::uint8_t> out(in.size() + 32);
  int n = 0, m = 0;
  EVP_CipherUpdate(ctx, out.data(), &n, in.data(), static_cast<int>(in.size()));
  EVP_CipherFinal_ex(ctx, out.data() + n, &m);
  EVP_CIPHER_CTX_free(ctx);
  out.resize(static_cast<std::size_t>(n + m));
  return out;
}

std::vector<std::uint8_t> openssl_ccm_encrypt(const std::vector<std::uint8_t>& key,
                                              const std::vector<std::uint8_t>& nonce,
                                              const std::vector<std::uint8_t>& aad, const std::vector<std::uint8_t>& pt,
                                              unsigned tag_bytes) {
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  EVP_EncryptInit_ex(ctx,
                     key.size() == 32   ? EVP_aes_256_ccm()
                     : key.size() == 24 ? EVP_aes_192_ccm()
                                        : EVP_aes_128_ccm(),
                     nullptr, nullptr, nullptr);
  EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(nonce.size()), nullptr);
  EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, static_cast<int>(tag_bytes), nullptr);
  EVP_EncryptInit_ex(ctx, nullptr, nullptr, key.data(), nonce.data());
  int n = 0;
  EVP_EncryptUpdate(ctx, nullptr, &n, nullptr, static_cast<int>(pt.size()));  // CCM needs the length first
  if (!aad.empty()) EVP_EncryptUpdate(ctx, nullptr, &n, aad.data(), static_cast<int>(aad.size()));
  std::vector<std::uint8_t> out(pt.size() + tag_bytes);
  // The payload update runs even when empty (it computes the tag); OpenSSL wants non-null buffers.
  static const std::uint8_t none = 0;
  EVP_EncryptUpdate(ctx, out.data(), &n, pt.empty() ? &none : pt.data(), static_cast<int>(pt.size()));
  EVP_EncryptFinal_ex(ctx, out.data() + n, &n);
  EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, static_cast<int>(tag_bytes), out.data() + pt.size());
  EVP_CIPHER_CTX_free(ctx);
  return out;
}

std::string hex(const std::vector<std::uint8_t>& v) { return cli::to_hex(v); }

std::vector<std::uint8_t> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

}  // namespace qcesim::test
