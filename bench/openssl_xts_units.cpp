// The reference for the xts(aes) replay's speed target: OpenSSL (EVP, the host's AES
// instructions) encrypting a file's bytes as AES-256-XTS data units of N bytes, one EVP call per
// unit with the unit's number as the tweak, as dm-crypt's sectors would be; prints the seconds
// the encryption took (the file is read first). `openssl enc` has no XTS, hence this.
// Usage: openssl_xts_units FILE [unit bytes, default 4096]
#include <openssl/evp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [unit bytes]\n", argv[0]);
    return 2;
  }
  const std::size_t unit = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 4096;
  std::ifstream f(argv[1], std::ios::binary);
  if (!f || unit < 16 || unit % 16) {
    std::fprintf(stderr, "%s: cannot read it, or the unit is not whole 16-byte blocks\n", argv[1]);
    return 2;
  }
  std::vector<unsigned char> in((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<unsigned char> out(unit);
  unsigned char key[64];
  for (int i = 0; i < 64; ++i) key[i] = static_cast<unsigned char>(i * 7 + 1);
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  EVP_EncryptInit_ex(ctx, EVP_aes_256_xts(), nullptr, key, nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  unsigned long long sink = 0;
  for (std::size_t off = 0, n = 0; off + unit <= in.size(); off += unit, ++n) {
    unsigned char iv[16] = {};
    for (int b = 0; b < 8; ++b) iv[b] = static_cast<unsigned char>(n >> (8 * b));
    int len = 0;
    EVP_EncryptInit_ex(ctx, nullptr, nullptr, nullptr, iv);
    EVP_EncryptUpdate(ctx, out.data(), &len, in.data() + off, static_cast<int>(unit));
    sink += out[0];
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EVP_CIPHER_CTX_free(ctx);
  std::printf("%.4f\n", s);
  return sink == 0xFFFFFFFFFFFFFFFFull ? 1 : 0;  // keeps the loop's work observable
}
