// Qualcomm Crypto Engine (QCE v5) model: the register subset of regs-v5.h, GO and the operation's
// state, data in from the selected pipe set's consumer pipe and the 104-byte result dump out
// through its producer pipe, the input FIFO's timing and STATUS. An operation has an auth part
// (auth_core.h: SHA-1/SHA-256, plain and HMAC, FIRST/LAST segments, IV/byte-count import and
// export) and a cipher part (cipher_core.h). Configuration is latched at GO; misprogramming sets
// STATUS error bits.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>
#include <tlm_utils/simple_target_socket.h>

#include <random>

#include "model/timing_state.h"
#include "bam/bam_peripheral_if.h"
#include "model/profile.h"
#include "model/register_bank.h"
#include "model/state_hash.h"
#include "model/sha_core.h"
#include "qce/auth_core.h"
#include "qce/cipher_core.h"
#include "qce/regs_v5.h"

namespace qcesim::qce {

// Faults the engine injects (scenario key `faults`), each a probability per operation (GO), from
// its own seeded generator (none drawn when both are zero).
struct QceFaults {
  double axi_error = 0;  // the operation ends with STATUS AXI_ERR | ERR_INTR (its result is not to be used)
  double hang = 0;       // the operation takes its data and never finishes, until CLR_CNTXT
  std::uint64_t seed = 2;
  bool any() const { return axi_error > 0 || hang > 0; }
};

struct QceConfig {
  // VERSION: major 5 (the driver refuses 5.0). The SM8650 value is not public: estimate [I].
  std::uint32_t version = 0x05080000;
  unsigned pipe_sets = 4;  // pipe set s = BAM pipes 2s (consumer, data in) and 2s+1 (producer)
  // Timing (all zero: the untimed functional emulator).
  sc_core::sc_time block_sha1;  // the hash core's time per 64-byte block
  sc_core::sc_time block_sha256;
  // The cipher core's time per cipher block (16 bytes AES, 8 bytes DES/3DES).
  sc_core::sc_time block_aes128, block_aes256, block_des, block_3des;
  sc_core::sc_time go_latency;     // GO to the core ready for data
  sc_core::sc_time finish;         // last block to result registers and dump ready
  sc_core::sc_time finish_cipher;  // the same for a cipher alone (no hash, not CCM)
  unsigned fifo_bursts = 4;        // input FIFO depth in 64-byte bursts (back-pressure)
  bool functional = true;          // false: timing only, no bytes hashed, zero digests
  bool hash_ahead = false;         // a helper thread may compress posted buffers early (host speed only)
  QceFaults faults;
};

// The engine's timing from a profile: qce.clock, qce.cycles_per_block_sha1/sha256/aes128/aes256/
// des/3des, qce.go_latency, qce.finish, qce.finish_cipher_share, qce.fifo_bursts.
QceConfig qce_config(const model::Profile& p);

struct QceStats {
  std::uint64_t operations = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;  // data the cipher part sent out (the dump not counted)
  std::uint64_t blocks_hashed = 0;
  std::uint64_t live_state_writes = 0;  // AUTH_IV writes that changed a running operation's state
  std::uint64_t errors = 0;
  std::uint64_t mac_failures = 0;  // CCM decryptions whose MAC did not match (STATUS MAC_FAILED)
  std::uint64_t dumps = 0;
  std::uint64_t injected_axi_errors = 0, injected_hangs = 0;  // faults.axi_error, faults.hang
};

class Qce : public sc_core::sc_module, public bam::BamPeripheralIf, public model::TimingState {
 public:
  tlm_utils::simple_target_socket<Qce> regs_socket;

  Qce(sc_core::sc_module_name name, const QceConfig& cfg);
  ~Qce() override;

  // BamPeripheralIf
  std::size_t bam_din(unsigned pipe, const std::uint8_t* data, std::size_t len, bool desc_end, bool eot,
                      const sc_core::sc_time& start, const sc_core::sc_time& burst_time,
                      sc_core::sc_time& delivered_at) override;
  std::size_t bam_dout(unsigned pipe, std::uint8_t* dst, std::size_t max, bool& eot) override;
  bool bam_transaction_done(unsigned pipe) const override;
  void bam_set_state_listener(std::function<void()> fn) override { m_state_listener = std::move(fn); }

  const QceStats& stats() const { return m_stats; }
  // Why the last operation set an error bit (empty if none).
  const std::string& last_error() const { return m_last_error; }
  bool busy() const { return m_state != State::idle; }
  // The engine's state relative to now (model/state_hash.h): the operation in progress, what
  // it has taken and still owes the producer pipe, when its core is free, the status register.
  void fingerprint(model::StateHash& h) const override;
  // Not while it injects faults: each operation draws from the fault generator.
  bool repeats() const override { return !m_cfg.faults.any(); }
  std::string timing_name() const override { return name(); }
  const CipherSpec* latched_cipher() const { return m_cipher.latched(); }
  // The block's reset (the clock controller's crypto block reset; the engine has no software
  // reset register of its own): the operation in progress abandoned as by GOPROC.CLR_CNTXT, and
  // every register back to its reset value. The kernel driver never asserts it; tests do.
  void reset();
  // Where a workload posts the buffers it will hand the engine next; null unless configured.
  HashAhead* hash_ahead() { return m_ahead.get(); }

 private:
  enum class State { idle, running, dumping };
  // What the engine keeps of an operation besides its auth and cipher parts.
  struct Op {
    bool dump = false;
    std::uint32_t seg_size = 0, received = 0;
    std::uint32_t produced = 0;  // the cipher part's output so far (POS AFTER feeds it to the auth part)
    unsigned pipe_set = 0;
    std::string cfg_error;                                           // non-empty: rejected at GO, nothing consumed
    bool din_error = false;                                          // the data ended (EOT) before SEG_SIZE bytes
    enum class Fault { none, axi_error, hang } fault = Fault::none;  // injected at GO
    sc_core::sc_time go_at, data_done;                               // for the timeline
  };

  void build_registers();
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  void on_goproc(std::uint32_t v);
  void clear_context();
  std::string validate_and_latch(Op& op);
  void engine_thread();
  void finish_op();
  bool cipher_alone() const;
  sc_core::sc_time finish_time() const;
  void trace_op();
  void build_dump();
  // The registers' named handlers.
  void write_STATUS(model::Register& reg, std::uint32_t v);
  void write_GOPROC(model::Register& reg, std::uint32_t v);
  void write_AUTH_IV(model::Register& reg, std::uint32_t v);
  void set_status_bits(std::uint32_t set, std::uint32_t clear);
  // The time per 64-byte burst of the core that paces the data: the hash core when the
  // operation hashes, else the cipher core.
  // With both parts (authenc, CCM) they run side by side: the slower paces the data [I].
  sc_core::sc_time block_time() const {
    const sc_core::sc_time a = m_auth.active() ? m_auth.block_time() : sc_core::SC_ZERO_TIME;
    return std::max(a, m_cipher.time_for(64));
  }
  void finish_ccm();
  unsigned tail_blocks() const;

  QceConfig m_cfg;
  std::mt19937_64 m_fault_rng;  // faults only
  std::unique_ptr<HashAhead> m_ahead;
  model::RegisterBank m_regs;
  QceRegs m_r;  // handles into m_regs
  State m_state = State::idle;
  Op m_op;
  AuthCore m_auth;
  CipherCore m_cipher;
  std::vector<std::uint8_t> m_out;  // the cipher part's output not yet taken by the producer pipe
  std::size_t m_out_pos = 0;
  bool m_out_ends_op = false;  // an operation without a dump: its output's last byte carries EOT
  std::array<std::uint8_t, RESULT_DUMP_BYTES> m_dump{};
  unsigned m_dump_pos = 0;
  sc_core::sc_time m_core_free_at;  // when the hash core finishes the last block it took
  sc_core::sc_event m_kick;
  std::function<void()> m_state_listener;
  void state_changed() {
    if (m_state_listener) m_state_listener();
  }
  QceStats m_stats;
  std::string m_last_error;
};

}  // namespace qcesim::qce
