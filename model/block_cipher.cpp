#include "model/block_cipher.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace qcesim {

const char* cipher_alg_name(CipherAlg a) {
  switch (a) {
    case CipherAlg::aes:
      return "aes";
    case CipherAlg::des:
      return "des";
    case CipherAlg::tdes:
      return "des3_ede";
  }
  return "?";
}

const char* cipher_mode_name(CipherMode m) {
  switch (m) {
    case CipherMode::ecb:
      return "ecb";
    case CipherMode::cbc:
      return "cbc";
    case CipherMode::ctr:
      return "ctr";
    case CipherMode::xts:
      return "xts";
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

namespace {

// OpenSSL's cipher for an algorithm, key length and mode (ECB, CBC or CTR), and the key as it
// takes it. Single DES lives in OpenSSL 3's legacy provider; EDE with K1 = K2 = K3 is the same.
const EVP_CIPHER* evp_cipher(CipherAlg alg, const std::vector<std::uint8_t>& key, CipherMode mode,
                             std::vector<std::uint8_t>& k) {
  const bool cbc = mode == CipherMode::cbc, ctr = mode == CipherMode::ctr;
  k = key;
  if (mode == CipherMode::xts && alg == CipherAlg::aes) {  // key: K1 then K2
    if (key.size() == 32) return EVP_aes_128_xts();
    if (key.size() == 64) return EVP_aes_256_xts();
  } else if (alg == CipherAlg::aes) {
    if (key.size() == 16) return ctr ? EVP_aes_128_ctr() : cbc ? EVP_aes_128_cbc() : EVP_aes_128_ecb();
    if (key.size() == 24) return ctr ? EVP_aes_192_ctr() : cbc ? EVP_aes_192_cbc() : EVP_aes_192_ecb();
    if (key.size() == 32) return ctr ? EVP_aes_256_ctr() : cbc ? EVP_aes_256_cbc() : EVP_aes_256_ecb();
  } else if (!ctr && (alg == CipherAlg::tdes ? key.size() == 24 : key.size() == 8)) {
    if (alg == CipherAlg::des) {
      k.clear();
      for (int i = 0; i < 3; ++i) k.insert(k.end(), key.begin(), key.end());
    }
    return cbc ? EVP_des_ede3_cbc() : EVP_des_ede3_ecb();
  }
  throw std::invalid_argument(std::string(cipher_alg_name(alg)) + " has no key of " + std::to_string(key.size()) +
                              " bytes");
}

EVP_CIPHER_CTX* evp_init(CipherAlg alg, const std::vector<std::uint8_t>& key, CipherMode mode, bool encrypt) {
  std::vector<std::uint8_t> k;
  const EVP_CIPHER* cipher = evp_cipher(alg, key, mode, k);
  EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
  if (!c || EVP_CipherInit_ex(c, cipher, nullptr, k.data(), nullptr, encrypt ? 1 : 0) != 1 ||
      EVP_CIPHER_CTX_set_padding(c, 0) != 1) {
    EVP_CIPHER_CTX_free(c);
    throw std::runtime_error("OpenSSL could not set up the block cipher");
  }
  return c;
}

}  // namespace

BlockFunction::BlockFunction(CipherAlg alg, const std::vector<std::uint8_t>& key, bool encrypt)
    : m_ctx(std::make_unique<Ctx>()), m_block(cipher_block_bytes(alg)) {
  m_ctx->c = evp_init(alg, key, CipherMode::ecb, encrypt);
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

struct BulkMode::Ctx {
  EVP_CIPHER_CTX* c = nullptr;
  ~Ctx() { EVP_CIPHER_CTX_free(c); }
};

BulkMode::BulkMode(CipherAlg alg, const std::vector<std::uint8_t>& key, bool encrypt, CipherMode mode)
    : m_ctx(std::make_unique<Ctx>()), m_encrypt(encrypt) {
  m_ctx->c = evp_init(alg, key, mode, encrypt);
}

BulkMode::~BulkMode() = default;

void BulkMode::run(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out, std::size_t len) const {
  int outl = 0;
  if (len == 0) return;
  if (EVP_CipherInit_ex(m_ctx->c, nullptr, nullptr, nullptr, iv, m_encrypt ? 1 : 0) != 1 ||
      EVP_CipherUpdate(m_ctx->c, out, &outl, in, static_cast<int>(len)) != 1 || static_cast<std::size_t>(outl) != len)
    throw std::runtime_error("OpenSSL block cipher failed");
}

// ---------------------------------------------------------------------------------------------
// Modes

CipherSpec kernel_cipher_spec(CipherAlg alg, CipherMode mode, bool encrypt, const std::vector<std::uint8_t>& key,
                              const std::uint8_t* iv, std::size_t iv_bytes) {
  CipherSpec s;
  s.alg = alg;
  s.mode = mode;
  s.encrypt = encrypt;
  s.key = key;
  if (mode == CipherMode::xts) {
    const auto half = static_cast<long>(key.size() / 2);
    s.key.assign(key.begin(), key.begin() + half);
    s.xts_key.assign(key.begin() + half, key.end());
  }
  std::copy(iv, iv + std::min<std::size_t>(iv_bytes, s.iv.size()), s.iv.begin());
  return s;
}

bool xts_halves_equal(const std::vector<std::uint8_t>& key) {
  const auto h = static_cast<long>(key.size() / 2);
  return key.size() % 2 == 0 && std::equal(key.begin(), key.begin() + h, key.begin() + h);
}

bool tdes_has_equal_keys(const std::vector<std::uint8_t>& k) {
  if (k.size() != 24) return false;
  auto eq = [&](int a, int b) { return std::equal(k.begin() + 8 * a, k.begin() + 8 * (a + 1), k.begin() + 8 * b); };
  return eq(0, 1) || eq(1, 2) || eq(0, 2);
}

bool des_key_is_weak(const std::uint8_t* key8) {
  // FIPS 74 section 3.6 (weak and semi-weak keys), with odd parity; compared without the
  // parity bits (bit 0 of each byte), which the key schedule ignores.
  static constexpr std::uint8_t kWeak[16][8] = {
      {0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01}, {0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe},
      {0xe0, 0xe0, 0xe0, 0xe0, 0xf1, 0xf1, 0xf1, 0xf1}, {0x1f, 0x1f, 0x1f, 0x1f, 0x0e, 0x0e, 0x0e, 0x0e},
      {0x01, 0xfe, 0x01, 0xfe, 0x01, 0xfe, 0x01, 0xfe}, {0xfe, 0x01, 0xfe, 0x01, 0xfe, 0x01, 0xfe, 0x01},
      {0x1f, 0xe0, 0x1f, 0xe0, 0x0e, 0xf1, 0x0e, 0xf1}, {0xe0, 0x1f, 0xe0, 0x1f, 0xf1, 0x0e, 0xf1, 0x0e},
      {0x01, 0xe0, 0x01, 0xe0, 0x01, 0xf1, 0x01, 0xf1}, {0xe0, 0x01, 0xe0, 0x01, 0xf1, 0x01, 0xf1, 0x01},
      {0x1f, 0xfe, 0x1f, 0xfe, 0x0e, 0xfe, 0x0e, 0xfe}, {0xfe, 0x1f, 0xfe, 0x1f, 0xfe, 0x0e, 0xfe, 0x0e},
      {0x01, 0x1f, 0x01, 0x1f, 0x01, 0x0e, 0x01, 0x0e}, {0x1f, 0x01, 0x1f, 0x01, 0x0e, 0x01, 0x0e, 0x01},
      {0xe0, 0xfe, 0xe0, 0xfe, 0xf1, 0xfe, 0xf1, 0xfe}, {0xfe, 0xe0, 0xfe, 0xe0, 0xfe, 0xf1, 0xfe, 0xf1}};
  for (const auto& w : kWeak) {
    bool same = true;
    for (int i = 0; i < 8 && same; ++i) same = ((key8[i] ^ w[i]) & 0xfe) == 0;
    if (same) return true;
  }
  return false;
}

std::string check_cipher_spec(const CipherSpec& s) {
  const std::size_t k = s.key.size();
  if (s.alg == CipherAlg::aes && k != 16 && k != 24 && k != 32) return "an AES key of 16, 24 or 32 bytes";
  if (s.alg == CipherAlg::des && k != 8) return "a DES key of 8 bytes";
  if (s.alg == CipherAlg::tdes && k != 24) return "a 3DES key of 24 bytes";
  if (s.mode == CipherMode::xts) {
    if (s.alg != CipherAlg::aes) return "XTS with AES only";
    if (s.xts_key.size() != k) return "an XTS tweak key as long as the data key";
    // A unit that ends in a partial block is stolen from at its end (one update() call to it).
    if (s.data_unit_bytes != 0 && s.data_unit_bytes < 16) return "an XTS data unit of at least 16 bytes";
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
  if (s.mode == CipherMode::cbc || s.mode == CipherMode::ctr)
    m_bulk = std::make_unique<BulkMode>(s.alg, s.key, s.encrypt || s.mode == CipherMode::ctr, s.mode);
  if (s.mode == CipherMode::xts && s.data_unit_bytes && s.key != s.xts_key && s.key.size() != 24) {
    // Whole data units through OpenSSL's XTS (it refuses equal halves and has no AES-192 XTS).
    std::vector<std::uint8_t> both = s.key;
    both.insert(both.end(), s.xts_key.begin(), s.xts_key.end());
    m_bulk = std::make_unique<BulkMode>(s.alg, both, s.encrypt, CipherMode::xts);
  }
  if (s.mode == CipherMode::xts) {
    m_tweak = std::make_unique<BlockFunction>(s.alg, s.xts_key, true);
    xts_start_unit();
  }
}

void CipherStream::restart(const std::array<std::uint8_t, 16>& iv) {
  m_spec.iv = m_iv = iv;
  if (m_spec.mode == CipherMode::ecb) m_iv.fill(0);
  if (m_spec.mode == CipherMode::xts) xts_start_unit();
}

bool CipherStream::same_keys(const CipherSpec& s) const {
  return s.alg == m_spec.alg && s.mode == m_spec.mode && s.encrypt == m_spec.encrypt && s.key == m_spec.key &&
         s.xts_key == m_spec.xts_key && s.data_unit_bytes == m_spec.data_unit_bytes;
}

// The unit's first tweak E(K2, i) is computed when a block needs it: a whole unit from its start
// goes to OpenSSL's XTS, which makes its own.
void CipherStream::xts_start_unit() {
  m_t_due = true;
  m_unit_done = 0;
}

// Runs of whole blocks go to OpenSSL in one call (ECB; CBC and CTR in its own modes from the
// stream's IV; XTS as one ECB call between the tweak XORs); the chaining state is kept here.
void CipherStream::update(const std::uint8_t* in, std::uint8_t* out, std::size_t len) {
  const std::size_t b = m_block;
  // XTS ends a data unit (or the stream) on a partial block with ciphertext stealing.
  const bool steal = m_spec.mode == CipherMode::xts && len % b != 0 && len > b &&
                     (m_spec.data_unit_bytes == 0 || m_unit_done + len == m_spec.data_unit_bytes);
  if (m_spec.mode != CipherMode::ctr && len % b != 0 && !steal)
    throw std::invalid_argument(std::string(cipher_mode_name(m_spec.mode)) + " takes whole blocks of " +
                                std::to_string(b) + " bytes, not " + std::to_string(len));
  if (steal) return xts_steal(in, out, len);
  const std::size_t whole = len - len % b, nblocks = whole / b;
  switch (m_spec.mode) {
    case CipherMode::ecb:
      m_fn.blocks(in, out, nblocks);
      break;
    case CipherMode::cbc: {
      if (whole == 0) break;
      std::uint8_t next[16];
      // The next IV: the last ciphertext block (decrypting, read before out may overwrite it).
      if (!m_spec.encrypt) std::memcpy(next, in + whole - b, b);
      m_bulk->run(m_iv.data(), in, out, whole);
      std::memcpy(m_iv.data(), m_spec.encrypt ? out + whole - b : next, b);
      break;
    }
    case CipherMode::ctr: {
      m_bulk->run(m_iv.data(), in, out, whole);
      // The counter + nblocks, all 128 bits big-endian (CNTR_MASK all ones, as the driver sets it).
      std::uint64_t add = nblocks;
      for (std::size_t i = b; i-- > 0 && add;) {
        const std::uint64_t v = m_iv[i] + (add & 0xFF);
        m_iv[i] = static_cast<std::uint8_t>(v);
        add = (add >> 8) + (v >> 8);
      }
      if (len > whole) {  // a partial last block: the current counter's keystream, the counter kept
        std::uint8_t ks[16];
        m_fn.blocks(m_iv.data(), ks, 1);
        for (std::size_t i = 0; i < len - whole; ++i) out[whole + i] = static_cast<std::uint8_t>(in[whole + i] ^ ks[i]);
      }
      break;
    }
    case CipherMode::xts: {
      std::size_t off = 0;
      while (off < whole) {
        // Up to the end of the data unit: its tweaks run on from the unit's start.
        std::size_t n = (whole - off) / b;
        if (m_spec.data_unit_bytes) n = std::min<std::size_t>(n, (m_spec.data_unit_bytes - m_unit_done) / b);
        if (m_bulk && m_unit_done == 0 && n * b == m_spec.data_unit_bytes) {
          m_bulk->run(m_iv.data(), in + off, out + off, n * b);  // a whole unit from its start: i is its IV
        } else {
          xts_blocks(in + off, out + off, n);
        }
        off += n * b;
        m_unit_done += n * b;
        if (m_spec.data_unit_bytes && m_unit_done == m_spec.data_unit_bytes) {
          // The next data unit: i + 1 (little-endian), its own tweak.
          for (std::uint8_t& x : m_iv)
            if (++x != 0) break;
          xts_start_unit();
        }
      }
      break;
    }
  }
}

// The last len bytes of an XTS data unit, ending in a partial block (IEEE 1619 section 5.3.2,
// ciphertext stealing): the blocks before the last whole one as usual; the last whole block and
// the partial one swap their tails. Decrypting, the last whole block takes the next tweak first.
void CipherStream::xts_steal(const std::uint8_t* in, std::uint8_t* out, std::size_t len) {
  const std::size_t r = len % 16, head = len - r - 16;
  if (m_bulk && m_unit_done == 0 && m_spec.data_unit_bytes == len) {
    m_bulk->run(m_iv.data(), in, out, len);  // OpenSSL's XTS steals the same way
  } else {
    xts_blocks(in, out, head / 16);
    std::array<std::uint8_t, 16> t1 = m_t, t2 = m_t;
    xts_times_x(t2);
    if (!m_spec.encrypt) std::swap(t1, t2);
    auto block = [this](const std::uint8_t* x, const std::array<std::uint8_t, 16>& t, std::uint8_t* y) {
      std::uint8_t tmp[16];
      for (int i = 0; i < 16; ++i) tmp[i] = static_cast<std::uint8_t>(x[i] ^ t[static_cast<std::size_t>(i)]);
      m_fn.blocks(tmp, tmp, 1);
      for (int i = 0; i < 16; ++i) y[i] = static_cast<std::uint8_t>(tmp[i] ^ t[static_cast<std::size_t>(i)]);
    };
    std::uint8_t cc[16], pp[16], last[16];
    std::memcpy(last, in + head + 16, r);  // the partial block (in may be out)
    block(in + head, t1, cc);              // the last whole block
    std::memcpy(pp, last, r);              // the partial block with the stolen tail
    std::memcpy(pp + r, cc + r, 16 - r);
    std::memcpy(out + head + 16, cc, r);  // the partial output: the whole block's head
    block(pp, t2, out + head);
  }
  m_unit_done = 0;
  for (std::uint8_t& x : m_iv)  // the next data unit
    if (++x != 0) break;
  xts_start_unit();
}

// n XTS blocks within one data unit: each XORed with its tweak, one ECB call, XORed again.
void CipherStream::xts_blocks(const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  if (m_t_due) {
    m_tweak->blocks(m_iv.data(), m_t.data(), 1);
    m_t_due = false;
  }
  m_scratch.resize(n * 16);
  for (std::size_t k = 0; k < n; ++k) {
    std::memcpy(m_scratch.data() + 16 * k, m_t.data(), 16);
    xts_times_x(m_t);
  }
  for (std::size_t i = 0; i < n * 16; ++i) out[i] = static_cast<std::uint8_t>(in[i] ^ m_scratch[i]);
  m_fn.blocks(out, out, n);
  for (std::size_t i = 0; i < n * 16; ++i) out[i] ^= m_scratch[i];
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

std::array<std::uint8_t, 16> software_iv_out(const CipherStream& stream, CipherMode mode, std::uint64_t total,
                                             const std::array<std::uint8_t, 16>& iv_in) {
  if (mode != CipherMode::cbc && mode != CipherMode::ctr) return iv_in;
  std::array<std::uint8_t, 16> out = stream.iv();
  const std::size_t block = stream.block_bytes();
  if (mode == CipherMode::ctr && total % block != 0)
    for (std::size_t i = block; i-- > 0 && ++out[i] == 0;) {
    }
  return out;
}

void CbcMac::pad() {
  if (m_len == 0) return;
  const std::array<std::uint8_t, 16> zeros{};
  update(zeros.data(), 16 - m_len);
}

}  // namespace qcesim
