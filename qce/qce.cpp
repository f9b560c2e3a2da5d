#include "qce/qce.h"

#include "model/hash_ahead.h"
#include "model/byte_order.h"

#include "model/trace.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>

namespace qcesim::qce {

using model::Access;
using model::Register;
using sc_core::SC_ZERO_TIME;

SC_HAS_PROCESS(Qce);

namespace {
// Cipher output held for the producer pipe before the engine stops taking input [I]: the model
// buffers whole deliveries, so this bounds memory; the cipher core's time paces the input.
constexpr std::size_t kOutFifoBytes = 64u << 10;
}  // namespace

Qce::Qce(sc_core::sc_module_name name, const QceConfig& cfg)
    : sc_core::sc_module(name),
      regs_socket("regs_socket"),
      m_cfg(cfg),
      m_fault_rng(cfg.faults.seed),
      m_ahead(cfg.functional && cfg.hash_ahead ? std::make_unique<HashAhead>() : nullptr),
      m_regs(std::string(this->name()) + ".regs"),
      m_auth(AuthCore::Timing{cfg.block_sha1, cfg.block_sha256}, m_ahead.get(), cfg.functional),
      m_cipher(CipherCore::Timing{cfg.block_aes128, cfg.block_aes256, cfg.block_des, cfg.block_3des}, cfg.functional) {
  regs_socket.register_b_transport(this, &Qce::b_transport);
  regs_socket.register_transport_dbg(this, &Qce::transport_dbg);
  build_registers();
  SC_THREAD(engine_thread);
}

Qce::~Qce() = default;

void Qce::fingerprint(model::StateHash& h) const {
  h.add(std::uint64_t{static_cast<unsigned>(m_state)});
  if (m_state != State::idle) {
    h.add(m_op.dump);
    h.add(std::uint64_t{m_op.seg_size});
    h.add(std::uint64_t{m_op.received});
    h.add(std::uint64_t{m_op.produced});
    h.add(std::uint64_t{m_op.pipe_set});
    h.add(m_op.din_error);
    h.add(std::uint64_t{static_cast<unsigned>(m_op.fault)});
    h.add(m_auth.active());
    h.add(m_auth.hashed());
    h.add(m_cipher.active());
    h.add(std::uint64_t{m_cipher.pending_bytes()});
    h.add_at(m_core_free_at);  // set afresh at GO
  }
  h.add(std::uint64_t{m_out.size() - m_out_pos});
  h.add(m_out_ends_op);
  h.add(std::uint64_t{m_dump_pos});
  h.add(std::uint64_t{m_r.STATUS->value});
  h.add(std::uint64_t{m_r.STATUS2->value});
}

void Qce::build_registers() {
  auto& b = m_regs;
  QceRegs& r = m_r;
  r.VERSION = &b.add("VERSION", REG_VERSION, m_cfg.version, Access::ro);
  r.STATUS = &b.add("STATUS", REG_STATUS, 0, Access::rw).writes(this, &Qce::write_STATUS);
  r.STATUS2 = &b.add("STATUS2", REG_STATUS2, 0, Access::ro);
  r.ENGINES_AVAIL =
      &b.add("ENGINES_AVAIL", REG_ENGINES_AVAIL, SHA_SEL | (m_cfg.pipe_sets << BAM_PIPE_SETS_SHIFT), Access::ro);
  r.FIFO_SIZES = &b.add("FIFO_SIZES", REG_FIFO_SIZES, 0, Access::ro);
  r.SEG_SIZE = &b.add("SEG_SIZE", REG_SEG_SIZE);
  r.GOPROC = &b.add("GOPROC", REG_GOPROC, 0, Access::wo).writes(this, &Qce::write_GOPROC);
  r.ENCR_SEG_CFG = &b.add("ENCR_SEG_CFG", REG_ENCR_SEG_CFG);
  r.ENCR_SEG_SIZE = &b.add("ENCR_SEG_SIZE", REG_ENCR_SEG_SIZE);
  r.ENCR_SEG_START = &b.add("ENCR_SEG_START", REG_ENCR_SEG_START);
  for (unsigned i = 0; i < 4; ++i)
    r.CNTR_IV[i] = &b.add(fmt::format("CNTR{}_IV{}", i, i), REG_CNTR0_IV0 + 4 * i, 0, Access::rw, i);
  r.CNTR_MASK = &b.add("CNTR_MASK", REG_CNTR_MASK);
  for (unsigned i = 0; i < 4; ++i)
    r.ENCR_CCM_INT_CNTR[i] =
        &b.add("ENCR_CCM_INT_CNTR" + std::to_string(i), REG_ENCR_CCM_INT_CNTR0 + 4 * i, 0, Access::rw, i);
  r.ENCR_XTS_DU_SIZE = &b.add("ENCR_XTS_DU_SIZE", REG_ENCR_XTS_DU_SIZE);
  r.CNTR_MASK2 = &b.add("CNTR_MASK2", REG_CNTR_MASK2);
  r.CNTR_MASK1 = &b.add("CNTR_MASK1", REG_CNTR_MASK1);
  r.CNTR_MASK0 = &b.add("CNTR_MASK0", REG_CNTR_MASK0);
  r.AUTH_SEG_CFG = &b.add("AUTH_SEG_CFG", REG_AUTH_SEG_CFG);
  r.AUTH_SEG_SIZE = &b.add("AUTH_SEG_SIZE", REG_AUTH_SEG_SIZE);
  r.AUTH_SEG_START = &b.add("AUTH_SEG_START", REG_AUTH_SEG_START);
  for (unsigned i = 0; i < AUTH_IV_WORDS; ++i)
    r.AUTH_IV[i] =
        &b.add("AUTH_IV" + std::to_string(i), REG_AUTH_IV0 + 4 * i, 0, Access::rw, i).writes(this, &Qce::write_AUTH_IV);
  for (unsigned i = 0; i < 4; ++i)
    r.AUTH_INFO_NONCE[i] =
        &b.add("AUTH_INFO_NONCE" + std::to_string(i), REG_AUTH_INFO_NONCE0 + 4 * i, 0, Access::rw, i);
  for (unsigned i = 0; i < AUTH_BYTECNT_WORDS; ++i)
    r.AUTH_BYTECNT[i] = &b.add("AUTH_BYTECNT" + std::to_string(i), REG_AUTH_BYTECNT0 + 4 * i, 0, Access::rw, i);
  r.CONFIG = &b.add("CONFIG", REG_CONFIG);
  // Key registers are write-only [I]: reads return 0.
  for (unsigned i = 0; i < 8; ++i)
    r.ENCR_KEY[i] = &b.add("ENCR_KEY" + std::to_string(i), REG_ENCR_KEY0 + 4 * i, 0, Access::wo, i);
  for (unsigned i = 0; i < 8; ++i)
    r.ENCR_XTS_KEY[i] = &b.add("ENCR_XTS_KEY" + std::to_string(i), REG_ENCR_XTS_KEY0 + 4 * i, 0, Access::wo, i);
  for (unsigned i = 0; i < AUTH_KEY_WORDS; ++i)
    r.AUTH_KEY[i] = &b.add("AUTH_KEY" + std::to_string(i), REG_AUTH_KEY0 + 4 * i, 0, Access::wo, i);
}

void Qce::write_STATUS(Register& reg, std::uint32_t v) { reg.value = v; }

void Qce::write_GOPROC(Register&, std::uint32_t v) { on_goproc(v); }

// AUTH_IVn hold the hash core's running state: a write during an operation (another EE
// programming the engine without the BAM lock) replaces that word of the state, applied to the
// state after the data delivered so far (the emulator hashes a delivery at once).
void Qce::write_AUTH_IV(Register& reg, std::uint32_t v) {
  reg.value = v;
  if (m_state == State::running && m_auth.live_state_write(reg.tag, v)) ++m_stats.live_state_writes;
}

void Qce::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time&) { m_regs.transport(trans); }

unsigned int Qce::transport_dbg(tlm::tlm_generic_payload& trans) {
  m_regs.transport(trans);
  return trans.is_response_ok() ? trans.get_data_length() : 0u;
}

void Qce::set_status_bits(std::uint32_t set, std::uint32_t clear) {
  Register& s = *m_r.STATUS;
  s.value = (s.value & ~clear) | set;
}

// Latches the programmed operation; returns why it cannot run, or "" when it can.
std::string Qce::validate_and_latch(Op& op) {
  const std::uint32_t config = m_r.CONFIG->value;
  op.seg_size = m_r.SEG_SIZE->value;
  op.pipe_set = (config & PIPE_SET_SELECT_MASK) >> PIPE_SET_SELECT_SHIFT;
  if (std::string e = m_cipher.latch(m_r, op.seg_size); !e.empty()) return e;
  if (std::string e = m_auth.latch_config(m_r, m_cipher.active()); !e.empty()) return e;
  if (m_cipher.ccm() != m_auth.ccm())
    return m_cipher.ccm() ? "ENCR_SEG_CFG selects CCM but AUTH_SEG_CFG does not select its CBC-MAC (ALG AES, MODE CCM)"
                          : "AUTH_SEG_CFG selects CCM's CBC-MAC but ENCR_SEG_CFG does not select CCM";
  if (op.pipe_set >= m_cfg.pipe_sets)
    return fmt::format("CONFIG PIPE_SET_SELECT={} but the engine has {} pipe sets", op.pipe_set, m_cfg.pipe_sets);
  return m_auth.latch_segment(m_r, op.seg_size);
}

// Clearing the context abandons the operation in progress, its output and any unread dump [I].
void Qce::clear_context() {
  m_out.clear();
  m_out_pos = 0;
  m_out_ends_op = false;
  if (m_state != State::idle) {
    m_state = State::idle;
    set_status_bits(0, AUTH_BUSY | DIN_RDY | DOUT_RDY | (0xFu << CRYPTO_STATE_SHIFT));
    state_changed();
  }
}

void Qce::reset() {
  clear_context();
  m_regs.reset();
  state_changed();
}

void Qce::on_goproc(std::uint32_t v) {
  if (v & CLR_CNTXT) clear_context();
  if (!(v & GO)) return;
  if (m_state != State::idle || m_out_pos < m_out.size()) {
    m_last_error = "GO while the previous operation is still running or its result dump is unread";
    set_status_bits(SW_ERR | ERR_INTR, 0);
    ++m_stats.errors;
    return;
  }
  m_op = Op{};
  m_op.go_at = sc_core::sc_time_stamp();
  m_op.dump = (v & RESULTS_DUMP) != 0;
  m_op.cfg_error = validate_and_latch(m_op);
  if (m_cfg.faults.any() && m_op.cfg_error.empty()) {
    const double u = std::uniform_real_distribution<double>(0, 1)(m_fault_rng);
    if (u < m_cfg.faults.axi_error) {
      m_op.fault = Op::Fault::axi_error;
      ++m_stats.injected_axi_errors;
    } else if (u < m_cfg.faults.axi_error + m_cfg.faults.hang) {
      m_op.fault = Op::Fault::hang;
      ++m_stats.injected_hangs;
    }
  }
  m_state = State::running;
  m_core_free_at = sc_core::sc_time_stamp() + m_cfg.go_latency;
  m_core_free_at += block_time() * static_cast<double>(m_auth.head_blocks());  // K0 xor ipad
  ++m_stats.operations;
  set_status_bits(m_op.cfg_error.empty() ? (AUTH_BUSY | DIN_RDY | (1u << CRYPTO_STATE_SHIFT)) : 0,
                  OPERATION_DONE | OP_DONE_INTR | SW_ERR | ERR_INTR | DIN_ERR | DOUT_RDY | MAC_FAILED);
  if (!m_op.cfg_error.empty() || m_op.seg_size == 0) m_kick.notify();
  state_changed();
}

std::size_t Qce::bam_din(unsigned pipe, const std::uint8_t* data, std::size_t len, bool desc_end, bool eot,
                         const sc_core::sc_time& start, const sc_core::sc_time& burst_time,
                         sc_core::sc_time& delivered_at) {
  // Only the consumer pipe of the selected pipe set feeds the engine, only while it runs.
  if (m_state != State::running || !m_op.cfg_error.empty() || m_op.din_error || pipe != 2 * m_op.pipe_set) return 0;
  const std::uint32_t remaining = m_op.seg_size - m_op.received;
  if (remaining == 0) return 0;
  // The output FIFO is full until the producer pipe takes some: the input waits (back-pressure).
  if (m_out.size() - m_out_pos >= kOutFifoBytes) return 0;
  const std::size_t take = std::min<std::size_t>(len, remaining);
  const bool auth_after = m_auth.pos_after() && m_cipher.active();
  if (!auth_after) m_auth.data_in(m_op.received, data, take);
  const std::size_t out_before = m_out.size();
  if (m_cipher.active()) {
    m_cipher.data_in(m_op.received, data, take, m_out);
    const std::size_t n = m_out.size() - out_before;
    if (auth_after) m_auth.data_in(m_op.produced, data ? m_out.data() + out_before : nullptr, n);
    m_op.produced += static_cast<std::uint32_t>(n);
  }
  m_op.received += static_cast<std::uint32_t>(take);
  m_stats.bytes_in += take;
  if (desc_end && take == len) m_cipher.descriptor_end(m_op.received);

  // Timing: k bursts arrive from `start`, one per burst_time; the core takes one block per
  // block_time once it has the block and has finished the previous one. The BAM is held back
  // while the input FIFO is full, so it has delivered the last burst when that burst fits.
  const sc_core::sc_time now = std::max(start, sc_core::sc_time_stamp());
  const auto k = static_cast<double>((take + 63) / 64);
  const sc_core::sc_time b = burst_time, e = block_time();
  auto core_done = [&](double n) {  // when the core finishes burst n of this run
    const sc_core::sc_time serial = m_core_free_at + e * n;
    const sc_core::sc_time streamed = e >= b ? now + b + e * n : now + b * n + e;
    return std::max(serial, streamed);
  };
  delivered_at = now + b * k;
  const double fifo = m_cfg.fifo_bursts;
  if (k > fifo) delivered_at = std::max(delivered_at, core_done(k - fifo));
  m_core_free_at = core_done(k);

  if (m_out.size() > out_before) {
    m_stats.bytes_out += m_out.size() - out_before;
    state_changed();  // output for the producer pipe
  }
  if (m_op.received == m_op.seg_size) {
    m_kick.notify();
  } else if (eot && take == len) {
    m_op.din_error = true;  // end of transfer before SEG_SIZE bytes arrived
    m_kick.notify();
  }
  return take;
}

// Blocks the core runs after the last data block of an operation that ran.
unsigned Qce::tail_blocks() const {
  if (!m_op.cfg_error.empty() || m_op.din_error) return 0;
  return m_auth.tail_blocks();
}

// An operation with a cipher alone: no hash, not CCM (whose CBC-MAC is the auth core's).
bool Qce::cipher_alone() const { return m_cipher.active() && !m_auth.active() && !m_cipher.ccm(); }

// What the engine takes from its last block to the result registers: qce.finish was fitted to
// hash requests only, so a cipher alone may take less (qce.finish_cipher_share).
sc_core::sc_time Qce::finish_time() const { return cipher_alone() ? m_cfg.finish_cipher : m_cfg.finish; }

void Qce::engine_thread() {
  for (;;) {
    sc_core::wait(m_kick);
    if (m_state != State::running) continue;
    if (m_op.cfg_error.empty() && !m_op.din_error && m_op.received != m_op.seg_size) continue;
    if (m_op.cfg_error.empty() && !m_op.din_error) {
      const sc_core::sc_time now = sc_core::sc_time_stamp();
      m_op.data_done = std::max(now, m_core_free_at);
      const sc_core::sc_time done = m_op.data_done + block_time() * static_cast<double>(tail_blocks()) + finish_time();
      if (done > now) sc_core::wait(done - now);
      if (m_state != State::running) continue;      // CLR_CNTXT meanwhile
      if (m_op.fault == Op::Fault::hang) continue;  // injected: only CLR_CNTXT ends it
      if (!m_cipher.stall().empty()) {              // an engine quirk: likewise
        m_last_error = m_cipher.stall();
        continue;
      }
    }
    finish_op();
  }
}

void Qce::trace_op() {
  model::Tracer& tr = *model::Tracer::active();
  const int track = tr.track("QCE", "crypto engine", "qce");
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const std::int64_t req = tr.request_for_pipe_set(m_op.pipe_set);
  const std::string hash =
      fmt::format("{}{}", m_auth.hmac() ? "HMAC-" : "", m_auth.alg() == HashAlg::sha1 ? "SHA-1" : "SHA-256");
  const bool cipher_only = m_cipher.ccm() || (m_cipher.active() && !m_auth.active());
  const std::string alg = cipher_only ? m_cipher.name() : m_cipher.active() ? hash + " + " + m_cipher.name() : hash;
  if (!m_op.cfg_error.empty() || m_op.din_error) {
    tr.span(track, fmt::format("{} rejected", alg), m_op.go_at, now, req,
            m_op.cfg_error.empty() ? "DIN_ERR" : m_op.cfg_error);
    return;
  }
  tr.span(track, fmt::format("{} {} B (pipe set {})", alg, m_op.seg_size, m_op.pipe_set), m_op.go_at, now, req,
          fmt::format("GO latency {}, {} blocks at {} each, pipelined with the data bursts",
                      m_cfg.go_latency.to_string(), m_auth.hashed() / kShaBlockBytes, block_time().to_string()));
  const sc_core::sc_time tail_end = m_op.data_done + block_time() * static_cast<double>(tail_blocks());
  if (tail_blocks())
    tr.span(track, fmt::format("{} padding/outer blocks", tail_blocks()), m_op.data_done, tail_end, req);
  if (now > tail_end)
    tr.span(track, "finish: result registers", tail_end, now, req,
            cipher_alone() ? "qce.finish x qce.finish_cipher_share" : "qce.finish");
}

void Qce::finish_op() {
  if (model::Tracer::active()) trace_op();
  if (!m_op.cfg_error.empty()) {
    m_last_error = m_op.cfg_error;
    set_status_bits(SW_ERR | ERR_INTR, AUTH_BUSY | DIN_RDY);
    ++m_stats.errors;
    spdlog::debug("{}: GO rejected: {}", name(), m_last_error);
  } else if (m_op.din_error) {
    m_last_error = fmt::format("data ended after {} of SEG_SIZE {} bytes", m_op.received, m_op.seg_size);
    set_status_bits(DIN_ERR | ERR_INTR, AUTH_BUSY | DIN_RDY);
    ++m_stats.errors;
    spdlog::debug("{}: {}", name(), m_last_error);
  } else {
    m_last_error.clear();
    m_stats.blocks_hashed += m_auth.finish(m_r);
    m_cipher.finish(m_r);
    set_status_bits(OPERATION_DONE | OP_DONE_INTR, AUTH_BUSY | DIN_RDY | (0xFu << CRYPTO_STATE_SHIFT));
    if (m_cipher.ccm()) finish_ccm();
    if (m_op.fault == Op::Fault::axi_error) {
      m_last_error = "a bus error on the engine's AXI master (injected)";
      set_status_bits(AXI_ERR | ERR_INTR, 0);
      ++m_stats.errors;
    }
  }
  if (m_op.dump) {
    build_dump();
    m_state = State::dumping;
    set_status_bits(DOUT_RDY, 0);
  } else {
    m_out_ends_op = m_out_pos < m_out.size();
    m_state = State::idle;
  }
  state_changed();
}

// CCM's end: the MAC T (the CBC-MAC's first MAC-size bytes) encrypted with S0 = E(K, A0).
// Encrypting, the encrypted MAC follows the payload out (the driver's 64-byte ccmresult_buf takes
// it); decrypting, it is compared with the received one (MAC_FAILED on a mismatch) and zeros go
// out in its place. Either way it lands in AUTH_IV0..3 too [I].
void Qce::finish_ccm() {
  const unsigned m = m_auth.mac_bytes();
  const std::array<std::uint8_t, 16> s0 = m_cipher.ccm_s0();
  std::array<std::uint8_t, 16> u{};
  for (unsigned i = 0; i < m; ++i) u[i] = static_cast<std::uint8_t>(m_auth.ccm_mac()[i] ^ s0[i]);
  for (unsigned i = 0; i < 4; ++i) m_r.AUTH_IV[i]->value = load_be32(u.data() + 4 * i);
  const bool encrypt = (m_r.ENCR_SEG_CFG->value & ENCODE) != 0;
  if (encrypt) {
    m_out.insert(m_out.end(), u.begin(), u.begin() + m);
  } else {
    const std::vector<std::uint8_t>& rx = m_cipher.ccm_received_mac();
    if (m_cfg.functional && !std::equal(rx.begin(), rx.end(), u.begin())) {
      m_last_error = "CCM MAC mismatch";
      set_status_bits(MAC_FAILED, 0);
      ++m_stats.mac_failures;
    }
    m_out.insert(m_out.end(), m, 0);
  }
  m_stats.bytes_out += m;
}

void Qce::build_dump() {
  auto put_le = [this](unsigned off, std::uint32_t v) { store_le(m_dump.data() + off, v, 4); };
  // auth_iv in digest byte order (big-endian words), so a final digest is read straight out.
  for (unsigned i = 0; i < AUTH_IV_WORDS; ++i) store_be32(m_dump.data() + DUMP_AUTH_IV + 4 * i, m_r.AUTH_IV[i]->value);
  for (unsigned i = 0; i < AUTH_BYTECNT_WORDS; ++i) put_le(DUMP_AUTH_BYTECNT + 4 * i, m_r.AUTH_BYTECNT[i]->value);
  // encr_cntr_iv in the IV's byte order (big-endian words), so the driver copies the next IV out.
  for (unsigned i = 0; i < 4; ++i) store_be32(m_dump.data() + DUMP_ENCR_CNTR_IV + 4 * i, m_r.CNTR_IV[i]->value);
  put_le(DUMP_STATUS, m_r.STATUS->value);
  put_le(DUMP_STATUS2, m_r.STATUS2->value);
  m_dump_pos = 0;
  ++m_stats.dumps;
}

std::size_t Qce::bam_dout(unsigned pipe, std::uint8_t* dst, std::size_t max, bool& eot) {
  eot = false;
  if (pipe != 2 * m_op.pipe_set + 1) return 0;
  if (m_out_pos < m_out.size()) {  // the cipher part's output goes out ahead of the dump
    const std::size_t n = std::min(max, m_out.size() - m_out_pos);
    std::memcpy(dst, m_out.data() + m_out_pos, n);
    const bool was_full = m_out.size() - m_out_pos >= kOutFifoBytes;
    m_out_pos += n;
    if (m_out_pos == m_out.size()) {
      m_out.clear();  // drained: the buffer starts over
      m_out_pos = 0;
      if (m_out_ends_op) {  // no dump follows: this run ends the transfer
        eot = true;
        m_out_ends_op = false;
      }
    }
    if ((was_full && m_out.size() - m_out_pos < kOutFifoBytes) || (m_out_pos == m_out.size() && m_state == State::idle))
      state_changed();
    return n;
  }
  if (m_state != State::dumping) return 0;
  const std::size_t n = std::min<std::size_t>(max, RESULT_DUMP_BYTES - m_dump_pos);
  std::memcpy(dst, m_dump.data() + m_dump_pos, n);
  m_dump_pos += static_cast<unsigned>(n);
  if (m_dump_pos == RESULT_DUMP_BYTES) {
    eot = true;
    m_state = State::idle;
    set_status_bits(0, DOUT_RDY);
    state_changed();
  }
  return n;
}

// A transaction ends when the operation's result dump has been taken, not when the core stops:
// the series' UNLOCK (behind an NWD data descriptor) must not let another EE's GO in while the
// dump is still waiting for the producer pipe.
bool Qce::bam_transaction_done(unsigned pipe) const {
  return !((m_state == State::running || m_state == State::dumping || m_out_pos < m_out.size()) &&
           pipe / 2 == m_op.pipe_set);
}

}  // namespace qcesim::qce
