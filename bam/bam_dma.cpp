#include "bam/bam_dma.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace qcesim::bam {

BamDma::BamDma(cpu::Host& host, std::uint64_t base, unsigned ee, unsigned num_pipes)
    : m_host(host), m_base(base), m_ee(ee), m_chans(num_pipes) {
  for (unsigned i = 0; i < num_pipes; ++i) m_chans[i].id = i;
}

BamDma::~BamDma() = default;

BamChan& BamDma::chan(unsigned pipe) {
  if (pipe >= m_chans.size()) throw std::out_of_range(fmt::format("bam_dma: no pipe {}", pipe));
  return m_chans[pipe];
}

void BamDma::slave_config(BamChan& c, const BamSlaveConfig& cfg) { c.cfg = cfg; }

// bam_chan_init_hw: reset the pipe and point it at its descriptor FIFO.
void BamDma::init_hw(BamChan& c) {
  if (!c.fifo) c.fifo = m_host.dma_alloc(BAM_DESC_FIFO_SIZE, 4096);
  m_host.writel(reg(BAM_P_RST(c.id)), 1);
  m_host.writel(reg(BAM_P_RST(c.id)), 0);
  m_host.writel(reg(BAM_P_DESC_FIFO_ADDR(c.id)), static_cast<std::uint32_t>(c.fifo.addr));
  m_host.writel(reg(BAM_P_FIFO_SIZES(c.id)), BAM_DESC_FIFO_SIZE);
  m_host.writel(reg(BAM_P_IRQ_EN(c.id)), P_DEFAULT_IRQS_EN);
  const std::uint32_t msk = m_host.readl(reg(BAM_IRQ_SRCS_MSK_EE(m_ee)));
  m_host.writel(reg(BAM_IRQ_SRCS_MSK_EE(m_ee)), msk | (1u << c.id));
  std::uint32_t ctrl = P_EN | P_SYS_MODE;
  if (c.cfg.dir == DmaDir::dev_to_mem) ctrl |= P_DIRECTION;
  m_host.writel(reg(BAM_P_CTRL(c.id)), ctrl);
  c.head = c.tail = c.in_fifo = 0;
  c.locked = false;
  c.error.reset();
  c.initialized = true;
  ++c.stats.resets;
}

std::unique_ptr<BamAsyncDesc> BamDma::prep_slave_sg(BamChan& c, const std::vector<ScatterEntry>& sg, unsigned flags,
                                                    DmaCallback cb) {
  auto d = std::make_unique<BamAsyncDesc>();
  for (const ScatterEntry& e : sg) {
    // Entries longer than BAM_FIFO_SIZE are split, as the hardware caps a descriptor.
    std::uint32_t off = 0;
    do {
      const std::uint32_t n = std::min<std::uint32_t>(e.len - off, BAM_FIFO_SIZE);
      BamDescHw h{static_cast<std::uint32_t>(e.addr + off), static_cast<std::uint16_t>(n),
                  static_cast<std::uint16_t>((flags & DMA_PREP_CMD) ? DESC_FLAG_CMD : 0)};
      d->desc.push_back(h);
      off += n;
    } while (off < e.len);
  }
  if (flags & DMA_PREP_INTERRUPT) d->flags |= DESC_FLAG_EOT;
  if (flags & DMA_PREP_FENCE) d->flags |= DESC_FLAG_NWD;
  d->callback = std::move(cb);
  (void)c;
  return d;
}

void BamDma::submit(BamChan& c, std::unique_ptr<BamAsyncDesc> d) { c.submitted.push_back(std::move(d)); }

void BamDma::issue_pending(BamChan& c) {
  for (auto& d : c.submitted) c.issued.push_back(std::move(d));
  c.submitted.clear();
  if (!c.issued.empty() && c.in_fifo < MAX_DESCRIPTORS) start_dma(c);
}

// The locking series: one command element writing 0 to the scratchpad register, with
// CMD|LOCK or CMD|UNLOCK, in its own DMA-mapped buffer.
std::unique_ptr<BamAsyncDesc> BamDma::make_lock_desc(BamChan& c, bool lock) {
  auto d = std::make_unique<BamAsyncDesc>();
  d->ce_buf = m_host.dma_alloc(sizeof(BamCmdElement), 16);
  const BamCmdElement ce = bam_prep_ce(static_cast<std::uint32_t>(*c.cfg.scratchpad), BAM_WRITE_COMMAND, 0);
  std::memcpy(d->ce_buf.ptr, &ce, sizeof ce);
  d->desc.push_back({static_cast<std::uint32_t>(d->ce_buf.addr), sizeof(BamCmdElement),
                     static_cast<std::uint16_t>(DESC_FLAG_CMD | (lock ? DESC_FLAG_LOCK : DESC_FLAG_UNLOCK))});
  d->lock = lock;
  d->unlock = !lock;
  return d;
}

// bam_start_dma: copy as many hardware descriptors as fit into the FIFO and ring the doorbell.
void BamDma::start_dma(BamChan& c) {
  if (!c.initialized) init_hw(c);
  if (c.cfg.dir == DmaDir::mem_to_dev && c.cfg.scratchpad && !c.locked && !c.issued.empty()) {
    c.issued.push_front(make_lock_desc(c, true));
    c.issued.push_back(make_lock_desc(c, false));
    c.locked = true;
    ++c.stats.lock_pairs;
  }
  std::uint32_t avail = MAX_DESCRIPTORS - c.in_fifo;
  bool loaded_any = false;
  while (!c.issued.empty() && avail > 0) {
    std::unique_ptr<BamAsyncDesc> d = std::move(c.issued.front());
    c.issued.pop_front();
    const std::size_t left = d->desc.size() - d->loaded;
    const std::size_t n = std::min<std::size_t>(left, avail);
    for (std::size_t i = 0; i < n; ++i) {
      BamDescHw h = d->desc[d->loaded + i];
      const bool last_of_batch = i + 1 == n;
      if (last_of_batch) {
        if (d->loaded + n == d->desc.size()) {
          h.flags = static_cast<std::uint16_t>(h.flags | d->flags);
          // An interrupt where software must hear back: a callback, or the last issued work.
          if (!(h.flags & DESC_FLAG_EOT) && (d->callback || c.issued.empty()))
            h.flags = static_cast<std::uint16_t>(h.flags | DESC_FLAG_INT);
        } else {
          h.flags = static_cast<std::uint16_t>(h.flags | DESC_FLAG_INT);  // FIFO full: ask to be told
        }
      }
      std::memcpy(c.fifo.ptr + std::size_t{c.tail} * sizeof(BamDescHw), &h, sizeof h);
      c.tail = (c.tail + 1) % kRingSlots;
    }
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
    // wmb() then the doorbell: the new tail offset in bytes.
    m_host.writel(reg(BAM_P_EVNT_REG(c.id)), c.tail * static_cast<std::uint32_t>(sizeof(BamDescHw)));
    ++c.stats.doorbells;
  }
}

void BamDma::free_desc(BamAsyncDesc& d) {
  if (d.ce_buf) m_host.dma_free(d.ce_buf);
  d.ce_buf = {};
}

void BamDma::fail_channel(BamChan& c, const std::string& why) {
  c.error = why;
  DmaResult r{false, why};
  for (auto* q : {&c.active, &c.issued}) {
    for (auto& d : *q) {
      if (d->callback) m_completed.emplace_back(d->callback, r);
      free_desc(*d);
    }
    q->clear();
  }
  c.in_fifo = 0;
  c.locked = false;
  c.initialized = false;  // the next transfer resets the pipe (bam_chan_init_hw)
}

// bam_dma_irq -> process_channel_irqs.
std::uint32_t BamDma::irq() {
  ++m_irq_stats.hardirqs;
  const std::uint32_t srcs = m_host.readl(reg(BAM_IRQ_SRCS_EE(m_ee)));
  if (srcs & BAM_IRQ) {
    const std::uint32_t st = m_host.readl(reg(BAM_IRQ_STTS));
    m_host.writel(reg(BAM_IRQ_CLR), st);
  }
  for (unsigned i = 0; i < m_chans.size(); ++i) {
    if (!(srcs & P_IRQ & (1u << i))) continue;
    BamChan& c = m_chans[i];
    const std::uint32_t pipe_stts = m_host.readl(reg(BAM_P_IRQ_STTS(i)));
    m_host.writel(reg(BAM_P_IRQ_CLR(i)), pipe_stts);
    m_irq_stats.pipe_events += static_cast<std::uint64_t>(__builtin_popcount(pipe_stts));
    if (pipe_stts & P_ERR) {
      fail_channel(c, fmt::format("BAM pipe {} error (P_IRQ_STTS=0x{:x})", i, pipe_stts));
      continue;
    }
    const std::uint32_t offset = (m_host.readl(reg(BAM_P_SW_OFSTS(i))) & 0xFFFFu) / BAM_DESC_BYTES;
    std::uint32_t avail = (offset + kRingSlots - c.head) % kRingSlots;
    while (avail > 0 && !c.active.empty()) {
      BamAsyncDesc& d = *c.active.front();
      if (avail < d.xfer_len) break;  // this transfer's batch is not all consumed yet
      avail -= static_cast<std::uint32_t>(d.xfer_len);
      c.head = static_cast<std::uint32_t>((c.head + d.xfer_len) % kRingSlots);
      c.in_fifo -= static_cast<std::uint32_t>(d.xfer_len);
      std::unique_ptr<BamAsyncDesc> done = std::move(c.active.front());
      c.active.pop_front();
      if (done->lock || done->unlock) {
        // The series frees LOCK/UNLOCK descriptors right here, in hardirq context.
        if (done->unlock) c.locked = false;
        free_desc(*done);
      } else if (done->loaded < done->desc.size()) {
        done->xfer_len = 0;
        c.issued.push_front(std::move(done));  // the rest goes in when the FIFO has room
      } else if (done->callback) {
        m_completed.emplace_back(done->callback, DmaResult{});  // vchan_cookie_complete
      }
    }
  }
  return srcs;
}

void BamDma::run_bh() {
  // vchan_complete: client callbacks.
  auto completed = std::move(m_completed);
  m_completed.clear();
  for (auto& [cb, res] : completed) cb(res);
  // dma_tasklet: load more work where the FIFO has room.
  for (BamChan& c : m_chans)
    if (c.initialized && !c.issued.empty() && c.in_fifo < MAX_DESCRIPTORS) start_dma(c);
}

// bam_dma_terminate_all: a pipe that still holds descriptors is reset; all are dropped.
void BamDma::terminate_all(BamChan& c) {
  if (!c.active.empty() && c.initialized) init_hw(c);
  for (auto* q : {&c.active, &c.issued}) {
    for (auto& d : *q) free_desc(*d);
    q->clear();
  }
  c.submitted.clear();
  c.in_fifo = 0;
  c.head = c.tail;
  c.locked = false;
}

}  // namespace qcesim::bam
