#include "drivers/dma/qcom/bam_dma.h"

#include "drivers/dma_mapping.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace qcesim::bam {

void BamDescRecycle::operator()(BamAsyncDesc* d) const {
  if (pool) {
    pool->put(d);
  } else {
    delete d;
  }
}

BamDescPool::~BamDescPool() {
  for (BamAsyncDesc* d : m_free) delete d;
}

BamDescPtr BamDescPool::get() {
  if (m_free.empty()) return BamDescPtr(new BamAsyncDesc, BamDescRecycle{this});
  BamAsyncDesc* d = m_free.back();
  m_free.pop_back();
  return BamDescPtr(d, BamDescRecycle{this});
}

// Back to its fresh state, keeping the descriptor vector's storage.
void BamDescPool::put(BamAsyncDesc* d) {
  d->desc.clear();
  d->loaded = d->xfer_len = 0;
  d->flags = 0;
  d->callback = nullptr;
  d->lock = d->unlock = false;
  d->ce_buf = {};
  m_free.push_back(d);
}

BamDma::BamDma(cpu::Host& host, cpu::Kernel& kernel, std::uint64_t base, unsigned ee, unsigned num_pipes, bool series)
    : m_host(host),
      m_kernel(kernel),
      m_costs(kernel.costs()),
      m_base(base),
      m_ee(ee),
      m_series(series),
      m_chans(num_pipes) {
  for (unsigned i = 0; i < num_pipes; ++i) m_chans[i].id = i;
}

BamDma::~BamDma() = default;

void BamDma::request_irq(cpu::IrqLine& line, unsigned cpu) {
  m_kernel.request_irq(line, cpu, "bam_dma", [this](Runner& r) { bam_dma_irq(r); });
}

BamChan& BamDma::chan(unsigned pipe) {
  if (pipe >= m_chans.size()) throw std::out_of_range(fmt::format("bam_dma: no pipe {}", pipe));
  return m_chans[pipe];
}

void BamDma::bam_slave_config(BamChan& c, const BamSlaveConfig& cfg) { c.cfg = cfg; }

// bam_chan_init_hw: reset the pipe and point it at its descriptor FIFO.
void BamDma::bam_chan_init_hw(Runner& r, BamChan& c) {
  if (!c.fifo) c.fifo = m_host.dma_alloc(BAM_DESC_FIFO_SIZE, 4096);
  m_host.writel(r, reg(BAM_P_RST(c.id)), 1);
  m_host.writel(r, reg(BAM_P_RST(c.id)), 0);
  m_host.writel(r, reg(BAM_P_DESC_FIFO_ADDR(c.id)), static_cast<std::uint32_t>(c.fifo.addr));
  m_host.writel(r, reg(BAM_P_FIFO_SIZES(c.id)), BAM_DESC_FIFO_SIZE);
  m_host.writel(r, reg(BAM_P_IRQ_EN(c.id)), c.cfg.interrupts ? P_DEFAULT_IRQS_EN : P_ERR);
  const std::uint32_t msk = m_host.readl(r, reg(BAM_IRQ_SRCS_MSK_EE(m_ee)));
  m_host.writel(r, reg(BAM_IRQ_SRCS_MSK_EE(m_ee)), msk | (1u << c.id));
  std::uint32_t ctrl = P_EN | P_SYS_MODE;
  if (c.cfg.dir == DmaDir::dev_to_mem) ctrl |= P_DIRECTION;
  m_host.writel(r, reg(BAM_P_CTRL(c.id)), ctrl);
  c.head = c.tail = c.in_fifo = 0;
  c.locked = c.unlock_queued = c.lock_unseen = false;
  c.error.reset();
  c.initialized = true;
  ++c.stats.resets;
}

BamDescPtr BamDma::bam_prep_slave_sg(Runner& r, BamChan& c, const std::vector<ScatterEntry>& sg, unsigned flags,
                                     DmaCallback cb) {
  BamDescPtr d = m_pool.get();
  r.charge(m_costs(cpu::Cost::kmalloc));  // the async descriptor (kzalloc)
  r.charge(m_costs(cpu::Cost::bam_prep_slave_sg));
  d->desc.reserve(sg.size());
  for (const ScatterEntry& e : sg) {
    // Entries longer than BAM_FIFO_SIZE are split, as the hardware caps a descriptor.
    std::uint32_t off = 0;
    do {
      const std::uint32_t n = std::min<std::uint32_t>(e.len - off, BAM_FIFO_SIZE);
      d->desc.push_back({static_cast<std::uint32_t>(e.addr + off), static_cast<std::uint16_t>(n),
                         static_cast<std::uint16_t>((flags & DMA_PREP_CMD) ? DESC_FLAG_CMD : 0)});
      r.charge(m_costs(cpu::Cost::bam_prep_per_desc));
      off += n;
    } while (off < e.len);
  }
  if (!d->desc.empty() && (flags & DMA_PREP_LOCK)) {
    d->desc.front().flags = static_cast<std::uint16_t>(d->desc.front().flags | DESC_FLAG_LOCK);
    ++c.stats.lock_pairs;
  }
  if (!d->desc.empty() && (flags & DMA_PREP_UNLOCK))
    d->desc.back().flags = static_cast<std::uint16_t>(d->desc.back().flags | DESC_FLAG_UNLOCK);
  if (flags & DMA_PREP_INTERRUPT) d->flags |= DESC_FLAG_EOT;
  if (flags & DMA_PREP_FENCE) d->flags |= DESC_FLAG_NWD;
  d->callback = std::move(cb);
  return d;
}

void BamDma::submit(BamChan& c, BamDescPtr d) { c.submitted.push_back(std::move(d)); }

void BamDma::bam_issue_pending(Runner& r, BamChan& c) {
  for (auto& d : c.submitted) c.issued.push_back(std::move(d));
  c.submitted.clear();
  if (!c.issued.empty() && c.in_fifo < MAX_DESCRIPTORS) bam_start_dma(r, c);
}

namespace {
cpu::SgShape ce_buf_shape(const cpu::DmaBuf& b) {
  cpu::SgShape s;
  s.add(b.addr, sizeof(BamCmdElement));
  return s;
}
}  // namespace

void BamDma::bam_alloc_chan_resources(Runner& r, BamChan& c) {
  if (!c.cfg.coherent_lock_ce || c.lock_ce[0]) return;
  for (cpu::DmaBuf& b : c.lock_ce) {  // dma_alloc_coherent: mapped for the channel's lifetime
    b = m_host.dma_alloc(sizeof(BamCmdElement), 16);
    dma::dma_map_sg(r, m_kernel.dma(), ce_buf_shape(b), dma::DmaDir::to_device);
  }
}

// The locking series: one command element writing 0 to the scratchpad register, with
// CMD|LOCK or CMD|UNLOCK, in its own kmalloc'ed and DMA-mapped buffer.
BamDescPtr BamDma::bam_make_lock_desc(Runner& r, BamChan& c, bool lock) {
  BamDescPtr d = m_pool.get();
  r.charge(m_costs.as("bam_make_lock_desc", cpu::Cost::kmalloc));  // kzalloc_flex(GFP_NOWAIT)
  if (c.cfg.coherent_lock_ce) {  // the channel's element, mapped at bam_alloc_chan_resources
    d->ce_buf = c.lock_ce[lock ? 0 : 1];
    d->ce_coherent = true;
  } else if (m_ce_bufs.empty()) {  // the simulated kernel kmallocs and maps; the simulator reuses buffers
    d->ce_buf = m_host.dma_alloc(sizeof(BamCmdElement), 16);
  } else {
    d->ce_buf = m_ce_bufs.back();
    m_ce_bufs.pop_back();
  }
  if (!d->ce_coherent) dma::dma_map_sg(r, m_kernel.dma(), ce_buf_shape(d->ce_buf), dma::DmaDir::to_device);
  const BamCmdElement ce = bam_prep_ce(static_cast<std::uint32_t>(*c.cfg.scratchpad), BAM_WRITE_COMMAND, 0);
  std::memcpy(d->ce_buf.ptr, &ce, sizeof ce);
  d->desc.push_back({static_cast<std::uint32_t>(d->ce_buf.addr), sizeof(BamCmdElement),
                     static_cast<std::uint16_t>(DESC_FLAG_CMD | (lock ? DESC_FLAG_LOCK : DESC_FLAG_UNLOCK))});
  d->lock = lock;
  d->unlock = !lock;
  return d;
}

void BamDma::fingerprint(model::StateHash& h) const {
  h.add(m_tasklet_scheduled);
  for (const BamChan& c : m_chans) {
    h.add(c.initialized);
    const bool empty = c.issued.empty() && c.active.empty() && c.submitted.empty() && c.completed.empty() &&
                       c.completing.empty() && !c.vchan_scheduled && !c.error;
    h.add(empty);
    if (!c.initialized && empty) continue;  // a channel with nothing started or queued
    h.add(c.locked);
    h.add(c.unlock_queued);
    h.add(c.keep_lock);
    h.add(c.lock_next);
    h.add(c.lock_unseen);
    h.add(c.cfg.interrupts);
    h.add(std::uint64_t{(c.tail + kRingSlots - c.head) % kRingSlots});
    h.add(std::uint64_t{c.in_fifo});
    for (const auto* q : {&c.issued, &c.active}) {
      h.add(std::uint64_t{q->size()});
      for (const BamDescPtr& d : *q) {
        h.add(std::uint64_t{d->desc.size()});
        h.add(std::uint64_t{d->loaded});
      }
    }
    h.add(std::uint64_t{c.submitted.size()});
    h.add(std::uint64_t{c.completed.size()});
    h.add(std::uint64_t{c.completing.size()});
    h.add(c.vchan_scheduled);
    h.add(c.error.has_value());
  }
}

// bam_start_dma: copy as many hardware descriptors as fit into the FIFO and ring the doorbell.
void BamDma::bam_start_dma(Runner& r, BamChan& c) {
  if (!c.initialized) bam_chan_init_hw(r, c);
  r.charge(m_costs(cpu::Cost::bam_start_dma));
  if (c.cfg.dir == DmaDir::mem_to_dev && c.cfg.scratchpad && !c.issued.empty()) {
    if (!c.locked && c.lock_next) {
      c.issued.push_front(bam_make_lock_desc(r, c, true));
      c.locked = true;
      c.unlock_queued = false;
      ++c.stats.lock_pairs;
    }
    // The series appends UNLOCK at once; a client holding the lock for a batch, with its last.
    if (c.locked && !c.unlock_queued && !c.keep_lock) {
      c.issued.push_back(bam_make_lock_desc(r, c, false));
      c.unlock_queued = true;
    }
  }
  std::uint32_t avail = MAX_DESCRIPTORS - c.in_fifo;
  bool loaded_any = false;
  while (!c.issued.empty() && avail > 0) {
    BamDescPtr d = std::move(c.issued.front());
    c.issued.pop_front();
    const std::size_t left = d->desc.size() - d->loaded;
    const std::size_t n = std::min<std::size_t>(left, avail);
    for (std::size_t i = 0; i < n; ++i) {
      BamDescHw h = d->desc[d->loaded + i];
      if (d->lock) {
        c.lock_slot = c.tail;
        c.lock_unseen = true;
      }
      if (i + 1 == n) {
        if (d->loaded + n == d->desc.size()) {
          h.flags = static_cast<std::uint16_t>(h.flags | d->flags);
          // An interrupt where software must hear back: a callback, or the last issued work.
          const bool quiet = !c.cfg.unlock_interrupt && (h.flags & DESC_FLAG_UNLOCK);
          if (c.cfg.interrupts && !quiet && !(h.flags & DESC_FLAG_EOT) && (d->callback || c.issued.empty()))
            h.flags = static_cast<std::uint16_t>(h.flags | DESC_FLAG_INT);
        } else {
          if (c.cfg.interrupts)
            h.flags = static_cast<std::uint16_t>(h.flags | DESC_FLAG_INT);  // FIFO full: ask to be told
        }
      }
      std::memcpy(c.fifo.ptr + std::size_t{c.tail} * sizeof(BamDescHw), &h, sizeof h);
      c.tail = (c.tail + 1) % kRingSlots;
      r.charge(m_costs(cpu::Cost::bam_fifo_per_desc));
    }
    r.charge(m_costs(cpu::Cost::bam_start_dma_desc));
    d->xfer_len = n;
    d->loaded += n;
    c.in_fifo += static_cast<std::uint32_t>(n);
    avail -= static_cast<std::uint32_t>(n);
    c.stats.hw_descriptors += n;
    if (d->loaded == n) ++c.stats.async_descriptors;
    c.active.push_back(std::move(d));
    loaded_any = true;
  }
  if (loaded_any) {
    // wmb() then the doorbell: the new tail offset in bytes. The BAM starts now, so the CPU
    // time spent up to here must have passed.
    r.sync();
    m_host.writel(r, reg(BAM_P_EVNT_REG(c.id)), c.tail * BAM_DESC_BYTES);
    ++c.stats.doorbells;
  }
}

void BamDma::bam_dma_free_desc(Runner& r, BamAsyncDesc& d) {
  if (d.ce_coherent) {  // the channel keeps its coherent element
    d.ce_buf = {};
    d.ce_coherent = false;
    r.charge(m_costs.as("bam_dma_free_lock_desc", cpu::Cost::kfree));
    return;
  }
  if (d.ce_buf) {
    // The series' bam_dma_free_lock_desc (or bam_dma_free_desc when terminate_all finds it).
    dma::dma_unmap_sg(r, m_kernel.dma(), ce_buf_shape(d.ce_buf), dma::DmaDir::to_device);
    m_ce_bufs.push_back(d.ce_buf);
    d.ce_buf = {};
    r.charge(m_costs.as("bam_dma_free_lock_desc", cpu::Cost::kfree));
    return;
  }
  r.charge(m_costs(cpu::Cost::kfree));
}

void BamDma::fail_channel(Runner& r, BamChan& c, const std::string& why) {
  c.error = why;
  for (auto* q : {&c.active, &c.issued}) {
    for (auto& d : *q) bam_dma_free_desc(r, *d);
    q->clear();
  }
  c.in_fifo = 0;
  c.locked = c.unlock_queued = c.lock_unseen = false;
  c.initialized = false;  // the next transfer resets the pipe (bam_chan_init_hw)
  if (c.on_error) c.on_error(r, why);
}

// bam_dma_irq -> process_channel_irqs, in hardirq context.
void BamDma::bam_dma_irq(Runner& r) {
  ++m_irq_stats.hardirqs;
  r.charge(m_costs(cpu::Cost::bam_dma_irq));
  // Which completions this call sees is decided here (the UNLOCK's race, v20-series.md section 4):
  // the read samples the register at its own time, never up to cpu.sync_quantum early.
  r.sync();
  const std::uint32_t srcs = m_host.readl(r, reg(BAM_IRQ_SRCS_EE(m_ee)));
  if (srcs & BAM_IRQ) {
    const std::uint32_t st = m_host.readl(r, reg(BAM_IRQ_STTS));
    m_host.writel(r, reg(BAM_IRQ_CLR), st);
  }
  for (unsigned i = 0; i < m_chans.size(); ++i) {
    if (!(srcs & P_IRQ & (1u << i))) continue;
    BamChan& c = m_chans[i];
    r.charge(m_costs(cpu::Cost::process_channel_irqs));
    const std::uint32_t pipe_stts = m_host.readl(r, reg(BAM_P_IRQ_STTS(i)));
    m_host.writel(r, reg(BAM_P_IRQ_CLR(i)), pipe_stts);
    m_irq_stats.pipe_events += static_cast<std::uint64_t>(__builtin_popcount(pipe_stts));
    if (pipe_stts & P_ERR) {
      fail_channel(r, c, fmt::format("BAM pipe {} error (P_IRQ_STTS=0x{:x})", i, pipe_stts));
      continue;
    }
    const std::uint32_t offset = (m_host.readl(r, reg(BAM_P_SW_OFSTS(i))) & 0xFFFFu) / BAM_DESC_BYTES;
    std::uint32_t avail = (offset + kRingSlots - c.head) % kRingSlots;
    bool completed = false;
    while (avail > 0 && !c.active.empty()) {
      BamAsyncDesc& d = *c.active.front();
      if (avail < d.xfer_len) break;  // this transfer's batch is not all consumed yet
      avail -= static_cast<std::uint32_t>(d.xfer_len);
      c.head = static_cast<std::uint32_t>((c.head + d.xfer_len) % kRingSlots);
      c.in_fifo -= static_cast<std::uint32_t>(d.xfer_len);
      BamDescPtr done = std::move(c.active.front());
      c.active.pop_front();
      r.charge(m_costs(cpu::Cost::bam_retire_desc));
      // The series' descriptor adds a line to the three lines.bam_retire_desc counts: its flags,
      // read at its end (instruction-counts.md, lines moved between cores).
      if (m_series && m_costs.cores_differ) r.charge(m_costs.lines_moved("process_channel_irqs", 1));
      if (done->lock || done->unlock) {
        // The series frees LOCK/UNLOCK descriptors right here, in hardirq context.
        if (done->unlock) c.locked = c.unlock_queued = false;
        bam_dma_free_desc(r, *done);
      } else if (done->loaded < done->desc.size()) {
        done->xfer_len = 0;
        c.issued.push_front(std::move(done));  // the rest goes in when the FIFO has room
      } else {
        // vchan_cookie_complete: the channel's completion work runs in softirq context.
        c.completed.emplace_back(done->callback, DmaResult{});
        completed = true;
      }
    }
    if (completed && !c.vchan_scheduled) {
      c.vchan_scheduled = true;
      m_kernel.tasklet_schedule(r, "vchan_complete", [this, &c](Runner& s) { vchan_complete(s, c); });
    }
  }
  if ((srcs & P_IRQ) && !m_tasklet_scheduled) {
    m_tasklet_scheduled = true;
    // The series' 03/14 queues the same work on system_bh_highpri_wq instead of a tasklet.
    if (m_series) {
      m_kernel.queue_bh_work(r, "bam_dma_work", [this](Runner& s) { dma_tasklet(s); });
    } else {
      m_kernel.tasklet_schedule(r, "dma_tasklet", [this](Runner& s) { dma_tasklet(s); });
    }
  }
}

// vchan_complete: client callbacks, then the descriptors are freed.
void BamDma::vchan_complete(Runner& r, BamChan& c) {
  c.vchan_scheduled = false;
  auto& batch = c.completing;  // callbacks may complete more on this channel meanwhile
  batch.swap(c.completed);
  for (auto& [cb, res] : batch) {
    r.charge(m_costs(cpu::Cost::vchan_complete));
    if (cb) cb(r, res);
    r.charge(m_costs(cpu::Cost::kfree));
  }
  batch.clear();
}

// dma_tasklet: load more work where the FIFO has room.
void BamDma::dma_tasklet(Runner& r) {
  m_tasklet_scheduled = false;
  r.charge(m_costs.as(m_series ? "bam_dma_work" : "dma_tasklet", cpu::Cost::bam_channel_scan));
  for (BamChan& c : m_chans)
    if (c.initialized && !c.issued.empty() && c.in_fifo < MAX_DESCRIPTORS) bam_start_dma(r, c);
}

bool BamDma::poll_done(Runner& r, BamChan& c) {
  return m_host.readl(r, reg(BAM_P_SW_OFSTS(c.id))) == c.tail * BAM_DESC_BYTES;
}

void BamDma::bam_release_lock(Runner& r, BamChan& c) {
  c.keep_lock = false;
  if (!c.locked || c.unlock_queued || !c.cfg.scratchpad || !c.initialized) return;
  c.issued.push_back(bam_make_lock_desc(r, c, false));
  c.unlock_queued = true;
  if (c.in_fifo < MAX_DESCRIPTORS) bam_start_dma(r, c);
}

void BamDma::set_interrupts(Runner& r, BamChan& c, bool on) {
  c.cfg.interrupts = on;
  if (!c.initialized) return;  // bam_chan_init_hw writes P_IRQ_EN from cfg
  if (on) m_host.writel(r, reg(BAM_P_IRQ_CLR(c.id)), ~0u);
  m_host.writel(r, reg(BAM_P_IRQ_EN(c.id)), on ? P_DEFAULT_IRQS_EN : P_ERR);
}

bool BamDma::lock_acquired(Runner& r, BamChan& c) {
  if (!c.lock_unseen) return true;
  const std::uint32_t ofsts = (m_host.readl(r, reg(BAM_P_SW_OFSTS(c.id))) & 0xFFFFu) / BAM_DESC_BYTES;
  // Past the LOCK's slot: at most the descriptors loaded since are behind it.
  const std::uint32_t past = (ofsts + kRingSlots - c.lock_slot) % kRingSlots;
  if (past == 0) return false;
  c.lock_unseen = false;
  return true;
}

// bam_dma_terminate_all: a pipe that still holds descriptors is reset; all are dropped.
void BamDma::bam_dma_terminate_all(Runner& r, BamChan& c) {
  r.charge(m_costs(cpu::Cost::bam_terminate_all));
  const bool reset = !c.active.empty() && c.initialized;
  if (reset) bam_chan_init_hw(r, c);  // the pipe's reset releases a lock it holds
  for (auto* q : {&c.active, &c.issued}) {
    for (auto& d : *q) bam_dma_free_desc(r, *d);
    q->clear();
  }
  c.submitted.clear();
  c.in_fifo = 0;
  c.head = c.tail;
  // A lock held open for a batch (no UNLOCK queued) survives when the pipe was not reset.
  c.locked = c.locked && !reset && !c.unlock_queued;
  c.unlock_queued = false;
  c.lock_unseen = false;
}

}  // namespace qcesim::bam
