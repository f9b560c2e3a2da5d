// Hashing byte streams as `qcesim hash` does: through the emulated engine (the ahash driver,
// BAM descriptors, the engine, the result dump), all streams in one emulator in turn, or on the
// CPU path (the ARMv8 CE model). The caller supplies the bytes; this layer knows no files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "drivers/crypto/qce/fallback.h"
#include "drivers/crypto/qce/reg_io.h"
#include "model/sha_core.h"

namespace qcesim::studies {

struct HashSetup {
  HashAlg alg = HashAlg::sha256;
  std::optional<std::vector<std::uint8_t>> hmac_key;
  qce::RegIo reg_io = qce::RegIo::mmio;
  std::uint32_t request_bytes = 1u << 20;  // bytes per update() call (engine request size)
  qce::QceRules rules;                     // the driver's kernel era (hash --era); era 0: none
  // After every update(), the request's state exported and imported into a new request, as the
  // self-tests' import/export configuration does (the engine path; the CPU path's generic state
  // round-trips whole, so there it changes nothing).
  bool reimport = false;
};

// Fills dst with up to len bytes (short only at the end of the stream); -1 on a read error.
using StreamReader = std::function<long(std::uint8_t* dst, std::size_t len)>;

struct HashOutcome {
  std::vector<std::uint8_t> digest;  // empty on error
  std::string engine_error;          // the driver reported a failure
  bool read_error = false;           // the reader returned -1
};

// What the engine path did, for --stats.
struct EngineHashStats {
  std::uint64_t requests = 0, reg_writes = 0, command_elements = 0;
  std::uint64_t rx_descriptors = 0, rx_cmd_descriptors = 0, rx_bytes = 0, rx_bursts = 0;
  std::uint64_t tx_descriptors = 0, tx_bytes = 0;
  std::uint64_t pipe_irq_events = 0, hardirqs = 0;
  std::uint64_t mmio_reads = 0, mmio_writes = 0;
  std::uint64_t engine_operations = 0, engine_blocks = 0;
  std::uint64_t reimports = 0, statesize = 0;  // export/import rounds, the driver's state size
};

// Streams 0 .. n-1: open(i) gives the stream's reader, or an empty function to skip it (the
// caller reported why); done(i, outcome) is called for each stream opened, in order.
using OpenStream = std::function<StreamReader(std::size_t)>;
using StreamDone = std::function<void(std::size_t, const HashOutcome&)>;

EngineHashStats hash_on_engine(const HashSetup& s, std::size_t n, const OpenStream& open, const StreamDone& done);
void hash_on_cpu(const HashSetup& s, std::size_t n, const OpenStream& open, const StreamDone& done);

}  // namespace qcesim::studies
