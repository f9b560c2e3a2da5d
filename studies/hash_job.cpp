#include "studies/hash_job.h"

#include <memory>

#include "cpu/ce_sha.h"
#include "drivers/crypto/qce/sha.h"
#include "soc/soc.h"

namespace qcesim::studies {

namespace {

EngineHashStats engine_stats(soc::Emulator& emu, const qce::QceDriverConfig& driver) {
  auto& soc = emu.soc();
  const auto& rx = soc.bam.pipe_stats(driver.rx_pipe);
  const auto& tx = soc.bam.pipe_stats(driver.tx_pipe);
  EngineHashStats s;
  s.requests = emu.qce().stats().requests;
  s.reg_writes = emu.qce().stats().reg_writes;
  s.command_elements = emu.qce().stats().command_elements;
  s.rx_descriptors = rx.descriptors;
  s.rx_cmd_descriptors = rx.cmd_descriptors;
  s.rx_bytes = rx.bytes;
  s.rx_bursts = rx.bursts;
  s.tx_descriptors = tx.descriptors;
  s.tx_bytes = tx.bytes;
  s.pipe_irq_events = rx.irq_events + tx.irq_events;
  s.hardirqs = emu.bam_dma().irq_stats().hardirqs;
  s.mmio_reads = soc.host.stats().mmio_reads;
  s.mmio_writes = soc.host.stats().mmio_writes;
  s.engine_operations = soc.qce.stats().operations;
  s.engine_blocks = soc.qce.stats().blocks_hashed;
  return s;
}

}  // namespace

void hash_on_cpu(const HashSetup& s, std::size_t n, const OpenStream& open, const StreamDone& done) {
  std::vector<std::uint8_t> buf(s.request_bytes);
  for (std::size_t i = 0; i < n; ++i) {
    const StreamReader read = open(i);
    if (!read) continue;
    cpu::CeSha h(s.alg, s.hmac_key);
    HashOutcome o;
    long got;
    while ((got = read(buf.data(), buf.size())) > 0) h.update(buf.data(), static_cast<std::size_t>(got));
    o.read_error = got < 0;
    if (!o.read_error) o.digest = h.final();
    done(i, o);
  }
}

EngineHashStats hash_on_engine(const HashSetup& s, std::size_t n, const OpenStream& open, const StreamDone& done) {
  soc::EmulatorConfig cfg;
  cfg.driver.reg_io = s.reg_io;
  cfg.driver.rules = s.rules;
  soc::Emulator emu(cfg);
  std::uint64_t reimports = 0, statesize = 0;
  emu.run([&](soc::Emulator& e) {
    // The bytes are read straight into DMA memory, as a user buffer mapped for the engine.
    const cpu::DmaBuf buf = e.host().dma_alloc(s.request_bytes, 4096);
    for (std::size_t i = 0; i < n; ++i) {
      const StreamReader read = open(i);
      if (!read) continue;
      HashOutcome o;
      try {
        auto h = std::make_unique<qce::QceAhash>(e.qce(), e.task(), s.alg, s.hmac_key);
        statesize = h->statesize();
        long got;
        while ((got = read(buf.ptr, buf.size)) > 0) {
          h->update(buf.addr, static_cast<std::uint32_t>(got));
          if (!s.reimport) continue;
          // qce_ahash_export, then qce_ahash_import into another request of the same transform.
          const std::vector<std::uint8_t> state = h->export_state();
          h = std::make_unique<qce::QceAhash>(e.qce(), e.task(), s.alg, s.hmac_key);
          h->import_state(state);
          ++reimports;
        }
        o.read_error = got < 0;
        if (!o.read_error) o.digest = h->final();
      } catch (const qce::QceError& ex) {
        o.engine_error = ex.what();
      }
      done(i, o);
    }
    e.host().dma_free(buf);
  });
  EngineHashStats st = engine_stats(emu, cfg.driver);
  st.reimports = reimports;
  st.statesize = statesize;
  return st;
}

}  // namespace qcesim::studies
