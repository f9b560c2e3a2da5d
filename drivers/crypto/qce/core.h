// The qce driver's core (drivers/crypto/qce/core.c) on the emulated CPU: probe, the ops table
// (qce_ops[]: one entry per algorithm type, skcipher, ahash, aead), the one-deep request queue
// (qce_handle_queue), handing a request to its type's async_req_handle, and the done path
// (qce_async_request_done -> qce_req_done_work in a kworker, or qce_tasklet_req_done before 2024). The register set-up
// lives in common.cpp, the DMA in dma.cpp and the algorithms in sha.cpp, skcipher.cpp and aead.cpp, as in the kernel;
// they are members of QceDevice (struct qce_device) defined in those files.
#pragma once

#include <array>
#include <cerrno>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <systemc>
#include <vector>

#include "model/timing_state.h"
#include "cpu/host.h"
#include "cpu/kernel.h"
#include "cpu/soft_crypto.h"
#include "drivers/crypto/qce/fallback.h"
#include "drivers/crypto/qce/reg_io.h"
#include "drivers/dma/qcom/bam_dma.h"
#include "qce/regs_v5.h"

namespace qcesim::qce {

using cpu::Runner;

struct QceDriverConfig {
  RegIo reg_io = RegIo::mmio;
  bool bam_lock = true;  // with reg_io bam: LOCK/UNLOCK around each transaction (the series)
  unsigned rx_pipe = 4;  // dmas = <&cryptobam 4>, <&cryptobam 5>
  unsigned tx_pipe = 5;
  unsigned irq_cpu = 0;                                             // the BAM interrupt's affinity
  sc_core::sc_time timeout = sc_core::sc_time(1, sc_core::SC_SEC);  // simulated time per request
  // A request not completed this long after it started is failed and its channels reset, so a
  // run goes on when another EE has taken the engine away. 0: none (the kernel driver has none
  // and would hang).
  sc_core::sc_time request_timeout = sc_core::SC_ZERO_TIME;
  // What-if: qce_check_status takes STATUS from the result dump instead of a CPU read of the
  // register (which, after UNLOCK, may see another EE's operation).
  bool status_from_dump = false;
  // Design alternative: the command-element list and the lock elements in buffers allocated
  // coherent and mapped once (downstream qce50's pre-allocated command lists), not mapped and
  // unmapped per request as the series does (variant key ce_buffers "coherent").
  bool coherent_ce = false;
  // Design alternative: register writes by MMIO (reg_io mmio) inside one LOCK/UNLOCK pair around
  // the data descriptors; the CPU waits, polling the rx pipe every poll_delay, until the BAM has
  // taken the LOCK before it writes the engine's registers (variant: bam_lock with reg_io mmio).
  bool lock_mmio = false;
  // Design alternative: one LOCK/UNLOCK pair around up to this many requests while more are
  // queued behind the one starting (1: a pair per request, as the series does).
  unsigned lock_batch = 1;
  // Design alternative: lock only while the other EE uses the engine. The two EEs share a
  // handshake in uncached memory at share_addr (word 0: the other EE wants the engine; word 1:
  // Linux has an unlocked request on it), used as Dekker's algorithm: Linux sets word 1, then
  // reads word 0, and locks (clearing word 1) when it is set; the other EE sets word 0, then
  // waits for word 1 to clear before its first job. probe allocates the words (on a board the
  // firmware would name them) and sets share_addr.
  bool lock_when_shared = false;
  std::uint64_t share_addr = 0;
  // Whether requests lock at all (the series' bam_lock, or lock_mmio).
  bool locks() const { return reg_io == RegIo::bam ? bam_lock : lock_mmio; }
  // Design alternative (with reg_io bam and the lock; downstream qce50's way, suggested in the
  // series' RFC v11 review): no dummy LOCK/UNLOCK descriptors; LOCK is a flag on the request's
  // first command descriptor, UNLOCK on a one-element command descriptor after the data that
  // writes CONFIG's reset value (qce50's CRYPTO_CONFIG_RESET: the next EE finds a known state).
  bool lock_inline = false;
  // What-ifs on completion: no interrupt for the rx (data) pipe, one per request instead of two
  // (the rx descriptors are reclaimed by terminate_all, which then resets the pipe); or no
  // interrupts at all, the submitting context polling the tx pipe every poll_delay and
  // completing the request itself.
  bool rx_interrupt = true;
  // Design alternative: the UNLOCK asks for no interrupt (downstream qce50's way); terminate_all
  // in the done callback reclaims it after a pipe reset.
  bool unlock_interrupt = true;
  bool poll = false;
  // Design alternative: poll at load, interrupts otherwise (NAPI's idea): a request started with
  // others queued behind it is polled for by the context that started it, with both pipes'
  // interrupts masked (BAM_P_IRQ_EN), and the next queued ones in the same loop; when a request
  // starts with none behind it, the interrupts come back (variant completion "adaptive").
  bool poll_at_load = false;
  sc_core::sc_time poll_delay = sc_core::sc_time(1, sc_core::SC_US);
  // Before the December 2024 refactor the done path was a tasklet (qce_tasklet_req_done, in
  // softirq, which also starts the next request), not a kworker.
  bool done_tasklet = false;
  // The kernel era's registered set and fallback rules (era 0: none), and what the software
  // fallback costs on this CPU.
  QceRules rules;
  cpu::SoftCryptoConfig soft;
};

class QceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// An AEAD tag that does not match (-EBADMSG): the request ran, its text is not to be trusted.
class QceBadMessage : public QceError {
 public:
  using QceError::QceError;
};
// The error a request completes with when its tag does not match.
inline const std::string kQceBadMessage = "the tag does not match (-EBADMSG)";

// What a request completes with, as crypto_request_complete's `err`: 0 or a negative errno
// (-EINVAL a request the driver refuses, -EIO a DMA channel error, -ENXIO an engine error in
// STATUS, -EBADMSG a CCM tag the engine found wrong, -ETIMEDOUT the watchdog, -ENODEV no
// algorithm of the type), with the driver's words for it (what its dev_err would log). Code
// decides on `err`; `why` is for people.
struct QceStatus {
  int err = 0;
  std::string why;
  bool failed() const { return err != 0; }
};
inline QceStatus qce_ok() { return {}; }
inline QceStatus qce_error(int err, std::string why) { return {err, std::move(why)}; }

// CRYPTO_ALG_TYPE_*: which entry of the ops table handles a request.
enum class AlgType { skcipher, ahash, aead };
const char* alg_type_name(AlgType t);

// What the core sees of a request (struct crypto_async_request): its algorithm type and the
// completion its caller registered. Each algorithm file derives its request from it.
struct QceAsyncRequest {
  explicit QceAsyncRequest(AlgType t) : type(t) {}
  virtual ~QceAsyncRequest() = default;
  QceAsyncRequest(const QceAsyncRequest&) = default;
  QceAsyncRequest& operator=(const QceAsyncRequest&) = default;

  AlgType type;
  // The crypto API calls in the caller that submit it, charged at enqueue; empty: the type's
  // one-shot call (crypto_ahash_digest, qce_skcipher_crypt, qce_aead_crypt).
  std::vector<cpu::Cost> calls;
  // It starts the caller's next message: the caller's own share (cost.caller_overhead) comes with
  // it. Not so for a hash's final after its update (one message, two requests).
  bool opens_message = true;
  // Called in the kworker (crypto_request_complete) with the request's status.
  std::function<void(Runner&, const QceStatus&)> complete;
};

// struct qce_algo_ops: an algorithm type's entry in the ops table.
class QceAlgoOps {
 public:
  virtual ~QceAlgoOps() = default;
  virtual AlgType type() const = 0;
  // ops->async_req_handle: map the data, prepare the descriptors, program the engine, start it.
  virtual void async_req_handle(Runner& r, QceAsyncRequest& req) = 0;
};

struct QceDriverStats {
  std::uint64_t requests = 0;
  std::uint64_t reg_writes = 0;        // qce_write() calls
  std::uint64_t command_elements = 0;  // of those, sent as command elements
  std::uint64_t status_reads = 0;
  std::uint64_t errors = 0;
  std::uint64_t timeouts = 0;   // requests failed by the request_timeout watchdog
  std::uint64_t polls = 0;      // P_SW_OFSTS reads while polling (completion, or the LOCK wait)
  std::uint64_t fallbacks = 0;  // requests the era's rules sent to the software fallback
};

struct ShaRequest;
struct SkcipherRequest;
struct AeadRequest;
struct AeadRegs;

class QceDevice : public model::TimingState {
 public:
  QceDevice(cpu::Host& host, cpu::Kernel& kernel, bam::BamDma& bam, std::uint64_t base_phys,
            const QceDriverConfig& cfg);
  ~QceDevice() override;
  QceDevice(const QceDevice&) = delete;
  QceDevice& operator=(const QceDevice&) = delete;

  // qce_crypto_probe: check VERSION, take the channels and allocate the result and CE buffers
  // (qce_dma_request), register the algorithm types of the ops table.
  void probe(Runner& r);
  // qce_async_request_enqueue from the caller's context: the request starts now if the engine
  // is free, else when the one in flight completes. req.complete runs when it is done.
  void enqueue(Runner& r, QceAsyncRequest& req);
  // The synchronous form a test or the hash command uses: enqueue, sleep until complete.
  // Throws QceError on failure or after the timeout.
  void run_sync(Runner& task, QceAsyncRequest& req);
  void run_sha(Runner& task, ShaRequest& req);

  const QceDriverConfig& config() const { return m_cfg; }
  const QceDriverStats& stats() const { return m_stats; }
  std::uint32_t version() const { return m_version; }
  cpu::Host& host() { return m_host; }
  cpu::Kernel& kernel() { return m_kernel; }
  const cpu::Costs& costs() const { return m_costs; }
  // The software implementations the fallback tfms run (on the caller's CPU).
  const cpu::SoftCrypto& soft() const { return m_soft; }
  void count_fallback() { ++m_stats.fallbacks; }
  // The driver's queue and request in flight, relative to now (model/state_hash.h).
  void fingerprint(model::StateHash& h) const override {
    h.add(std::uint64_t{m_queue.size()});
    h.add(m_req != nullptr);
    h.add(std::uint64_t{m_ce_count});
    h.add(std::uint64_t{m_ce_first});
    std::uint64_t mapped = 0;
    for (const cpu::SgShape& s : m_ce_maps) mapped += s.nents;
    h.add(mapped);
    h.add(m_req_seq == m_failed_seq);
    h.add(std::uint64_t{m_batch});
    h.add(m_unlocked_busy);
    h.add(m_polling);
    h.add(m_in_poll_loop);
  }
  std::string timing_name() const override { return "qce_device"; }

  // ---- What the algorithm files use (struct qce_device's helpers) ----------------------------
  // core.c: qce->async_req_done: the request in flight ended ("" or what went wrong).
  void async_req_done(Runner& r, QceStatus status);
  // The request in flight (qce->req), null when none.
  QceAsyncRequest* current() { return m_req; }

  // common.c: one register write (writel, or a command element with the series).
  void qce_write(Runner& r, std::uint32_t offset, std::uint32_t val);
  void qce_write_array(Runner& r, std::uint32_t offset, const std::uint32_t* val, unsigned n);
  std::uint32_t qce_config_reg(bool little) const;
  // qce_start: the request's registers (qce_setup_regs_* by its type; `aead` the AEAD's request
  // context) and its data transfers (`prep_sgs(rx_flags)`: the algorithm's qce_dma_prep_sgs), in
  // the one order each register-I/O mode needs: mainline issues the data, then writes the
  // registers with GO last; the series queues the register writes as a command descriptor first
  // and the data behind it with DMA_PREP_FENCE, so the engine is programmed before data arrives.
  void qce_start(Runner& r, const QceAsyncRequest& req, const AeadRegs* aead,
                 const std::function<void(unsigned)>& prep_sgs);
  void qce_setup_regs_ahash(Runner& r, const ShaRequest& req);
  void qce_setup_regs_skcipher(Runner& r, const SkcipherRequest& req);
  void qce_setup_regs_aead(Runner& r, const AeadRequest& req, const AeadRegs& rctx);
  // qce_check_status: ok when STATUS says the operation is done without error, else -ENXIO and why;
  // MAC_FAILED (CCM's tag) is not an error here but comes back in mac_failed. `dumped` false:
  // the operation sent no result dump (CCM), so the status_from_dump what-if reads STATUS too.
  QceStatus qce_check_status(Runner& r, bool& mac_failed, bool dumped = true);
  QceStatus qce_check_status(Runner& r);  // MAC_FAILED counts as an error (-EBADMSG)

  // dma.c: the result buffer, descriptors on both pipes, terminate.
  const std::uint8_t* result_buf() const { return m_result_buf.ptr; }
  const std::vector<bam::ScatterEntry>& result_sg() const { return m_result_sg; }
  // The kernel's dma-mapping layer, for the algorithm drivers' dma_map_sg.
  cpu::DmaIommu& dma() { return m_kernel.dma(); }
  // qce_dma_prep_sgs: the source on rx (none when src is empty), the destination (none for a
  // hash) and the result buffer on tx with the done callback. `rx_flags` adds to the data
  // descriptors' flags (the series' fence). CCM's dst table has its own result buffer:
  // add_result false.
  void qce_dma_prep_sgs(Runner& r, const std::vector<bam::ScatterEntry>& src, unsigned rx_flags, bam::DmaCallback done,
                        const std::vector<bam::ScatterEntry>& dst = {}, bool add_result = true);
  void qce_dma_issue_pending(Runner& r);
  void qce_dma_terminate_all(Runner& r);
  // The series: a register write as a command element; the ones built so far as one CMD
  // descriptor on rx.
  void qce_write_dma(Runner& r, std::uint32_t offset, std::uint32_t val);
  // `flags`: DMA_PREP_LOCK or DMA_PREP_UNLOCK with lock_inline.
  void qce_submit_cmd_desc(Runner& r, unsigned flags = 0);
  // Polling instead of interrupts: wait for the result dump, then run the done callback here.
  void poll_completion(Runner& r);

 private:
  void qce_handle_queue(Runner& r);
  void qce_handle_request(Runner& r, QceAsyncRequest& req);
  void qce_req_done_work(Runner& r, std::uint64_t seq, const QceStatus& status);
  void qce_tasklet_req_done(Runner& r, std::uint64_t seq, const QceStatus& status);
  void finish_request(Runner& r, std::uint64_t seq, const QceStatus& status);
  void on_channel_error(Runner& r, const std::string& why);
  void qce_request_timeout(Runner& k, std::uint64_t seq);
  void qce_dma_request(Runner& r);
  // Whether the request starting locks, and whether it keeps the lock for the next (the
  // locking designs); sets the rx channel's lock_next and keep_lock.
  void qce_lock_policy(Runner& r);
  // lock_mmio: wait until the BAM has taken the LOCK queued ahead of the data; false when the
  // request was failed meanwhile (its registers must not be written).
  bool qce_wait_lock(Runner& r);
  bool qce_poll_until(Runner& r, const std::function<bool()>& ready);
  // lock_when_shared: Linux's request is off the engine; clear the handshake's word 1.
  void qce_share_release(Runner& r);
  // poll_at_load: mask or unmask both pipes' interrupts; then, in the context that started the
  // request, poll for it and for the queued ones after it until a request starts alone.
  void qce_set_polling(Runner& r, bool on);
  void qce_poll_loop(Runner& r);

  cpu::Host& m_host;
  cpu::Kernel& m_kernel;
  const cpu::Costs& m_costs;
  cpu::SoftCrypto m_soft;
  bam::BamDma& m_bam;
  std::uint64_t m_base;
  QceDriverConfig m_cfg;
  std::vector<std::unique_ptr<QceAlgoOps>> m_ops;  // registered at probe, from qce_ops[]
  // dma.c's struct qce_dma_data and the series' command-element list.
  bam::BamChan* m_rx = nullptr;
  bam::BamChan* m_tx = nullptr;
  cpu::DmaBuf m_result_buf;
  std::vector<bam::ScatterEntry> m_result_sg;  // the result buffer's one-entry scatterlist
  std::vector<bam::ScatterEntry> m_ce_sg;      // the command elements' scatterlist (storage reused)
  cpu::DmaBuf m_ce_buf;                        // command elements of the request being built (series: 128 max)
  unsigned m_ce_count = 0;
  unsigned m_ce_first = 0;              // the first element not yet in a command descriptor
  std::vector<cpu::SgShape> m_ce_maps;  // the request's command-element lists, as mapped
  bam::DmaCallback m_done;              // the tx callback of the request in flight (polling calls it)
  std::uint32_t m_version = 0;
  std::deque<QceAsyncRequest*> m_queue;  // crypto_queue; QCE_QUEUE_LENGTH
  QceAsyncRequest* m_req = nullptr;      // qce->req: the request in flight
  std::uint64_t m_req_seq = 0;           // which request that is: stale completions are dropped
  std::uint64_t m_failed_seq = 0;        // the last request failed by an error path
  QceDriverStats m_stats;
  unsigned m_batch = 0;            // requests under the lock held now (lock_batch)
  bool m_unlocked_busy = false;    // lock_when_shared: word 1 is set for the request in flight
  bool m_polling = false;          // poll_at_load: the pipes' interrupts are masked
  bool m_in_poll_loop = false;     // a context is polling the requests (qce_poll_loop)
  std::uint64_t m_issued_seq = 0;  // the last request whose descriptors were prepared (polling waits for them)
};

}  // namespace qcesim::qce
