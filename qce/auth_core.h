// The engine's auth part: the hash core (SHA-1/SHA-256, plain and HMAC) of one operation, or
// CCM's CBC-MAC (ALG AES, MODE CCM). Latched from AUTH_SEG_CFG, AUTH_SEG_START/SIZE, AUTH_IVn,
// AUTH_BYTECNTn, AUTH_KEYn and (CCM) AUTH_INFO_NONCEn at GO, fed the bytes of the auth segment
// as the data pipe delivers them (POS BEFORE: the operation's input; POS AFTER: the cipher
// part's output), and writing its state back to AUTH_IVn/AUTH_BYTECNTn when the operation ends
// (the result dump copies them from there). A CCM MAC is the engine's to encrypt or check.
// The engine (qce.h) owns the registers, the pipes, the timing and the STATUS bits; the cipher
// part (cipher_core.h) sits beside this one.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <systemc>

#include "model/block_cipher.h"
#include "model/register_bank.h"
#include "qce/qce_regs.h"
#include "model/sha_core.h"
#include "qce/regs_v5.h"

namespace qcesim {
class HashAhead;  // model/hash_ahead.h: a host-speed helper, not part of the hardware
}  // namespace qcesim

namespace qcesim::qce {

class AuthCore {
 public:
  struct Timing {
    sc_core::sc_time block_sha1;  // the hash core's time per 64-byte block
    sc_core::sc_time block_sha256;
  };
  // `ahead` (may be null) holds blocks a helper thread already compressed: the same values,
  // found earlier on the host. `functional` false: timing only, nothing hashed.
  AuthCore(const Timing& timing, HashAhead* ahead, bool functional)
      : m_timing(timing), m_ahead(ahead), m_functional(functional) {}

  // At GO, in the engine's order of checks: AUTH_SEG_CFG (algorithm, mode, size, key source) ..
  // (no algorithm is fine when the operation has a cipher: the auth part then sits out)
  std::string latch_config(QceRegs& regs, bool cipher_active);
  // .. then the auth segment within SEG_SIZE, and the imported chaining state. "" or why the
  // operation cannot run.
  std::string latch_segment(QceRegs& regs, std::uint32_t seg_size);

  // Bytes [offset, offset + len) of the operation's data, as the pipe delivers them: the part
  // inside the auth segment goes to the hash core.
  void data_in(std::uint64_t offset, const std::uint8_t* data, std::size_t len);
  // Another EE writes AUTH_IVn while the operation runs: that word of the running state changes.
  bool live_state_write(unsigned word, std::uint32_t v);

  // Blocks the core runs before the data (HMAC's K0 ^ ipad) and after it (padding, HMAC's outer hash).
  unsigned head_blocks() const { return m_hmac && m_first ? 1u : 0u; }
  unsigned tail_blocks() const;
  // The hash core's time per 64-byte block; zero for CCM, whose CBC-MAC runs beside the counter
  // mode at the AES core's pace [I] (the cipher part's time paces the data).
  sc_core::sc_time block_time() const {
    if (m_ccm) return sc_core::SC_ZERO_TIME;
    return m_alg == HashAlg::sha1 ? m_timing.block_sha1 : m_timing.block_sha256;
  }

  // The operation ended well: the state (or the digest, on LAST) into AUTH_IVn and the byte count
  // into AUTH_BYTECNTn. Returns the compression blocks this operation ran.
  std::uint64_t finish(QceRegs& regs);

  bool active() const { return m_active; }
  HashAlg alg() const { return m_alg; }
  bool hmac() const { return m_hmac; }
  bool ccm() const { return m_ccm; }
  // POS AFTER: the auth part takes the cipher part's output instead of the input.
  bool pos_after() const { return m_pos_after; }
  std::uint64_t hashed() const { return m_hashed; }
  // CCM: the MAC's length (AUTH_SEG_CFG SIZE + 1) and, after finish, the unencrypted MAC T.
  unsigned mac_bytes() const { return m_mac_bytes; }
  const std::array<std::uint8_t, 16>& ccm_mac() const { return m_ccm_mac; }

 private:
  bool padded_by_helper(std::array<std::uint32_t, AUTH_IV_WORDS>& iv);
  std::string latch_ccm(std::uint32_t auth);

  Timing m_timing;
  HashAhead* m_ahead;
  bool m_functional;
  // The latched operation.
  bool m_active = false;
  HashAlg m_alg = HashAlg::sha256;
  bool m_hmac = false, m_first = false, m_last = false;
  bool m_ccm = false, m_pos_after = false;
  unsigned m_mac_bytes = 0, m_key_words = 4;
  std::optional<CbcMac> m_cbc_mac;  // CCM
  std::array<std::uint8_t, 16> m_ccm_mac{};
  std::uint32_t m_start = 0, m_size = 0;  // the auth segment within the data
  std::optional<ShaStream> m_hash;
  std::uint64_t m_start_count = 0;  // byte count imported at GO
  std::uint64_t m_hashed = 0;       // auth bytes taken (also in timing-only runs)
  std::array<std::uint8_t, kShaBlockBytes> m_k0{};
};

}  // namespace qcesim::qce
