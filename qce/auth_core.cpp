#include "qce/auth_core.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>

#include "model/hash_ahead.h"
#include "model/byte_order.h"

namespace qcesim::qce {

namespace {}  // namespace

std::string AuthCore::latch_config(QceRegs& regs, bool cipher_active) {
  const std::uint32_t auth = regs.AUTH_SEG_CFG->value;
  m_active = false;
  m_alg = HashAlg::sha256;
  m_hmac = false;
  m_first = (auth & AUTH_FIRST) != 0;
  m_last = (auth & AUTH_LAST) != 0;
  m_hash.reset();
  m_cbc_mac.reset();
  m_ccm = false;
  m_pos_after = ((auth >> AUTH_POS_SHIFT) & 0x3u) == AUTH_POS_AFTER;
  m_start_count = m_hashed = 0;
  const std::uint32_t alg = (auth >> AUTH_ALG_SHIFT) & 0x7u;
  if (alg == AUTH_ALG_NONE) return cipher_active ? "" : "AUTH_SEG_CFG and ENCR_SEG_CFG both select no algorithm";
  if (alg == AUTH_ALG_AES) return latch_ccm(auth);
  if (alg != AUTH_ALG_SHA) return fmt::format("AUTH_SEG_CFG ALG={} is neither SHA (1) nor AES (2)", alg);
  const std::uint32_t size = (auth >> AUTH_SIZE_SHIFT) & 0x1Fu;
  if (size == AUTH_SIZE_SHA1) {
    m_alg = HashAlg::sha1;
  } else if (size == AUTH_SIZE_SHA256) {
    m_alg = HashAlg::sha256;
  } else {
    return fmt::format("AUTH_SEG_CFG SIZE={} is neither SHA1 (0) nor SHA256 (1)", size);
  }
  const std::uint32_t mode = (auth >> AUTH_MODE_SHIFT) & 0x7u;
  if (mode != AUTH_MODE_HASH && mode != AUTH_MODE_HMAC)
    return fmt::format("AUTH_SEG_CFG MODE={} is neither HASH (0) nor HMAC (1)", mode);
  m_hmac = mode == AUTH_MODE_HMAC;
  if (auth & (AUTH_USE_HW_KEY | AUTH_USE_PIPE_KEY)) return "AUTH_SEG_CFG asks for a hardware or pipe key";
  m_active = true;
  return "";
}

// ALG AES: CCM's CBC-MAC with a MAC of SIZE + 1 bytes (4..16, even), B0 from four nonce words.
std::string AuthCore::latch_ccm(std::uint32_t auth) {
  const std::uint32_t mode = (auth >> AUTH_MODE_SHIFT) & 0x7u, key_sz = (auth >> AUTH_KEY_SIZE_SHIFT) & 0x7u,
                      nonce_words = (auth >> AUTH_NONCE_NUM_WORDS_SHIFT) & 0x7u;
  if (mode != AUTH_MODE_CCM) return fmt::format("AUTH_SEG_CFG ALG AES with MODE={}: only CCM (0) is modelled", mode);
  if (key_sz != AUTH_KEY_SZ_AES128 && key_sz != AUTH_KEY_SZ_AES256)
    return fmt::format("AUTH_SEG_CFG KEY_SIZE={} is neither AES128 (0) nor AES256 (2)", key_sz);
  m_mac_bytes = ((auth >> AUTH_SIZE_SHIFT) & 0x1Fu) + 1;
  if (m_mac_bytes < 4 || m_mac_bytes > 16 || m_mac_bytes % 2)
    return fmt::format("AUTH_SEG_CFG SIZE={}: a CCM MAC of {} bytes (4..16, even)", m_mac_bytes - 1, m_mac_bytes);
  if (nonce_words != 4) return fmt::format("AUTH_SEG_CFG NONCE_NUM_WORDS={}: CCM's B0 is 4 words", nonce_words);
  if (!(auth & AUTH_FIRST) || !(auth & AUTH_LAST))
    return "CCM in more than one segment (FIRST and LAST not both set) is not modelled";
  if (auth & (AUTH_USE_HW_KEY | AUTH_USE_PIPE_KEY)) return "AUTH_SEG_CFG asks for a hardware or pipe key";
  m_ccm = true;
  m_key_words = key_sz == AUTH_KEY_SZ_AES256 ? 8 : 4;
  m_active = true;
  return "";
}

std::string AuthCore::latch_segment(QceRegs& regs, std::uint32_t seg_size) {
  if (!m_active) return "";
  m_start = regs.AUTH_SEG_START->value;
  m_size = regs.AUTH_SEG_SIZE->value;
  if (std::uint64_t{m_start} + m_size > seg_size)
    return fmt::format("AUTH_SEG_START {} + AUTH_SEG_SIZE {} exceed SEG_SIZE {}", m_start, m_size, seg_size);
  if (m_ccm) {
    // The MAC key from AUTH_KEYn and B0 from AUTH_INFO_NONCEn, as big-endian words.
    std::vector<std::uint8_t> key(4 * m_key_words);
    for (unsigned i = 0; i < m_key_words; ++i) store_be32(key.data() + 4 * i, regs.AUTH_KEY[i]->value);
    std::array<std::uint8_t, 16> b0;
    for (unsigned i = 0; i < 4; ++i) store_be32(b0.data() + 4 * i, regs.AUTH_INFO_NONCE[i]->value);
    m_cbc_mac.emplace(key);
    if (m_functional) m_cbc_mac->update(b0.data(), b0.size());
    return "";
  }
  if (!m_last && m_size % kShaBlockBytes != 0)
    return fmt::format("AUTH_SEG_SIZE {} of a non-LAST segment is not a multiple of 64", m_size);
  if (!m_last && seg_size == 0) return "SEG_SIZE 0 on a non-LAST segment";

  // Import the chaining state and byte count.
  ShaState st;
  st.alg = m_alg;
  for (unsigned i = 0; i < state_words(m_alg); ++i) st.h[i] = regs.AUTH_IV[i]->value;
  st.byte_count = std::uint64_t{regs.AUTH_BYTECNT[0]->value} | (std::uint64_t{regs.AUTH_BYTECNT[1]->value} << 32);
  if (st.byte_count % kShaBlockBytes != 0)
    return fmt::format("AUTH_BYTECNT {} is not a whole number of blocks", st.byte_count);
  m_hash.emplace(st);
  m_start_count = st.byte_count;
  if (m_hmac) {
    // K0 from AUTH_KEY0..15 as big-endian words (the driver writes the key zero-padded).
    for (unsigned i = 0; i < AUTH_KEY_WORDS; ++i) store_be32(m_k0.data() + 4 * i, regs.AUTH_KEY[i]->value);
    if (m_first) {
      std::array<std::uint8_t, kShaBlockBytes> ipad;
      for (std::size_t i = 0; i < kShaBlockBytes; ++i) ipad[i] = static_cast<std::uint8_t>(m_k0[i] ^ 0x36);
      m_hash->update(ipad.data(), ipad.size());
    }
  }
  return "";
}

// The hash core compresses what it received; whole blocks a helper already compressed from
// the same state over the same bytes are taken from it (the same value, found earlier).
void AuthCore::data_in(std::uint64_t offset, const std::uint8_t* data, std::size_t len) {
  if (!m_active) return;
  const std::uint64_t lo = std::max<std::uint64_t>(offset, m_start);
  const std::uint64_t hi = std::min<std::uint64_t>(offset + len, std::uint64_t{m_start} + m_size);
  if (hi <= lo) return;
  m_hashed += hi - lo;
  if (!m_functional || !data) return;
  data += lo - offset;
  std::size_t n = static_cast<std::size_t>(hi - lo);
  if (m_ccm) return m_cbc_mac->update(data, n);
  ShaStream& h = *m_hash;
  const std::size_t whole = n - n % kShaBlockBytes;
  if (m_ahead && whole && h.partial_len() == 0) {
    ShaState st = h.state();
    if (m_ahead->take(st, data, whole)) {
      h.set_state(st);
      data += whole;
      n -= whole;
    }
  }
  h.update(data, n);
}

bool AuthCore::live_state_write(unsigned word, std::uint32_t v) {
  if (!m_hash || word >= state_words(m_alg)) return false;
  m_hash->set_state_word(word, v);
  return true;
}

// Blocks the core runs after the last data block: padding, and HMAC's outer hash.
unsigned AuthCore::tail_blocks() const {
  if (!m_active || !m_last || m_ccm) return 0;
  const std::uint64_t total = m_start_count + m_hashed;
  unsigned n = total % kShaBlockBytes + 9 <= kShaBlockBytes ? 1u : 2u;
  if (m_hmac) n += 2;
  return n;
}

// A plain hash that ended on a block boundary: the helper padded the state the last take gave
// (model/hash_ahead.h), and the final state's words are the digest's.
bool AuthCore::padded_by_helper(std::array<std::uint32_t, AUTH_IV_WORDS>& iv) {
  const ShaStream& h = *m_hash;
  if (m_hmac || !m_ahead || h.partial_len() != 0) return false;
  ShaState st = h.state();
  if (!m_ahead->take_padded(st)) return false;
  for (std::size_t i = 0; i < state_words(m_alg); ++i) iv[i] = st.h[i];
  return true;
}

std::uint64_t AuthCore::finish(QceRegs& regs) {
  if (!m_active) return 0;
  if (m_ccm) {  // the payload's last partial block is zero-padded; T is the chain value
    m_cbc_mac->pad();
    m_ccm_mac = m_cbc_mac->value();
    return 0;
  }
  ShaStream& h = *m_hash;
  std::array<std::uint32_t, AUTH_IV_WORDS> iv{};
  std::uint64_t count;
  if (!m_functional) {
    count = m_start_count + m_hashed;  // timing only: no digest
  } else if (m_last && padded_by_helper(iv)) {
    count = h.total_bytes();
  } else if (m_last) {
    std::vector<std::uint8_t> digest = h.finish();
    if (m_hmac) {
      std::array<std::uint8_t, kShaBlockBytes> opad;
      for (std::size_t i = 0; i < kShaBlockBytes; ++i) opad[i] = static_cast<std::uint8_t>(m_k0[i] ^ 0x5c);
      ShaStream outer(m_alg);
      outer.update(opad.data(), opad.size());
      outer.update(digest);
      digest = outer.finish();
    }
    for (std::size_t i = 0; i < digest.size() / 4; ++i) iv[i] = load_be32(digest.data() + 4 * i);
    count = h.total_bytes();
  } else {
    for (std::size_t i = 0; i < state_words(m_alg); ++i) iv[i] = h.state().h[i];
    count = h.state().byte_count;
  }
  for (unsigned i = 0; i < state_words(m_alg); ++i) regs.AUTH_IV[i]->value = iv[i];
  regs.AUTH_BYTECNT[0]->value = static_cast<std::uint32_t>(count);
  regs.AUTH_BYTECNT[1]->value = static_cast<std::uint32_t>(count >> 32);
  // Compression blocks this operation ran: data (and ipad) blocks, padding, HMAC's outer hash.
  return (m_hashed + head_blocks() * kShaBlockBytes) / kShaBlockBytes + tail_blocks();
}

}  // namespace qcesim::qce
