#include "soc/soc.h"

#include <stdexcept>

namespace qcesim::soc {

using namespace model;

namespace {
enum Target : unsigned { kDram = 0, kQce = 1, kBam = 2 };
bool g_elaborated = false;
}  // namespace

Soc::Soc(sc_core::sc_module_name name, const SocConfig& c)
    : sc_core::sc_module(name),
      cfg(c),
      kernel("kernel", c.costs),
      dram("dram", c.map.dram_size),
      bus("bus"),
      bam("bam", c.bam),
      qce("qce", c.qce),
      host("cpu", c.map.dram_base, c.map.dram_size, kernel.costs()),
      bam_irq("bam_irq", c.bam.num_ees) {
  // Targets in the order of the Target enum.
  bus.to_targets.bind(dram.socket);
  bus.to_targets.bind(qce.regs_socket);
  bus.to_targets.bind(bam.regs_socket);
  bus.map("dram", c.map.dram_base, c.map.dram_size, kDram);
  bus.map("crypto", c.map.qce_base, c.map.qce_size, kQce);
  bus.map("cryptobam", c.map.bam_base, c.map.bam_size, kBam);
  // Initiators: the CPU and the BAM (descriptors, data, command elements).
  host.bus.bind(bus.from_initiators);
  bam.bus_socket.bind(bus.from_initiators);
  bam.peripheral.bind(qce);
  for (unsigned ee = 0; ee < c.bam.num_ees; ++ee) bam.irq[ee].bind(bam_irq[ee]);
  // The BAM's accesses go through the SMMU the kernel's dma-mapping layer programs.
  bam.set_iotlb_source([this](bool reads) { return kernel.dma().take_fresh_pages(reads); });
}

Emulator::Emulator(const EmulatorConfig& cfg) {
  if (g_elaborated) throw std::logic_error("SystemC elaborates once per process: one Emulator per process");
  g_elaborated = true;
  m_soc = std::make_unique<Soc>("soc", cfg.soc);
  // The series' bam_dma (its deferred work on a BH workqueue, its larger descriptors) comes with
  // its register I/O through BAM.
  const bool series = cfg.driver.reg_io == qce::RegIo::bam;
  m_bam_dma = std::make_unique<bam::BamDma>(m_soc->host, m_soc->kernel, cfg.soc.map.bam_base, cfg.soc.linux_ee,
                                            cfg.soc.bam.num_pipes, series);
  m_bam_dma->request_irq(m_soc->bam.irq_line(cfg.soc.linux_ee), cfg.driver.irq_cpu);
  m_qce = std::make_unique<qce::QceDevice>(m_soc->host, m_soc->kernel, *m_bam_dma, cfg.soc.map.qce_base, cfg.driver);
  if (cfg.tz.rate_per_s > 0) {
    // Another EE's writes may interleave with Linux's: every register write lands at its time.
    m_soc->host.set_exact_writes(true);
    m_tz = std::make_unique<qce::TzAgent>("tz", m_soc->host, m_soc->bam, cfg.soc.map.bam_base, cfg.soc.map.qce_base,
                                          cfg.tz);
  }
}

Emulator::~Emulator() = default;

void Emulator::fingerprint(model::StateHash& h) const { model::TimingState::fingerprint_all(h); }

std::string Emulator::random_part() const { return model::TimingState::first_random(); }

void Emulator::run(const std::function<void(Emulator&)>& job) {
  if (m_ran) throw std::logic_error("Emulator::run: the simulation already ran in this process");
  m_ran = true;
  bool finished = false;
  std::exception_ptr failure;
  m_task = &m_soc->kernel.spawn_task(m_soc->cfg.costs.task_cpu, "task", [&](cpu::Runner& r) {
    try {
      m_qce->probe(r);
      if (m_tz) {
        if (m_qce->config().lock_when_shared) m_tz->share_with(m_qce->config().share_addr);
        m_tz->start();
      }
      job(*this);
      if (m_tz) m_tz->stop();
      r.sync();
    } catch (...) {
      failure = std::current_exception();
    }
    r.block();
    finished = true;
    sc_core::sc_stop();
  });
  sc_core::sc_start();
  if (failure) std::rethrow_exception(failure);
  if (!finished) throw std::runtime_error("simulation stalled: the task waits for an event that never comes");
}

}  // namespace qcesim::soc
