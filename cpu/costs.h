// CPU time of the kernel primitives and driver functions the flows charge, named after the
// kernel functions they stand for. The platform profile fills them in (scenarios/*.json); all
// are zero for the untimed functional emulator. Hardware latencies live with their blocks.
#pragma once

#include <systemc>

namespace qcesim::cpu {

struct Costs {
  using T = sc_core::sc_time;
  // Interrupts, softirqs, workqueues, scheduling.
  T irq_entry;        // gic_handle_irq + irq_enter: exception entry, GIC acknowledge, irqtime accounting
  T irq_exit;         // irq_exit + EOI: softirq check, exception return
  T softirq_entry;    // __do_softirq: one pass of the softirq loop
  T tasklet_action;   // running one tasklet (or one BH work item)
  T tasklet_schedule; // raising it from hardirq
  T queue_work;       // queue_work_on: putting an item on a workqueue
  T try_to_wake_up;   // waking a sleeping thread (charged to the waker)
  T context_switch;   // __schedule + switch-in (charged to the thread switched in)
  T gic_latency;      // line to CPU exception: not CPU time
  T idle_exit;        // extra delay when the interrupt finds its core idle (WFI/cpuidle exit): not CPU time
  T sync_quantum;     // a device read syncs the CPU only once this much time is owed (0: always)
  // Memory-mapped I/O and DMA mapping.
  T readl;                  // one device-register read (an uncached round trip on the NoC)
  T writel;                 // one device-register write (posted, with the implied barrier)
  T dma_map_sg;             // per call, plus per entry below
  T dma_map_sg_per_entry;   // IOMMU map of one scatterlist entry
  T dma_unmap_sg;           // per call
  T dma_unmap_sg_per_entry; // IOMMU unmap (with TLB invalidation) of one entry
  T kmalloc;
  T kfree;
  // dmaengine / bam_dma.
  T bam_prep_slave_sg;      // per call, plus per hardware descriptor below
  T bam_prep_per_desc;
  T bam_start_dma;          // per call, plus per descriptor copied into the FIFO below
  T bam_fifo_per_desc;
  T process_channel_irqs;   // per flagged pipe, besides its MMIO
  T vchan_complete;         // per completed descriptor: callback dispatch and free
  T bam_terminate_all;
  // qce driver and crypto API.
  T crypto_ahash_digest;    // the caller's side of one request, up to the driver
  T qce_handle_queue;
  T qce_ahash_async_req_handle;
  T qce_write_ce;           // the series: building one command element (replaces writel)
  T qce_ahash_done;
  T qce_req_done_work;
  T crypto_request_complete;
  // The CPU path: kernel-mode NEON around a CE hash.
  T kernel_neon_begin;
  T kernel_neon_end;
  T sha256_lib_call;  // the SHA-256 library call around the CE transform (init, update, final)
};

// n times a per-item cost.
inline sc_core::sc_time per(std::size_t n, const sc_core::sc_time& each) { return each * static_cast<double>(n); }

}  // namespace qcesim::cpu
