// BAM DMA engine model (bam-v1.7.0): per-pipe descriptor FIFOs in memory, doorbells, command
// elements executed as bus accesses, data streamed to/from the peripheral, pipe locking across
// execution environments, per-pipe interrupt status and one interrupt line per EE.
//
// Each pipe has one long-lived thread, woken by its doorbell, the peripheral or the lock;
// nothing is spawned per descriptor. Bad programming never asserts: it stops the pipe with
// a PipeError, sets P_ERR in P_IRQ_STTS and raises the interrupt.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <cstdint>
#include <cstring>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

#include <random>

#include "model/timing_state.h"
#include "bam/bam_hw.h"
#include "bam/bam_peripheral_if.h"
#include "model/dmi_range.h"
#include "model/irq_line.h"
#include "model/profile.h"
#include "model/register_bank.h"
#include "model/state_hash.h"

namespace qcesim::bam {

enum class PipeError {
  none,
  ring_size_invalid,     // P_FIFO_SIZES ring size 0, under 16, above 32768 or not a multiple of 8
  ring_address_invalid,  // descriptor fetch from P_DESC_FIFO_ADDR failed (outside memory)
  doorbell_out_of_ring,  // P_EVNT_REG offset beyond the ring or misaligned: more descriptors than it holds
  desc_size_zero,        // zero-length descriptor (BAM does not do zero-length transfers)
  desc_size_too_big,     // descriptor size above 32760 bytes (BAM_FIFO_SIZE)
  desc_address_invalid,  // data buffer outside memory
  cmd_on_producer,       // command descriptor on a producer pipe
  cmd_size_invalid,      // command descriptor size not a multiple of 16
  ce_address_unmapped,   // command element addresses nothing on the bus
  ce_command_invalid,    // command element with a command other than read/write
  ce_read_dest_invalid,  // command element read result could not be stored
  axi_error,             // a bus error on a data transfer (fault injection: an SMMU fault or a slave error)
};

const char* pipe_error_name(PipeError e);

// BAM_P_TRUST_REG's EE field is 3 bits wide.
constexpr unsigned kMaxEes = 8;

// Faults the BAM injects into data descriptors toward the peripheral (scenario key `faults`),
// each a probability per descriptor, drawn from its own seeded generator (none drawn when both
// are zero, so a run without faults is unchanged).
struct BamFaults {
  double data_error = 0;  // the transfer ends in a bus error: P_ERR, PipeError::axi_error
  double drop = 0;        // the descriptor is lost: the pipe stalls at it until P_RST
  std::uint64_t seed = 1;
  bool any() const { return data_error > 0 || drop > 0; }
};

struct BamConfig {
  unsigned num_pipes = 8;  // at most 32: IRQ_SRCS has a bit per pipe
  unsigned num_ees = 4;    // at most kMaxEes
  // Command elements carry 24 address bits; the BAM supplies the upper bits of the
  // peripheral's register space [I]. SM8650: 0x01000000 | 0xdfa000 = QCE at 0x01dfa000.
  std::uint32_t ce_addr_base = 0x01000000;
  // The EE every pipe's P_TRUST_REG names at reset: the one whose pipes the boot firmware left
  // to Linux (qcom,ee; a qcom,controlled-remotely BAM is set up before Linux runs) [I]. Its
  // pipes' accesses go through the SMMU mappings Linux makes (set_iotlb_source).
  unsigned pipe_owner_ee = 0;
  std::uint32_t revision = 0x00a80000u | CMD_DESC_EN;  // [I] value; CMD_DESC_EN is what matters
  // Timing (all zero: the untimed functional emulator).
  sc_core::sc_time desc_fetch;  // fetching and decoding one descriptor from the ring (a memory read)
  // Executing one command element: reading the 16-byte element from memory (ce_fetch) and its
  // register write into the peripheral over the config bus at the peripheral's clock (ce_write).
  sc_core::sc_time ce_fetch, ce_write;
  sc_core::sc_time ce_exec;  // ce_fetch + ce_write
  sc_core::sc_time burst;    // moving one 64-byte burst between memory and the peripheral
  // A device-side IOTLB miss: the SMMU walks the page tables for an IOVA page the BAM touches
  // for the first time since it was mapped (iommu.tlb_miss).
  sc_core::sc_time iotlb_miss;
  // Every command element lands at its own time (fetch, then one ce_exec per element) instead
  // of a run of descriptors sharing one wait: slower to simulate, needed when another EE's
  // register writes may interleave with them.
  bool exact_elements = false;
  BamFaults faults;
};

// The BAM's timing from a profile: bam.desc_fetch, bam.ce_fetch, bam.ce_write_cycles at
// qce.clock, bam.bandwidth, iommu.tlb_miss (the other fields keep their defaults).
BamConfig bam_config(const model::Profile& p);

struct BamPipeStats {
  std::uint64_t descriptors = 0;
  std::uint64_t cmd_descriptors = 0;
  std::uint64_t command_elements = 0;
  std::uint64_t bytes = 0;
  std::uint64_t bursts = 0;
  std::uint64_t irq_events = 0;                           // P_IRQ_STTS bits raised
  std::uint64_t injected_errors = 0, injected_drops = 0;  // faults.data_error, faults.drop
  sc_core::sc_time lock_wait;                             // time with work pending while another EE held the lock
  std::uint64_t iotlb_misses = 0;                         // SMMU page walks this pipe waited for
};

class Bam : public sc_core::sc_module, public model::TimingState {
 public:
  tlm_utils::simple_target_socket<Bam> regs_socket;    // register window
  tlm_utils::simple_initiator_socket<Bam> bus_socket;  // descriptors, data, command elements
  sc_core::sc_port<BamPeripheralIf> peripheral;
  sc_core::sc_vector<sc_core::sc_out<bool>> irq;  // one level-high line per EE

  Bam(sc_core::sc_module_name name, const BamConfig& cfg);

  const BamConfig& config() const { return m_cfg; }
  // BAM_CTRL.BAM_SW_RST: the whole BAM back to reset (every register, every pipe idle and empty,
  // the lock free). Not for Linux on a BAM another EE controls (qcom,controlled-remotely:
  // bam_dma skips bam_init); its recovery resets single pipes.
  void reset();
  // BAM_P_RST: the pipe's registers back to reset, its ring empty, its work in flight dropped,
  // its error cleared, the lock freed if the pipe held it.
  void reset_pipe(unsigned pipe);
  PipeError pipe_error(unsigned pipe) const { return m_pipes.at(pipe).error; }
  std::string pipe_error_detail(unsigned pipe) const { return m_pipes.at(pipe).error_detail; }
  const BamPipeStats& pipe_stats(unsigned pipe) const { return m_pipes.at(pipe).stats; }
  // Current lock holder, or -1.
  int lock_owner_pipe() const { return m_lock.held ? static_cast<int>(m_lock.pipe) : -1; }
  unsigned pipe_ee(unsigned pipe) const;
  // The EE's interrupt line as the GIC samples it (the `irq` ports follow it a delta later).
  const model::IrqLine& irq_line(unsigned ee) const { return *m_lines.at(ee); }
  model::IrqLine& irq_line(unsigned ee) { return *m_lines.at(ee); }
  // Where the IOVA pages mapped since the last call come from (the kernel's dma-mapping layer;
  // the argument says the pages the device reads, else those it writes): each costs one walk
  // before a consumer (producer) pipe's next descriptor touches memory. Without it, none.
  void set_iotlb_source(std::function<std::uint64_t(bool)> fresh_pages) { m_fresh_pages = std::move(fresh_pages); }

  // What decides the BAM's next steps, relative to now (model/state_hash.h): per pipe its
  // control bits, pending interrupts, the descriptors between its read offset and the doorbell
  // (how many, not where in the ring: the position changes no timing), the run in progress and
  // what it waits for; the lock and the EE lines.
  void fingerprint(model::StateHash& h) const override;
  // Not while it injects faults: each descriptor draws from the fault generator.
  bool repeats() const override { return !m_cfg.faults.any(); }
  std::string timing_name() const override { return name(); }

 private:
  struct Pipe {
    unsigned index = 0;
    model::Register* ctrl = nullptr;
    model::Register* irq_stts = nullptr;
    model::Register* irq_en = nullptr;
    model::Register* trust = nullptr;
    model::Register* sw_ofsts = nullptr;
    model::Register* evnt = nullptr;
    model::Register* fifo_addr = nullptr;
    model::Register* fifo_sizes = nullptr;
    std::uint32_t read_off = 0;   // next descriptor the hardware processes (bytes)
    std::uint32_t write_off = 0;  // doorbell position (bytes)
    PipeError error = PipeError::none;
    std::string error_detail;
    std::uint64_t generation = 0;  // bumped by P_RST: abandons the descriptor in progress
    sc_core::sc_time fetched_at;   // when the data descriptor in progress has been fetched
    std::vector<BamDescHw> run;    // descriptors handled with one wait (see command_run)
    bool run_plain = false;        // run holds only plain command descriptors
    std::size_t ce_done = 0;       // leading elements of the run already executed (burst writes)
    sc_core::sc_event kick;        // doorbell, reset, lock change, or the peripheral's state (when waiting on it)
    bool waiting_peripheral = false;
    bool waiting_work = false;  // idle in pipe_thread until it is runnable
    bool waiting_lock = false;  // at a LOCK descriptor while another EE holds the lock
    // IOVA pages mapped for this pipe's direction and not yet touched: each is walked by the
    // SMMU when the descriptor that first reaches it runs (a command element's page when its
    // descriptor executes, a data descriptor's pages before its bursts).
    std::uint64_t fresh = 0;
    BamPipeStats stats;
  };
  struct Lock {
    bool held = false;
    unsigned ee = 0;
    unsigned group = 0;
    unsigned pipe = 0;
  };

  void build_registers();
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);

  void pipe_thread(unsigned p);
  bool pipe_has_work(const Pipe& pp) const;  // enabled, not failed, descriptors to fetch
  bool pipe_runnable(const Pipe& pp) const;  // and not held off by another EE's lock
  bool blocked_by_lock(const Pipe& pp) const;
  bool is_producer(const Pipe& pp) const { return (pp.ctrl->value & P_DIRECTION) != 0; }
  std::uint32_t ring_size(const Pipe& pp) const { return pp.fifo_sizes->value & 0xFFFFu; }
  // Each returns false when the pipe stopped (error or reset) and the descriptor is abandoned.
  // prepaid: the descriptor's fetch and command-element time were already waited for.
  bool process_descriptor(Pipe& pp, const BamDescHw& d, std::uint64_t gen, bool prepaid);
  bool inject_fault(Pipe& pp, const BamDescHw& d, std::uint64_t gen);
  bool run_command_elements(Pipe& pp, const BamDescHw& d, bool prepaid);
  void command_run(Pipe& pp, const BamDescHw& first);
  bool execute_run_writes(Pipe& pp);
  void take_lock(const Pipe& pp);
  void complete_plain_run(Pipe& pp);
  bool consume_data(Pipe& pp, const BamDescHw& d, std::uint64_t gen);
  bool produce_data(Pipe& pp, const BamDescHw& d, std::uint32_t ring_slot, std::uint64_t gen, bool& peripheral_eot);
  void fail(Pipe& pp, PipeError e, const std::string& detail);
  void raise(Pipe& pp, std::uint32_t bits);
  void on_doorbell(Pipe& pp, std::uint32_t value);
  // The registers' named handlers.
  void write_BAM_CTRL(model::Register& r, std::uint32_t v);
  std::uint32_t read_IRQ_SRCS_EE(model::Register& r);
  void write_IRQ_SRCS_MSK_EE(model::Register& r, std::uint32_t v);
  void write_P_CTRL(model::Register& r, std::uint32_t v);
  void write_P_RST(model::Register& r, std::uint32_t v);
  void write_P_IRQ_CLR(model::Register& r, std::uint32_t v);
  void write_P_IRQ_EN(model::Register& r, std::uint32_t v);
  void write_P_TRUST_REG(model::Register& r, std::uint32_t v);
  void write_P_EVNT_REG(model::Register& r, std::uint32_t v);

  // Bus helpers: DMI for memory where granted, b_transport otherwise.
  // Memory the BAM reads and writes directly, or null (then bus transactions). Inline for the
  // usual hit in the cached grant.
  std::uint8_t* dmi_ptr(std::uint64_t addr, std::uint64_t len, bool write) {
    if (dmi_covers(addr, len, write)) return m_dmi.get_dmi_ptr() + (addr - m_dmi.get_start_address());
    return dmi_refresh(addr, len, write);
  }
  bool dmi_covers(std::uint64_t addr, std::uint64_t len, bool write) const {
    return m_dmi_valid && model::dmi_covers_range(m_dmi, addr, len) &&
           (write ? m_dmi.is_write_allowed() : m_dmi.is_read_allowed());
  }
  std::uint8_t* dmi_refresh(std::uint64_t addr, std::uint64_t len, bool write);
  bool bus_access(tlm::tlm_command cmd, std::uint64_t addr, std::uint8_t* data, unsigned len);
  // Inline: descriptors and command elements are read one at a time (8 and 16 bytes).
  bool mem_read(std::uint64_t addr, void* dst, std::uint64_t len) {
    if (std::uint8_t* p = dmi_ptr(addr, len, false)) {
      std::memcpy(dst, p, len);
      return true;
    }
    return bus_read(addr, dst, len);
  }
  bool bus_read(std::uint64_t addr, void* dst, std::uint64_t len);
  bool mem_write(std::uint64_t addr, const void* src, std::uint64_t len);

  void invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end);
  void notify_lock_changed();
  void wait_peripheral(Pipe& pp);
  void end_of_elaboration() override;
  void update_irq();
  void drive_irq();
  void start_of_simulation() override;
  using IrqSources = std::array<std::uint32_t, kMaxEes>;  // pipe bits per EE (P_TRUST_REG's 3 bits)
  IrqSources irq_sources() const;
  // Timeline hooks (model/trace.h): one span per descriptor run on the pipe's track.
  void trace_run(const Pipe& pp, const sc_core::sc_time& begin, bool cmd);
  int trace_track(const Pipe& pp) const;

  class Line : public model::IrqLine {
   public:
    bool level() const override { return high; }
    const sc_core::sc_event& rise_event() const override { return rise; }
    bool high = false;
    sc_core::sc_event rise;
  };

  BamConfig m_cfg;
  std::function<std::uint64_t(bool)> m_fresh_pages;
  std::mt19937_64 m_fault_rng;  // faults only
  model::RegisterBank m_regs;
  model::Register* m_ctrl = nullptr;  // BAM_CTRL
  std::vector<std::unique_ptr<Line>> m_lines;
  std::vector<Pipe> m_pipes;
  std::vector<model::Register*> m_srcs_msk;
  Lock m_lock;
  tlm::tlm_dmi m_dmi;
  bool m_dmi_valid = false;
  tlm::tlm_generic_payload m_trans;  // reused for command elements and DMI-less bursts
};

}  // namespace qcesim::bam
