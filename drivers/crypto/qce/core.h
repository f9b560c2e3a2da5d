// The qce driver's device half (drivers/crypto/qce/core.c, common.c, dma.c) on the emulated CPU:
// probe, the one-deep request queue (qce_handle_queue), register programming for a hash request
// (qce_setup_regs_ahash) over MMIO (mainline) or as BAM command elements (the locking series),
// the request handler (qce_ahash_async_req_handle), the done path in softirq (qce_ahash_done)
// and in a kworker (qce_req_done_work), and the STATUS check.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <stdexcept>
#include <string>
#include <systemc>
#include <vector>

#include "drivers/dma/qcom/bam_dma.h"
#include "cpu/host.h"
#include "cpu/kernel.h"
#include "model/sha_core.h"
#include "drivers/crypto/qce/reg_io.h"
#include "qce/regs_v5.h"

namespace qcesim::qce {

using cpu::Runner;


struct QceDriverConfig {
  RegIo reg_io = RegIo::mmio;
  bool bam_lock = true;  // with reg_io bam: LOCK/UNLOCK around each transaction (the series)
  unsigned rx_pipe = 4;  // dmas = <&cryptobam 4>, <&cryptobam 5>
  unsigned tx_pipe = 5;
  unsigned irq_cpu = 0;  // the BAM interrupt's affinity
  sc_core::sc_time timeout = sc_core::sc_time(1, sc_core::SC_SEC);  // simulated time per request
  // A request not completed this long after it started is failed and its channels reset, so a
  // run goes on when another EE has taken the engine away. 0: none (the kernel driver has none
  // and would hang).
  sc_core::sc_time request_timeout = sc_core::SC_ZERO_TIME;
  // What-if: qce_check_status takes STATUS from the result dump instead of a CPU read of the
  // register (which, after UNLOCK, may see another EE's operation).
  bool status_from_dump = false;
  // What-ifs on completion: no interrupt for the rx (data) pipe, one per request instead of two
  // (the rx descriptors are reclaimed by terminate_all, which then resets the pipe); or no
  // interrupts at all, the submitting context polling the tx pipe every poll_delay and
  // completing the request itself.
  bool rx_interrupt = true;
  bool poll = false;
  sc_core::sc_time poll_delay = sc_core::sc_time(1, sc_core::SC_US);
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
  // Called in the kworker (crypto_request_complete) with "" or what went wrong.
  std::function<void(Runner&, const std::string&)> complete;
};

struct QceDriverStats {
  std::uint64_t requests = 0;
  std::uint64_t reg_writes = 0;        // qce_write() calls
  std::uint64_t command_elements = 0;  // of those, sent as command elements
  std::uint64_t status_reads = 0;
  std::uint64_t errors = 0;
  std::uint64_t timeouts = 0;  // requests failed by the request_timeout watchdog
  std::uint64_t polls = 0;     // status reads while polling
};

class QceDevice {
 public:
  QceDevice(cpu::Host& host, cpu::Kernel& kernel, bam::BamDma& bam, std::uint64_t base_phys,
            const QceDriverConfig& cfg);
  ~QceDevice();

  // qce_crypto_probe: check VERSION, take the channels, allocate the result and CE buffers.
  void probe(Runner& r);
  // qce_async_request_enqueue from the caller's context: the request starts now if the engine
  // is free, else when the one in flight completes. req.complete runs when it is done.
  void enqueue(Runner& r, ShaRequest& req);
  // The synchronous form a test or the hash command uses: enqueue, sleep until complete.
  // Throws QceError on failure or after the timeout.
  void run_sha(Runner& task, ShaRequest& req);

  const QceDriverConfig& config() const { return m_cfg; }
  const QceDriverStats& stats() const { return m_stats; }
  std::uint32_t version() const { return m_version; }
  cpu::Host& host() { return m_host; }
  cpu::Kernel& kernel() { return m_kernel; }

 private:
  void qce_handle_queue(Runner& r);
  void qce_ahash_async_req_handle(Runner& r, ShaRequest& req);
  void qce_write(Runner& r, std::uint32_t offset, std::uint32_t val);
  void qce_write_array(Runner& r, std::uint32_t offset, const std::uint32_t* val, unsigned n);
  std::uint32_t qce_config_reg(bool little) const;
  void qce_setup_regs_ahash(Runner& r, const ShaRequest& req);
  void qce_submit_cmd_desc(Runner& r);
  void qce_ahash_done(Runner& r, const bam::DmaResult& res);
  void qce_dma_terminate_all(Runner& r);
  void finish(Runner& r, std::string error);
  void qce_req_done_work(Runner& r, std::uint64_t seq, const std::string& error);
  void on_channel_error(Runner& r, const std::string& why);
  void qce_request_timeout(Runner& k, std::uint64_t seq);
  void poll_completion(Runner& r);

  cpu::Host& m_host;
  cpu::Kernel& m_kernel;
  const cpu::Costs& m_costs;
  bam::BamDma& m_bam;
  std::uint64_t m_base;
  QceDriverConfig m_cfg;
  bam::BamChan* m_rx = nullptr;
  bam::BamChan* m_tx = nullptr;
  cpu::DmaBuf m_result_buf;
  std::vector<bam::ScatterEntry> m_result_sg;  // the result buffer's one-entry scatterlist
  std::vector<bam::ScatterEntry> m_ce_sg;      // the command elements' scatterlist (storage reused)
  cpu::DmaBuf m_ce_buf;  // command elements of the request being built (series: 128 max)
  unsigned m_ce_count = 0;
  unsigned m_ce_mapped = 0;  // command elements of the request in flight (mapped sg entries)
  std::uint32_t m_version = 0;
  std::deque<ShaRequest*> m_queue;  // crypto_queue; QCE_QUEUE_LENGTH
  ShaRequest* m_req = nullptr;      // qce->req: the request in flight
  std::uint64_t m_req_seq = 0;      // which request that is: stale completions are dropped
  std::uint64_t m_failed_seq = 0;   // the last request failed by an error path
  QceDriverStats m_stats;
};

}  // namespace qcesim::qce
