// The dmaengine provider side of the BAM, as drivers/dma/qcom/bam_dma.c runs it on the CPU:
// channel init (bam_chan_init_hw), descriptor preparation (bam_prep_slave_sg), loading the
// descriptor FIFO and ringing the doorbell (bam_start_dma), the interrupt handler
// (bam_dma_irq / process_channel_irqs) in hardirq context, the softirq work that runs completion
// callbacks (vchan_complete) and loads more (dma_tasklet), terminate_all, and the locking series'
// LOCK/UNLOCK command descriptors around each transaction on a channel with a scratchpad.
// Every function takes the Runner of the context it runs in and charges its CPU time there.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/timing_state.h"
#include "bam/bam_hw.h"
#include "cpu/host.h"
#include "cpu/kernel.h"

namespace qcesim::bam {

using cpu::Runner;

enum class DmaDir { mem_to_dev, dev_to_mem };

// dmaengine prep flags.
constexpr unsigned DMA_PREP_INTERRUPT = 1u << 0;  // -> EOT on the last hardware descriptor
constexpr unsigned DMA_CTRL_ACK = 1u << 1;
constexpr unsigned DMA_PREP_FENCE = 1u << 2;  // -> NWD
constexpr unsigned DMA_PREP_CMD = 1u << 3;    // -> CMD on every hardware descriptor
// The lock as flags on a client's own descriptors (the series' v8 proposed these generic flags;
// here for the lock_inline design): LOCK on the first hardware descriptor, UNLOCK on the last.
constexpr unsigned DMA_PREP_LOCK = 1u << 4;
constexpr unsigned DMA_PREP_UNLOCK = 1u << 5;

struct ScatterEntry {
  std::uint64_t addr;  // bus address (dma_map_sg result)
  std::uint32_t len;
};

struct DmaResult {
  bool ok = true;
  std::string error;
};
// Runs in softirq context (vchan_complete), or in hardirq context for channel errors.
using DmaCallback = std::function<void(Runner&, const DmaResult&)>;

struct BamAsyncDesc {
  std::vector<BamDescHw> desc;  // every hardware descriptor of this transfer
  std::size_t loaded = 0;       // hardware descriptors put in the FIFO so far
  std::size_t xfer_len = 0;     // hardware descriptors of the batch in the FIFO now
  std::uint16_t flags = 0;      // EOT / NWD for the last hardware descriptor
  DmaCallback callback;
  bool lock = false, unlock = false;
  cpu::DmaBuf ce_buf;        // LOCK/UNLOCK: their one command element
  bool ce_coherent = false;  // ... in the channel's coherent buffer (not unmapped or recycled)
};

// The simulator recycles async descriptors (their descriptor vectors keep their capacity); the
// simulated kernel still pays kmalloc and kfree for each. A descriptor goes back to the pool
// it came from when its owner drops it.
class BamDescPool;
struct BamDescRecycle {
  BamDescPool* pool = nullptr;
  void operator()(BamAsyncDesc* d) const;
};
using BamDescPtr = std::unique_ptr<BamAsyncDesc, BamDescRecycle>;

class BamDescPool {
 public:
  BamDescPool() = default;
  BamDescPool(const BamDescPool&) = delete;
  BamDescPool& operator=(const BamDescPool&) = delete;
  ~BamDescPool();
  BamDescPtr get();
  void put(BamAsyncDesc* d);

 private:
  std::vector<BamAsyncDesc*> m_free;
};

struct BamSlaveConfig {
  DmaDir dir = DmaDir::mem_to_dev;
  // Locking series: the register a LOCK/UNLOCK dummy write targets (QCE VERSION). Unset: no locking.
  std::optional<std::uint64_t> scratchpad;
  // false: the pipe raises no completion interrupts (P_IRQ_EN keeps only P_ERR, no INT flags);
  // its descriptors are reclaimed by terminate_all, or the client polls (poll_done).
  bool interrupts = true;
  // false: the descriptor that carries UNLOCK asks for no interrupt (Qualcomm's downstream qce50
  // queues its UNLOCK so); its completion goes unseen until terminate_all finds it still listed,
  // resets the pipe and frees it in softirq (v20-series.md section 4, case 2).
  bool unlock_interrupt = true;
  // The LOCK/UNLOCK command elements in two buffers allocated coherent and mapped once per channel
  // (bam_alloc_chan_resources) and reused, as downstream qce50's pre-allocated command lists are:
  // no per-request map and unmap (nor their IOTLB misses). false: the series' kmalloc'ed and mapped
  // buffer per descriptor.
  bool coherent_lock_ce = false;
};

struct BamChanStats {
  std::uint64_t hw_descriptors = 0;  // loaded into the FIFO
  std::uint64_t async_descriptors = 0;
  std::uint64_t doorbells = 0;
  std::uint64_t lock_pairs = 0;
  std::uint64_t resets = 0;
};

struct BamChan {
  unsigned id = 0;
  BamSlaveConfig cfg;
  bool initialized = false;
  bool locked = false;  // a LOCK is queued whose UNLOCK has not completed
  // Set by the client before bam_issue_pending (the locking designs, docs/locking-designs.md):
  // lock_next false leaves the next work without LOCK (the engine not shared now); keep_lock
  // holds the lock past it, no UNLOCK appended (one pair around a batch of requests).
  bool lock_next = true;
  bool keep_lock = false;
  bool unlock_queued = false;   // the current lock's UNLOCK is queued
  bool lock_unseen = false;     // a LOCK was loaded the client has not yet seen taken (lock_acquired)
  std::uint32_t lock_slot = 0;  // its FIFO slot
  cpu::DmaBuf lock_ce[2];       // with cfg.coherent_lock_ce: the LOCK's and the UNLOCK's, mapped once
  cpu::DmaBuf fifo;
  std::uint32_t head = 0;  // first slot not yet retired
  std::uint32_t tail = 0;  // next free slot
  std::uint32_t in_fifo = 0;
  std::deque<BamDescPtr> issued;  // waiting for FIFO room
  std::deque<BamDescPtr> active;  // in the FIFO (desc_list)
  std::vector<BamDescPtr> submitted;
  std::vector<std::pair<DmaCallback, DmaResult>> completed;   // for vchan_complete
  std::vector<std::pair<DmaCallback, DmaResult>> completing;  // the batch vchan_complete runs
  bool vchan_scheduled = false;                               // its tasklet is pending (tasklet_schedule is idempotent)
  std::optional<std::string> error;                           // set by a P_ERR interrupt until the next reset
  std::function<void(Runner&, const std::string&)> on_error;  // the client's error hook (hardirq)
  BamChanStats stats;
};

struct BamIrqStats {
  std::uint64_t hardirqs = 0;
  std::uint64_t pipe_events = 0;  // status bits seen across pipes
};

class BamDma : public model::TimingState {
 public:
  static constexpr std::uint32_t kRingSlots = BAM_DESC_FIFO_SIZE / BAM_DESC_BYTES;  // 4096

  BamDma(cpu::Host& host, cpu::Kernel& kernel, std::uint64_t base, unsigned ee, unsigned num_pipes, bool series);
  ~BamDma() override;
  BamDma(const BamDma&) = delete;
  BamDma& operator=(const BamDma&) = delete;

  // bam_dma_probe's request_irq: the BAM's EE line, handled on `cpu`.
  void request_irq(cpu::IrqLine& line, unsigned cpu);

  BamChan& chan(unsigned pipe);
  void bam_slave_config(BamChan& c, const BamSlaveConfig& cfg);
  // device_alloc_chan_resources: with cfg.coherent_lock_ce, the channel's two lock command
  // elements allocated and mapped once.
  void bam_alloc_chan_resources(Runner& r, BamChan& c);
  BamDescPtr bam_prep_slave_sg(Runner& r, BamChan& c, const std::vector<ScatterEntry>& sg, unsigned flags,
                               DmaCallback cb = {});
  void submit(BamChan& c, BamDescPtr d);
  void bam_issue_pending(Runner& r, BamChan& c);
  void bam_dma_terminate_all(Runner& r, BamChan& c);
  // Polling instead of an interrupt: one CPU read of the pipe's P_SW_OFSTS; true when the BAM
  // has processed every descriptor loaded into the FIFO.
  bool poll_done(Runner& r, BamChan& c);
  // Whether the LOCK loaded last has been processed (the BAM now serves only this EE): one CPU
  // read of P_SW_OFSTS unless no LOCK is outstanding. For a client that writes the peripheral's
  // registers itself (MMIO) inside the lock.
  bool lock_acquired(Runner& r, BamChan& c);
  // A lock held open for a batch (keep_lock, no UNLOCK queued) is released: an UNLOCK is queued
  // and started. Nothing when the channel holds no such lock.
  void bam_release_lock(Runner& r, BamChan& c);
  // Interrupts on or off for a channel from now on (a client switching between interrupts and
  // polling): descriptors loaded later get INT flags or not, and P_IRQ_EN is written (pending
  // status cleared first when turning them on, so nothing stale fires).
  void set_interrupts(Runner& r, BamChan& c, bool on);

  // bam_dma_irq, in hardirq context.
  void bam_dma_irq(Runner& r);

  const BamIrqStats& irq_stats() const { return m_irq_stats; }
  // Every channel's queues and FIFO fill, relative to now (model/state_hash.h).
  void fingerprint(model::StateHash& h) const override;
  std::string timing_name() const override { return "bam_dma"; }

 private:
  void bam_chan_init_hw(Runner& r, BamChan& c);
  void bam_start_dma(Runner& r, BamChan& c);
  void fail_channel(Runner& r, BamChan& c, const std::string& why);
  void bam_dma_free_desc(Runner& r, BamAsyncDesc& d);
  BamDescPtr bam_make_lock_desc(Runner& r, BamChan& c, bool lock);
  void vchan_complete(Runner& r, BamChan& c);
  void dma_tasklet(Runner& r);
  std::uint64_t reg(std::uint32_t off) const { return m_base + off; }

  cpu::Host& m_host;
  cpu::Kernel& m_kernel;
  const cpu::Costs& m_costs;
  std::uint64_t m_base;
  unsigned m_ee;
  // The locking series' bam_dma: dma_tasklet moved to a BH workqueue, and each descriptor grown
  // from 176 bytes to 224 (384 for a command descriptor), its lock flags in a fourth line.
  bool m_series;
  bool m_tasklet_scheduled = false;
  BamDescPool m_pool;  // before the channels: destroyed after the descriptors they hold
  std::vector<BamChan> m_chans;
  BamIrqStats m_irq_stats;
  std::vector<cpu::DmaBuf> m_ce_bufs;  // LOCK/UNLOCK command-element buffers for reuse
};

}  // namespace qcesim::bam
