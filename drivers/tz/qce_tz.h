// Another execution environment sharing the engine: TrustZone's crypto client, as the locking
// series' cover letter describes it. It hashes its own messages on its own BAM pipes (a pipe set
// whose P_TRUST_REG names its EE), programming QCE with command descriptors, at a given rate.
// With locking it brackets each job with LOCK/UNLOCK like Linux does, so the BAM serializes the
// two; without, its register writes land whenever its descriptors run, possibly in the middle of
// Linux's request. Its own CPU time is the secure world's and is not modelled; its BAM and engine
// use are. It checks its digests too.
#pragma once

#include <cstdint>
#include <random>
#include <systemc>
#include <vector>

#include "model/timing_state.h"
#include "bam/bam.h"
#include "cpu/host.h"
#include "model/sha_core.h"

namespace qcesim::qce {

struct TzConfig {
  double rate_per_s = 0;  // job arrivals (Poisson); 0: no other EE
  std::uint32_t message_bytes = 4096;
  unsigned ee = 1;
  unsigned pipe_set = 3;                                           // pipes 6 (to QCE) and 7 (results)
  bool lock = false;                                               // LOCK/UNLOCK around each job (the series' protocol)
  bool functional = true;                                          // real bytes and digest checks
  sc_core::sc_time timeout = sc_core::sc_time(2, sc_core::SC_MS);  // a job not done by then is reset
  std::uint64_t seed = 7;
  // Fault injection: with the lock, each job keeps it this much longer (UNLOCK queued late).
  sc_core::sc_time lock_hold = sc_core::SC_ZERO_TIME;
  // Lock only while shared (QceDriverConfig::lock_when_shared, share_with): before a job this EE
  // sets word 0 of the handshake at share_addr and waits, reading word 1 every share_poll, until Linux has
  // no unlocked request on the engine; it clears word 0 when no job has come for share_hold.
  bool share = false;
  std::uint64_t share_addr = 0;
  sc_core::sc_time share_hold = sc_core::sc_time(1, sc_core::SC_MS);
  sc_core::sc_time share_poll = sc_core::sc_time(1, sc_core::SC_US);
};

struct TzStats {
  std::uint64_t jobs = 0;
  std::uint64_t completed = 0;          // result dump arrived
  std::uint64_t digest_mismatches = 0;  // of those, wrong digest
  std::uint64_t errors = 0;             // engine reported an error (SW_ERR: GO while busy)
  std::uint64_t timeouts = 0;           // no result in time: pipes reset
  sc_core::sc_time lock_wait;           // its pipes' time blocked by Linux's lock
  sc_core::sc_time share_wait;          // share: its wait for Linux's unlocked requests to end
  std::uint64_t share_switches = 0;     // share: times it set word 0 (Linux switched to locking)
};

class TzAgent : public sc_core::sc_module, public model::TimingState {
 public:
  TzAgent(sc_core::sc_module_name name, cpu::Host& host, bam::Bam& bam, std::uint64_t bam_base, std::uint64_t qce_base,
          const TzConfig& cfg);
  // Starts submitting (after Linux has probed and set up the BAM).
  void start() { m_start.notify(sc_core::SC_ZERO_TIME); }
  // Lock only while shared: the handshake words Linux's driver set up at probe.
  void share_with(std::uint64_t addr) {
    m_cfg.share = true;
    m_cfg.share_addr = addr;
  }
  // Stops after the job in progress.
  void stop() { m_stopped = true; }
  TzStats stats() const;

  // Its jobs arrive at random (Poisson): no state of the platform repeats while it runs, and its
  // own adds nothing the fast-forward could use.
  void fingerprint(model::StateHash&) const override {}
  bool repeats() const override { return false; }
  std::string timing_name() const override { return name(); }

 private:
  void thread();
  void setup_pipes();
  void setup_pipe(unsigned p, bool producer);
  void push(unsigned pipe, std::uint32_t addr, std::uint16_t size, std::uint16_t flags);
  bool run_job();
  void share_enter();
  std::uint32_t bam_reg(std::uint32_t off) { return m_host.readl(m_bam_base + off); }
  void set_bam_reg(std::uint32_t off, std::uint32_t v) { m_host.writel(m_bam_base + off, v); }

  cpu::Host& m_host;
  bam::Bam& m_bam;
  std::uint64_t m_bam_base, m_qce_base;
  TzConfig m_cfg;
  unsigned m_rx, m_tx;
  cpu::DmaBuf m_ring[2], m_ce, m_lock_ce, m_data, m_result;
  std::uint32_t m_wr[2] = {0, 0};  // ring write offsets (bytes)
  std::mt19937_64 m_rng;
  sc_core::sc_event m_start;
  bool m_stopped = false;
  bool m_wants = false;  // share: word 0 is set
  TzStats m_stats;       // lock_wait is the BAM's, filled in by stats()
};

}  // namespace qcesim::qce
