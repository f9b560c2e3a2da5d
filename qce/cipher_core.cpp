#include "qce/cipher_core.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cctype>

#include "qce/regs_v5.h"
#include "model/byte_order.h"

namespace qcesim::qce {

namespace {

// n big-endian register words from `first` as bytes (qce_cpu_to_be32p_array's inverse).
template <std::size_t N>
std::vector<std::uint8_t> be_words(const std::array<QceRegs::Reg, N>& words, unsigned n) {
  std::vector<std::uint8_t> b(4 * n);
  for (unsigned i = 0; i < n; ++i) store_be32(b.data() + 4 * i, words[i]->value);
  return b;
}

}  // namespace

std::string CipherCore::latch(QceRegs& regs, std::uint32_t seg_size) {
  if (m_stream) m_spare = std::move(m_stream);
  m_active = false;
  m_pending.clear();
  m_stall.clear();
  m_ccm = false;
  m_mac_bytes = 0;
  m_rx_mac.clear();
  const std::uint32_t encr = regs.ENCR_SEG_CFG->value;
  if (encr == 0) return "";
  const std::uint32_t alg = (encr >> ENCR_ALG_SHIFT) & 0x7u, key_sz = (encr >> ENCR_KEY_SZ_SHIFT) & 0x7u,
                      mode = (encr >> ENCR_MODE_SHIFT) & 0xFu;
  auto bad = [encr](const std::string& why) { return fmt::format("ENCR_SEG_CFG=0x{:08x}: {}", encr, why); };
  CipherSpec s;
  s.encrypt = (encr & ENCODE) != 0;
  unsigned key_words = 0;
  if (alg == ENCR_ALG_AES) {
    s.alg = CipherAlg::aes;
    if (key_sz == ENCR_KEY_SZ_AES128)
      key_words = 4;
    else if (key_sz == ENCR_KEY_SZ_AES256)
      key_words = 8;
    else
      return bad(fmt::format("AES KEY_SZ={} is neither AES128 (0) nor AES256 (2): the engine has no AES-192", key_sz));
  } else if (alg == ENCR_ALG_DES) {
    if (key_sz == ENCR_KEY_SZ_DES)
      s.alg = CipherAlg::des, key_words = 2;
    else if (key_sz == ENCR_KEY_SZ_3DES)
      s.alg = CipherAlg::tdes, key_words = 6;
    else
      return bad(fmt::format("DES KEY_SZ={} is neither DES (0) nor 3DES (1)", key_sz));
  } else {
    return bad(fmt::format("ALG={} is not modelled (DES 1, AES 2)", alg));
  }
  if (mode == ENCR_MODE_ECB)
    s.mode = CipherMode::ecb;
  else if (mode == ENCR_MODE_CBC)
    s.mode = CipherMode::cbc;
  else if (mode == ENCR_MODE_CTR && s.alg == CipherAlg::aes)
    s.mode = CipherMode::ctr;
  else if (mode == ENCR_MODE_XTS && s.alg == CipherAlg::aes)
    s.mode = CipherMode::xts;
  else if (mode == ENCR_MODE_CCM && s.alg == CipherAlg::aes)
    s.mode = CipherMode::ctr, m_ccm = true;
  else
    return bad(fmt::format("MODE={} with ALG={} is not a mode the engine runs", mode, alg));
  if ((encr >> CNTR_ALG_SHIFT) & 0x3u) return bad("CNTR_ALG other than NIST (0) is not modelled");

  m_start = regs.ENCR_SEG_START->value;
  m_size = regs.ENCR_SEG_SIZE->value;
  if (std::uint64_t{m_start} + m_size > seg_size)
    return fmt::format("ENCR_SEG_START {} + ENCR_SEG_SIZE {} exceed SEG_SIZE {}", m_start, m_size, seg_size);
  if (m_size == 0) return bad("a cipher with ENCR_SEG_SIZE 0");
  const std::size_t block = cipher_block_bytes(s.alg);
  if (m_ccm) {
    if (!(encr & LAST_CCM)) return bad("CCM without LAST_CCM (a MAC over more than one operation) is not modelled");
    if (!s.encrypt) m_mac_bytes = ((regs.AUTH_SEG_CFG->value >> AUTH_SIZE_SHIFT) & 0x1Fu) + 1;
    if (m_size < m_mac_bytes)
      return fmt::format("ENCR_SEG_SIZE {} is shorter than the {}-byte CCM MAC it must end with", m_size, m_mac_bytes);
    // The engine waits for a full block that never comes (S7 patch 8).
    if ((m_size - m_mac_bytes) % 16 != 0)
      m_stall = fmt::format("CCM payload of {} bytes, not whole 16-byte blocks", m_size - m_mac_bytes);
    for (unsigned i = 0; i < 4; ++i) store_be32(m_a0.data() + 4 * i, regs.ENCR_CCM_INT_CNTR[i]->value);
  } else if (s.mode != CipherMode::ctr && m_size % block != 0)
    return fmt::format("ENCR_SEG_SIZE {} is not whole {}-byte blocks for {}", m_size, block, cipher_mode_name(s.mode));

  s.key = be_words(regs.ENCR_KEY, key_words);
  const std::vector<std::uint8_t> iv = be_words(regs.CNTR_IV, 4);
  if (s.mode == CipherMode::xts) {
    s.xts_key = be_words(regs.ENCR_XTS_KEY, key_words);
    // The engine reads the tweak as one big-endian number; IEEE 1619's i is little-endian.
    std::reverse_copy(iv.begin(), iv.end(), s.iv.begin());
    s.data_unit_bytes = regs.ENCR_XTS_DU_SIZE->value & 0xFFFFFu;
    if (s.data_unit_bytes == 0 || s.data_unit_bytes % 16 != 0)
      return fmt::format("ENCR_XTS_DU_SIZE {} is not a positive number of 16-byte blocks", s.data_unit_bytes);
    // Lengths that are not whole data units hang the engine (linux-qce-cipher.md section 5).
    if (m_size % s.data_unit_bytes != 0)
      m_stall =
          fmt::format("XTS over {} bytes, not whole data units of ENCR_XTS_DU_SIZE {}", m_size, s.data_unit_bytes);
  } else {
    std::copy(iv.begin(), iv.end(), s.iv.begin());
  }
  if (s.mode == CipherMode::ctr)
    for (const model::Register* m : {regs.CNTR_MASK, regs.CNTR_MASK0, regs.CNTR_MASK1, regs.CNTR_MASK2})
      if (m->value != 0xFFFFFFFFu) return fmt::format("CNTR_MASK registers other than all ones are not modelled");
  m_spec = s;
  m_active = true;
  // Timing only: no arithmetic, so no OpenSSL contexts (their key schedules cost host time). The
  // same keys as the last operation's: the same contexts from the new IV.
  if (m_functional) {
    if (m_spare && m_spare->same_keys(s)) {
      m_spare->restart(s.iv);
      m_stream = std::move(m_spare);
    } else {
      m_stream = std::make_unique<CipherStream>(s);
    }
  }
  return "";
}

void CipherCore::process(const std::uint8_t* in, std::size_t n, std::vector<std::uint8_t>& out) {
  const std::size_t at = out.size();
  out.resize(at + n);
  if (m_stream && in) m_stream->update(in, out.data() + at, n);
}

void CipherCore::data_in(std::uint64_t offset, const std::uint8_t* data, std::size_t len,
                         std::vector<std::uint8_t>& out) {
  if (!m_active) return;
  // CCM decrypt: the segment ends with the received MAC, which the counter mode does not take.
  const std::uint64_t seg_end = std::uint64_t{m_start} + m_size - m_mac_bytes, end = offset + len;
  auto bytes = [&](std::uint64_t from) { return data ? data + (from - offset) : nullptr; };
  auto pass = [&](std::uint64_t a, std::uint64_t b) {  // outside the cipher segment: as it is
    if (b <= a) return;
    if (data)
      out.insert(out.end(), bytes(a), bytes(b));
    else
      out.resize(out.size() + (b - a));
  };
  pass(offset, std::min(end, std::uint64_t{m_start}));
  const std::uint64_t a = std::max(offset, std::uint64_t{m_start}), b = std::min(end, seg_end);
  if (b > a) {
    // Whole blocks go through; a block split between deliveries waits for its rest.
    const std::size_t block = cipher_block_bytes(m_spec.alg);
    const std::uint8_t* p = bytes(a);
    std::size_t n = static_cast<std::size_t>(b - a);
    if (!m_pending.empty()) {
      const std::size_t take = std::min(n, block - m_pending.size());
      if (p)
        m_pending.insert(m_pending.end(), p, p + take);
      else
        m_pending.resize(m_pending.size() + take);
      p = p ? p + take : nullptr;
      n -= take;
      if (m_pending.size() == block) {
        process(m_pending.data(), block, out);
        m_pending.clear();
      }
    }
    const std::size_t whole = n - n % block;
    process(p, whole, out);
    if (n > whole) {
      if (p)
        m_pending.assign(p + whole, p + n);
      else
        m_pending.assign(n - whole, 0);
    }
    // The segment's last bytes: CTR's partial block uses the counter's keystream as it is.
    if (b == seg_end && !m_pending.empty()) {
      process(m_pending.data(), m_pending.size(), out);
      m_pending.clear();
    }
  }
  if (m_mac_bytes) {  // the received MAC: kept for the check; zeros go out in its place at the end
    const std::uint64_t mac_end = seg_end + m_mac_bytes, lo = std::max(offset, seg_end), hi = std::min(end, mac_end);
    if (hi > lo) {
      if (data)
        m_rx_mac.insert(m_rx_mac.end(), bytes(lo), bytes(hi));
      else
        m_rx_mac.resize(m_rx_mac.size() + (hi - lo));
    }
    return pass(std::max(offset, mac_end), end);
  }
  pass(std::max(offset, seg_end), end);
}

void CipherCore::descriptor_end(std::uint64_t offset) {
  if (m_ccm && m_stall.empty() && offset > m_start && offset < std::uint64_t{m_start} + m_size)
    m_stall = fmt::format("CCM payload arriving in more than one descriptor (a descriptor ends at byte {})", offset);
}

std::array<std::uint8_t, 16> CipherCore::ccm_s0() const {
  std::array<std::uint8_t, 16> s0 = m_a0;
  if (m_functional) BlockFunction(CipherAlg::aes, m_spec.key, true).blocks(s0.data(), s0.data(), 1);
  return s0;
}

void CipherCore::finish(QceRegs& regs) {
  if (!m_stream) return;
  std::array<std::uint8_t, 16> iv = m_stream->iv();
  if (m_spec.mode == CipherMode::xts) std::reverse(iv.begin(), iv.end());
  for (unsigned i = 0; i < 4; ++i) regs.CNTR_IV[i]->value = load_be32(iv.data() + 4 * i);
}

std::string CipherCore::name() const {
  if (!m_active) return "";
  std::string alg = m_spec.alg == CipherAlg::aes    ? fmt::format("AES-{}", m_spec.key.size() * 8)
                    : m_spec.alg == CipherAlg::tdes ? "3DES"
                                                    : "DES";
  std::string mode = m_ccm ? "ccm" : cipher_mode_name(m_spec.mode);
  for (char& c : mode) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return fmt::format("{}-{} {}", alg, mode, m_spec.encrypt ? "encrypt" : "decrypt");
}

sc_core::sc_time CipherCore::time_for(std::uint64_t bytes) const {
  if (!m_active) return sc_core::SC_ZERO_TIME;
  sc_core::sc_time per = m_timing.block_des;
  if (m_spec.alg == CipherAlg::tdes) per = m_timing.block_3des;
  if (m_spec.alg == CipherAlg::aes) per = m_spec.key.size() == 32 ? m_timing.block_aes256 : m_timing.block_aes128;
  const std::size_t block = cipher_block_bytes(m_spec.alg);
  return per * static_cast<double>((bytes + block - 1) / block);
}

}  // namespace qcesim::qce
