#include "model/block_cipher.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace qcesim {

const char* cipher_alg_name(CipherAlg a) {
  switch (a) {
    case CipherAlg::aes: return "aes";
    case CipherAlg::des: return "des";
    case CipherAlg::tdes: return "des3_ede";
  }
  return "?";
}

const char* cipher_mode_name(CipherMode m) {
  switch (m) {
    case CipherMode::ecb: return "ecb";
    case CipherMode::cbc: return "cbc";
    case CipherMode::ctr: return "ctr";
    case CipherMode::xts: return "xts";
  }
  return "?";
}

std::size_t cipher_block_bytes(CipherAlg a) { return a == CipherAlg::aes ? 16 : 8; }

// ---------------------------------------------------------------------------------------------
// The raw block function

struct BlockFunction::Ctx {
  EVP_CIPHER_CTX* c = nullptr;
  ~Ctx() { EVP_CIPHER_CTX_free(c); }
};

BlockFunction::BlockFunction(CipherAlg alg, const std::vector<std::uint8_t>& key, bool encrypt)
    : m_ctx(std::make_unique<Ctx>()), m_block(cipher_block_bytes(alg)) {
  const EVP_CIPHER* cipher = nullptr;
  std::vector<std::uint8_t> k = key;
  if (alg == CipherAlg::aes) {
    if (key.size() == 16) cipher = EVP_aes_128_ecb();
    if (key.size() == 24) cipher = EVP_aes_192_ecb();
    if (key.size() == 32) cipher = EVP_aes_256_ecb();
  } else if (alg == CipherAlg::tdes && key.size() == 24) {
    cipher = EVP_des_ede3_ecb();
  } else if (alg == CipherAlg::des && key.size() == 8) {
    // Single DES lives in OpenSSL 3's legacy provider; EDE with K1 = K2 = K3 is the same function.
    cipher = EVP_des_ede3_ecb();
    k.clear();
    for (int i = 0; i < 3; ++i) k.insert(k.end(), key.begin(), key.end());
  }
  if (!cipher)
    throw std::invalid_argument(std::string(cipher_alg_name(alg)) + " has no key of " + std::to_string(key.size()) + " bytes");
  m_ctx->c = EVP_CIPHER_CTX_new();
  if (!m_ctx->c || EVP_CipherInit_ex(m_ctx->c, cipher, nullptr, k.data(), nullptr, encrypt ? 1 : 0) != 1 ||
      EVP_CIPHER_CTX_set_padding(m_ctx->c, 0) != 1)
    throw std::runtime_error("OpenSSL could not set up the block cipher");
}

BlockFunction::~BlockFunction() = default;
BlockFunction::BlockFunction(BlockFunction&&) noexcept = default;
BlockFunction& BlockFunction::operator=(BlockFunction&&) noexcept = default;

void BlockFunction::blocks(const std::uint8_t* in, std::uint8_t* out, std::size_t n) const {
  const std::size_t len = n * m_block;
  if (len == 0) return;
  int outl = 0;
  if (EVP_CipherUpdate(m_ctx->c, out, &outl, in, static_cast<int>(len)) != 1 || static_cast<std::size_t>(outl) != len)
    throw std::runtime_error("OpenSSL block cipher failed");
}

// ---------------------------------------------------------------------------------------------
// Modes

std::string check_cipher_spec(const CipherSpec& s) {
  const std::size_t k = s.key.size();
  if (s.alg == CipherAlg::aes && k != 16 && k != 24 && k != 32) return "an AES key of 16, 24 or 32 bytes";
  if (s.alg == CipherAlg::des && k != 8) return "a DES key of 8 bytes";
  if (s.alg == CipherAlg::tdes && k != 24) return "a 3DES key of 24 bytes";
  if (s.mode == CipherMode::xts) {
    if (s.alg != CipherAlg::aes) return "XTS with AES only";
    if (s.xts_key.size() != k) return "an XTS tweak key as long as the data key";
    if (s.data_unit_bytes % 16 != 0) return "an XTS data unit of whole 16-byte blocks";
  }
  if (s.mode == CipherMode::ctr && s.alg != CipherAlg::aes) return "CTR with AES only";
  return "";
}

namespace {

BlockFunction make_fn(const CipherSpec& s) {
  if (const std::string e = check_cipher_spec(s); !e.empty()) throw std::invalid_argument("expected " + e);
  // CTR only ever encrypts counter blocks.
  return BlockFunction(s.alg, s.key, s.encrypt || s.mode == CipherMode::ctr);
}

void xor_into(std::uint8_t* dst, const std::uint8_t* a, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] ^= a[i];
}

// Multiplies the tweak by x in GF(2^128), little-endian as IEEE 1619 orders it.
void xts_times_x(std::array<std::uint8_t, 16>& t) {
  std::uint8_t carry = 0;
  for (std::uint8_t& b : t) {
    const std::uint8_t next = static_cast<std::uint8_t>(b >> 7);
    b = static_cast<std::uint8_t>((b << 1) | carry);
    carry = next;
  }
  if (carry) t[0] ^= 0x87;
}

}  // namespace

CipherStream::CipherStream(const CipherSpec& s)
    : m_spec(s), m_block(cipher_block_bytes(s.alg)), m_fn(make_fn(s)), m_iv(s.iv) {
  if (s.mode == CipherMode::ecb) m_iv.fill(0);
  if (s.mode == CipherMode::xts) {
    m_tweak = std::make_unique<BlockFunction>(s.alg, s.xts_key, true);
    xts_start_unit();
  }
}

void CipherStream::xts_start_unit() {
  m_tweak->blocks(m_iv.data(), m_t.data(), 1);
  m_unit_done = 0;
}

// The counter block + 1, all 128 bits big-endian (CNTR_MASK all ones, as the driver sets it).
void CipherStream::ctr_increment() {
  for (std::size_t i = m_block; i-- > 0;)
    if (++m_iv[i] != 0) break;
}

void CipherStream::update(const std::uint8_t* in, std::uint8_t* out, std::size_t len) {
  const std::size_t b = m_block;
  if (m_spec.mode != CipherMode::ctr && len % b != 0)
    throw std::invalid_argument(std::string(cipher_mode_name(m_spec.mode)) + " takes whole blocks of " + std::to_string(b) +
                                " bytes, not " + std::to_string(len));
  std::uint8_t tmp[16];
  for (std::size_t off = 0; off < len; off += b) {
    const std::uint8_t* p = in + off;
    std::uint8_t* q = out + off;
    switch (m_spec.mode) {
      case CipherMode::ecb:
        m_fn.blocks(p, q, 1);
        break;
      case CipherMode::cbc:
        if (m_spec.encrypt) {
          std::memcpy(tmp, p, b);
          xor_into(tmp, m_iv.data(), b);
          m_fn.blocks(tmp, q, 1);
          std::memcpy(m_iv.data(), q, b);
        } else {
          std::memcpy(tmp, p, b);  // in may be out
          m_fn.blocks(p, q, 1);
          xor_into(q, m_iv.data(), b);
          std::memcpy(m_iv.data(), tmp, b);
        }
        break;
      case CipherMode::ctr: {
        const std::size_t n = std::min(b, len - off);
        m_fn.blocks(m_iv.data(), tmp, 1);
        for (std::size_t i = 0; i < n; ++i) q[i] = static_cast<std::uint8_t>(p[i] ^ tmp[i]);
        if (n == b) ctr_increment();
        break;
      }
      case CipherMode::xts:
        std::memcpy(tmp, p, b);
        xor_into(tmp, m_t.data(), b);
        m_fn.blocks(tmp, q, 1);
        xor_into(q, m_t.data(), b);
        xts_times_x(m_t);
        m_unit_done += b;
        if (m_spec.data_unit_bytes && m_unit_done == m_spec.data_unit_bytes) {
          // The next data unit: i + 1 (little-endian), its own tweak.
          for (std::uint8_t& x : m_iv)
            if (++x != 0) break;
          xts_start_unit();
        }
        break;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// CBC-MAC

CbcMac::CbcMac(const std::vector<std::uint8_t>& aes_key) : m_fn(CipherAlg::aes, aes_key, true) {}

void CbcMac::update(const std::uint8_t* data, std::size_t len) {
  while (len) {
    const std::size_t n = std::min(len, 16 - m_len);
    for (std::size_t i = 0; i < n; ++i) m_buf[m_len + i] = data[i];
    m_len += n;
    data += n;
    len -= n;
    if (m_len == 16) {
      for (std::size_t i = 0; i < 16; ++i) m_x[i] ^= m_buf[i];
      m_fn.blocks(m_x.data(), m_x.data(), 1);
      m_len = 0;
    }
  }
}

void CbcMac::pad() {
  if (m_len == 0) return;
  const std::array<std::uint8_t, 16> zeros{};
  update(zeros.data(), 16 - m_len);
}

}  // namespace qcesim
