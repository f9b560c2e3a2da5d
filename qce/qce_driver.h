// The qce driver's device half (drivers/crypto/qce/core.c, common.c, dma.c) on the emulated CPU:
// probe, register programming for a hash request (qce_setup_regs_ahash) over MMIO (mainline) or
// as BAM command elements (the locking series), the request handler and its done path
// (qce_ahash_async_req_handle / qce_ahash_done), and the STATUS check.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <systemc>
#include <vector>

#include "bam/bam_dma.h"
#include "cpu/host.h"
#include "model/sha_core.h"
#include "qce/regs_v5.h"

namespace qcesim::qce {

enum class RegIo {
  mmio,  // mainline: CPU writel() to every register
  bam,   // locking series: register writes as command descriptors, LOCK/UNLOCK around them
};
const char* reg_io_name(RegIo r);

struct QceDriverConfig {
  RegIo reg_io = RegIo::mmio;
  unsigned rx_pipe = 4;  // dmas = <&cryptobam 4>, <&cryptobam 5>
  unsigned tx_pipe = 5;
  sc_core::sc_time timeout = sc_core::sc_time(1, sc_core::SC_SEC);  // simulated time per request
};

class QceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What carries over between requests of one message: rctx->digest and rctx->byte_count.
struct ShaCarry {
  std::array<std::uint32_t, 8> iv{};
  std::uint64_t byte_count = 0;
};

struct ShaRequest {
  HashAlg alg = HashAlg::sha256;
  bool hmac = false;
  std::array<std::uint8_t, kShaBlockBytes> k0{};  // HMAC key, zero-padded
  bool first = true, last = true;
  std::vector<bam::ScatterEntry> src;  // exactly nbytes in total
  std::uint32_t nbytes = 0;
  ShaCarry carry;                    // in: state before; out: state after
  std::vector<std::uint8_t> digest;  // out, when last
};

struct QceDriverStats {
  std::uint64_t requests = 0;
  std::uint64_t reg_writes = 0;        // qce_write() calls
  std::uint64_t command_elements = 0;  // of those, sent as command elements
  std::uint64_t status_reads = 0;
};

class QceDevice {
 public:
  QceDevice(cpu::Host& host, bam::BamDma& bam, std::uint64_t base_phys, const QceDriverConfig& cfg);
  ~QceDevice();

  // qce_crypto_probe: check VERSION, take the channels, allocate the result and CE buffers.
  void probe();
  // One engine request: programs, starts, waits for the done path, checks STATUS, reads
  // the result dump into req.carry (and req.digest when LAST). Throws QceError on failure.
  void run_sha(ShaRequest& req);

  const QceDriverConfig& config() const { return m_cfg; }
  const QceDriverStats& stats() const { return m_stats; }
  std::uint32_t version() const { return m_version; }
  cpu::Host& host() { return m_host; }

 private:
  void qce_write(std::uint32_t offset, std::uint32_t val);
  void qce_write_array(std::uint32_t offset, const std::uint32_t* val, unsigned n);
  std::uint32_t qce_read(std::uint32_t offset);
  std::uint32_t qce_config_reg(bool little) const;
  void qce_setup_regs_ahash(const ShaRequest& req);
  void qce_crypto_go();
  void qce_submit_cmd_desc();
  void wait_for(const bool& done, const char* what);
  void qce_ahash_done(ShaRequest& req);

  cpu::Host& m_host;
  bam::BamDma& m_bam;
  std::uint64_t m_base;
  QceDriverConfig m_cfg;
  bam::BamChan* m_rx = nullptr;
  bam::BamChan* m_tx = nullptr;
  cpu::DmaBuf m_result_buf;
  cpu::DmaBuf m_ce_buf;  // command elements of the request being built (series: 128 max)
  unsigned m_ce_count = 0;
  std::uint32_t m_version = 0;
  QceDriverStats m_stats;
};

}  // namespace qcesim::qce
