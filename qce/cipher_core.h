// The engine's cipher part, beside the auth part (auth_core.h): latched at GO from ENCR_SEG_CFG
// (algorithm, key size, mode, ENCODE), ENCR_SEG_START/SIZE, ENCR_KEYn, ENCR_XTS_KEYn,
// CNTRn_IVn, the CNTR masks and ENCR_XTS_DU_SIZE, in the engine's byte orders (keys and IVs as
// big-endian words; the XTS tweak as one big-endian 128-bit number); fed the operation's data as
// the pipe delivers it, it transforms the cipher segment and passes the rest through, for the
// engine to send out on the producer pipe ahead of the result dump; at the end the next IV or
// counter goes back into CNTRn_IVn (the dump's encr_cntr_iv). AES-128/256 ECB, CBC, CTR, XTS;
// DES and 3DES ECB and CBC (model/block_cipher.h does the arithmetic); CCM's counter mode (the
// payload from A1 in CNTRn_IVn, the MAC with A0 from ENCR_CCM_INT_CNTRn; when decrypting, the
// segment's last MAC-size bytes are the received MAC: kept for the check, not sent out).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <systemc>
#include <vector>

#include "model/block_cipher.h"
#include "model/register_bank.h"
#include "qce/qce_regs.h"

namespace qcesim::qce {

class CipherCore {
 public:
  struct Timing {
    // The cipher core's time per cipher block (16 bytes AES, 8 bytes DES/3DES); zero: untimed.
    // From the profile's qce.cycles_per_block_* (qce_config).
    sc_core::sc_time block_aes128, block_aes256, block_des, block_3des;
  };
  CipherCore(const Timing& timing, bool functional) : m_timing(timing), m_functional(functional) {}

  // At GO, first of the engine's checks: "" when the operation selects no cipher or one the
  // engine runs, else why it cannot run (SW_ERR).
  std::string latch(QceRegs& regs, std::uint32_t seg_size);
  bool active() const { return m_active; }
  std::size_t pending_bytes() const { return m_pending.size(); }
  // The last operation's cipher as the registers set it (keys, mode, direction, data unit, its
  // IV), null when it had none: a fast-forward runs skipped requests' bytes through it.
  const CipherSpec* latched() const { return m_active ? &m_spec : nullptr; }
  // "AES-256-CBC encrypt" and the like, for the timeline.
  std::string name() const;
  // Why the engine stalls on the latched operation (it takes the data and never finishes until
  // CLR_CNTXT), "" when it does not: XTS over a length that is not whole data units, CCM over a
  // payload that is not whole blocks or that came in more than one descriptor.
  const std::string& stall() const { return m_stall; }
  // A descriptor of the operation's input ended at `offset`: inside a CCM payload, the engine
  // stalls (linux-qce-cipher.md section 5: a fragmented payload) [I: descriptors, not sg entries].
  void descriptor_end(std::uint64_t offset);

  // CCM: the MAC's keystream block S0 = E(K, A0), and (decrypting) the received MAC as it came.
  bool ccm() const { return m_ccm; }
  std::array<std::uint8_t, 16> ccm_s0() const;
  const std::vector<std::uint8_t>& ccm_received_mac() const { return m_rx_mac; }

  // Bytes [offset, offset + len) of the operation's data (null: timing only, zeros out): the
  // cipher segment's bytes transformed, the others as they are, appended to `out` in order.
  void data_in(std::uint64_t offset, const std::uint8_t* data, std::size_t len, std::vector<std::uint8_t>& out);
  // The operation ended well: the next IV or counter into CNTRn_IVn.
  void finish(QceRegs& regs);

  // The cipher core's time for `bytes` of the cipher segment.
  sc_core::sc_time time_for(std::uint64_t bytes) const;

 private:
  void process(const std::uint8_t* in, std::size_t n, std::vector<std::uint8_t>& out);

  Timing m_timing;
  bool m_functional;
  CipherSpec m_spec;
  bool m_active = false;                   // the operation has a cipher part
  std::unique_ptr<CipherStream> m_stream;  // its arithmetic (null: timing only)
  std::unique_ptr<CipherStream> m_spare;   // the last operation's, reused under the same keys
  std::uint32_t m_start = 0, m_size = 0;   // the cipher segment within the data
  bool m_ccm = false;
  std::uint32_t m_mac_bytes = 0;        // CCM decrypt: the segment's trailing received MAC
  std::array<std::uint8_t, 16> m_a0{};  // CCM: ENCR_CCM_INT_CNTRn
  std::vector<std::uint8_t> m_rx_mac;
  std::vector<std::uint8_t> m_pending;  // bytes of an unfinished block
  std::string m_stall;
};

}  // namespace qcesim::qce
