// The SoC top: DRAM, the interconnect, the crypto BAM, the crypto engine and the Linux CPU,
// wired with the SM8650 address map, plus the Linux driver stack (bam_dma + qce) that runs
// on the CPU. SystemC elaborates once per process, so one Emulator exists per process.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <systemc>

#include "bam/bam.h"
#include "drivers/dma/qcom/bam_dma.h"
#include "cpu/host.h"
#include "cpu/kernel.h"
#include "model/bus.h"
#include "model/memory.h"
#include "model/profile.h"
#include "qce/qce.h"
#include "drivers/crypto/qce/core.h"
#include "drivers/tz/qce_tz.h"

namespace qcesim::soc {

using model::Bus;
using model::Memory;
using model::Profile;

// Where DRAM, the engine and the BAM sit; the defaults are SM8650's (sm8650.dtsi: crypto@1dfa000
// size 0x6000; cryptobam "qcom,bam-v1.7.0" @1dc4000), a profile's soc.dt sets the rest.
struct AddressMap {
  std::uint64_t dram_base = 0x80000000ull;
  std::uint64_t dram_size = 256ull << 20;  // what the emulator gives its DMA buffers
  std::uint64_t qce_base = 0x01dfa000ull;
  std::uint64_t qce_size = 0x6000;
  std::uint64_t bam_base = 0x01dc4000ull;
  std::uint64_t bam_size = 0x28000;
};

struct SocConfig {
  AddressMap map;
  bam::BamConfig bam;
  qce::QceConfig qce;
  unsigned linux_ee = 0;              // qcom,ee
  unsigned rx_pipe = 4, tx_pipe = 5;  // the qce node's dmas
  cpu::Costs costs;                   // all zero: the untimed functional emulator
};

// The SoC's blocks from a profile, each block reading its own parameters (soc.dt, cpu.cpus and
// the task's CPU, the cost items, bam.*, qce.*).
SocConfig soc_config(const Profile& p);

class Soc : public sc_core::sc_module, public model::TimingState {
 public:
  Soc(sc_core::sc_module_name name, const SocConfig& cfg);

  const SocConfig cfg;
  cpu::Kernel kernel;
  Memory dram;
  Bus bus;
  bam::Bam bam;
  qce::Qce qce;
  cpu::Host host;
  // One line per EE, driven by whichever process changes a BAM interrupt status (unchecked:
  // two may in one delta, each writing the current level).
  sc_core::sc_vector<sc_core::sc_signal<bool, sc_core::SC_UNCHECKED_WRITERS>> bam_irq;

  // The interrupt lines' levels (the blocks add their own state).
  void fingerprint(model::StateHash& h) const override {
    for (const auto& line : bam_irq) h.add(line.read());
  }
  std::string timing_name() const override { return name(); }
};

struct EmulatorConfig {
  SocConfig soc;
  qce::QceDriverConfig driver;
  qce::TzConfig tz;  // another EE on the engine (rate 0: none)
};

class Emulator {
 public:
  // Elaborates the platform. A second Emulator in the same process throws std::logic_error.
  explicit Emulator(const EmulatorConfig& cfg = {});
  ~Emulator();

  // Probes the drivers on a task thread of CPU 0, then runs `job` there inside simulated time.
  // Returns when the job ends; rethrows what the job threw. Once per process.
  void run(const std::function<void(Emulator&)>& job);

  Soc& soc() { return *m_soc; }
  cpu::Host& host() { return m_soc->host; }
  cpu::Kernel& kernel() { return m_soc->kernel; }
  // The job's thread (task context on CPU 0), valid inside run().
  cpu::Runner& task() { return *m_task; }
  bam::BamDma& bam_dma() { return *m_bam_dma; }
  qce::QceDevice& qce() { return *m_qce; }
  qce::TzAgent* tz() { return m_tz.get(); }

  // The whole platform's state relative to now (model/state_hash.h) as far as it decides what
  // happens next: every part that registered itself (model/timing_state.h: the kernel and its
  // cores, the BAM, the engine, both drivers, the interrupt signals). Each part adds the instants
  // its pending work will happen at; not the simulator's next event, which may be a disarmed
  // timer's that changes nothing. Not the data, the registers' contents or the totals, which
  // change no timing.
  void fingerprint(model::StateHash& h) const;
  // Whether every part's future can repeat (none draws random numbers that decide timing): else
  // a fast-forward has nothing to find. The first part that cannot, in words, or "".
  std::string random_part() const;

 private:
  std::unique_ptr<Soc> m_soc;
  std::unique_ptr<bam::BamDma> m_bam_dma;
  std::unique_ptr<qce::QceDevice> m_qce;
  std::unique_ptr<qce::TzAgent> m_tz;
  cpu::Runner* m_task = nullptr;
  bool m_ran = false;
};

}  // namespace qcesim::soc
