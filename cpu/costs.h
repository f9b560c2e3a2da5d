// The CPU cost items: what the kernel primitives and driver functions in the flows cost. Each
// item is named once, in QCESIM_COST_ITEMS below: its field (the profile key is "cost.<field>",
// in Cortex-X4 cycles for CPU work or a time unit for a wait), the kernel function it is charged
// as (the label in profiles, timelines and
// flame graphs), and one line saying what that function does for the request (explain's
// narration, docs/profile.md). The profile must give every item and no other `cost.*` key.
// All are zero for the untimed functional emulator. Hardware latencies live with their blocks.
//
// Adding an item: a line here, "cost.<field>" in each profile, and the charge site's
// r.charge(costs(Cost::<field>)).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <systemc>
#include <vector>

#include "cpu/core.h"
#include "cpu/core_type.h"
#include "cpu/dma_iommu.h"

namespace qcesim::model {
class Profile;
}

namespace qcesim::cpu {

// X(field, kernel function label, what it does)
#define QCESIM_COST_ITEMS(X)                                                                                           \
  /* Interrupts, softirqs, workqueues, scheduling. */                                                                  \
  X(irq_exception, "el1_interrupt",                                                                                    \
    "the exception's entry and return, outside the hardirq clock: the vector entry, the ERET, the barriers and "       \
    "counter reads around the irqtime accounting (serialising: core cycles, whatever the core's IPC)")                 \
  X(irq_enter, "irq_enter_rcu",                                                                                        \
    "interrupt entry before the hardirq clock starts (account_hardirq_enter): kernel_entry's register save, "          \
    "enter_from_kernel_mode, irq_enter_rcu (tick_irq_enter on an idle core); counted as the interrupted context, "     \
    "idle when the interrupt woke the core")                                                                           \
  X(tick_irq_enter, "tick_irq_enter",                                                                                  \
    "what an interrupt on an idle core adds before the hardirq clock: ct_irq_enter, tick_irq_enter, "                  \
    "tick_nohz_stop_idle's clock read; counted as idle")                                                               \
  X(gic_iar_eoi, "gic_handle_irq",                                                                                     \
    "the GIC's acknowledge (ICC_IAR1_EL1 read, DSB SY, ISB) and end of interrupt (ICC_EOIR1_EL1 write, ISB) "          \
    "(serialising: core cycles, whatever the core's IPC)")                                                             \
  X(irq_entry, "gic_handle_irq",                                                                                       \
    "interrupt entry: the GIC delivered an interrupt (the BAM's, or another CPU's IPI) to this core; inside the "      \
    "hardirq clock, the switch to the IRQ stack, gic_handle_irq, the irq_desc lookup and handle_fasteoi_irq up to "    \
    "the handler, the EOI, irq_exit_rcu up to account_hardirq_exit")                                                   \
  X(irq_exit, "irq_exit_rcu",                                                                                          \
    "interrupt exit after the hardirq clock stops: the accounting's update, the softirq hand-off, tick_irq_exit, "     \
    "exit_to_kernel_mode and the register restore; counted as the interrupted context")                                \
  X(softirq_entry, "__do_softirq", "softirq processing on irq exit, inside the softirq clock: one pass's own work")    \
  X(softirq_edge, "__do_softirq",                                                                                      \
    "handle_softirqs' prologue and epilogue outside account_softirq_enter and account_softirq_exit; counted as the "   \
    "interrupted context (ksoftirqd's all counts as softirq)")                                                         \
  X(tasklet_action, "tasklet_action",                                                                                  \
    "runs one tasklet or BH work item (dispatch only), charged as the item's function")                                \
  X(tasklet_schedule, "tasklet_schedule",                                                                              \
    "defers the completion to softirq (bam_dma's tasklet or BH work) to leave hardirq quickly")                        \
  X(bh_queue_work, "queue_work_on", "queues a work item on a BH workqueue (system_bh_highpri_wq) from hardirq")        \
  X(bh_work_dispatch, "bh_worker",                                                                                     \
    "runs one BH workqueue item in softirq (dispatch only), charged as the item's function")                           \
  X(queue_work, "queue_work_on",                                                                                       \
    "queues the request's completion on a workqueue, for a kworker to run in process context")                         \
  X(try_to_wake_up, "try_to_wake_up", "wakes a sleeping thread on this CPU: the kworker, or a caller here")            \
  X(try_to_wake_up_remote, "try_to_wake_up",                                                                           \
    "wakes a thread sleeping on another CPU: queues it on that CPU's wake list and sends the IPI")                     \
  X(context_switch, "__schedule", "context switch into the thread that was woken")                                     \
  X(context_switch_out, "__schedule",                                                                                  \
    "the thread going to sleep switches this CPU to its idle task, with interrupts off to the switch's end")           \
  X(process_one_work, "process_one_work", "the kworker takes one work item off its pool's list and runs it")           \
  X(sched_ttwu_pending, "sched_ttwu_pending",                                                                          \
    "the woken task's CPU takes the waker's IPI and activates the task queued on its wake list")                       \
  /* Memory-mapped I/O and DMA mapping. */                                                                             \
  X(readl, "readl", "an MMIO register read (status, IRQ sources): the CPU waits for the device's answer")              \
  X(writel, "writel",                                                                                                  \
    "an MMIO register write from the CPU: QCE set-up and GO in mainline, doorbells and IRQ clears in bam_dma "         \
    "(posted, no wait)")                                                                                               \
  X(dma_map_sg, "dma_map_sg",                                                                                          \
    "the dma-mapping call for a scatterlist: iommu_dma_map_sg's (or dma-direct's) walk and bookkeeping")               \
  X(dma_map_sg_entry, "dma_map_sg",                                                                                    \
    "per scatterlist entry: the cache-sync, granule-alignment and finalise loops (charged as dma_map_sg)")             \
  X(alloc_iova_fast, "alloc_iova_fast", "takes an IOVA range for the mapping from the per-CPU rcache")                 \
  X(arm_lpae_map_pages, "arm_lpae_map_pages",                                                                          \
    "one io-pgtable map call: walks the IOMMU page table to the leaf (per physically contiguous run: every small "     \
    "scatterlist entry is its own)")                                                                                   \
  X(arm_lpae_init_pte, "__arm_lpae_init_pte", "writes one page's entry in the IOMMU page table (per page mapped)")     \
  X(dcache_clean_poc, "dcache_clean_poc",                                                                              \
    "cleans one 64-byte cache line to the point of coherency before a non-coherent device reads it (per line; a "      \
    "wait)")                                                                                                           \
  X(dsb_st, "dsb",                                                                                                     \
    "the barrier after a page-table update: waits until the new entries are visible to the SMMU's "                    \
    "coherent walker (per io-pgtable map call; a wait)")                                                               \
  X(dsb_poc, "dsb",                                                                                                    \
    "the barrier that ends a cache-maintenance call: waits until its lines have reached the point of coherency (per "  \
    "call: per scatterlist entry, per page-table update when the SMMU's walker is not coherent; a wait)")              \
  X(dma_unmap_sg, "dma_unmap_sg",                                                                                      \
    "the dma-mapping call that unmaps a scatterlist: iommu_dma_unmap_sg's (or dma-direct's) bookkeeping")              \
  X(dma_unmap_sg_entry, "dma_unmap_sg", "per scatterlist entry: the cache-sync loop (charged as dma_unmap_sg)")        \
  X(arm_lpae_unmap_pages, "arm_lpae_unmap_pages", "clears the IOMMU page-table entry of one page (per page unmapped)") \
  X(arm_smmu_tlb_inv, "arm_smmu_tlb_inv_range_s1",                                                                     \
    "invalidates one page's SMMU TLB entry in strict mode, a TLBIVA register write (per page; a wait)")                \
  X(arm_smmu_tlb_sync, "arm_smmu_tlb_sync_context",                                                                    \
    "waits until the SMMU has finished the invalidations (once per unmap call in strict mode; a wait)")                \
  X(dcache_inval_poc, "dcache_inval_poc",                                                                              \
    "invalidates one cache line the device wrote so the CPU reads fresh data (per line; a wait)")                      \
  X(free_iova_fast, "free_iova_fast", "returns the IOVA range to the per-CPU rcache")                                  \
  X(kmalloc, "kmalloc", "allocates a dmaengine descriptor")                                                            \
  X(kfree, "kfree", "frees a finished dmaengine descriptor")                                                           \
  /* dmaengine / bam_dma. */                                                                                           \
  X(bam_prep_slave_sg, "bam_prep_slave_sg", "bam_dma turns the scatterlist into BAM hardware descriptors")             \
  X(bam_prep_per_desc, "bam_prep_slave_sg", "writing one BAM hardware descriptor (charged as bam_prep_slave_sg)")      \
  X(bam_start_dma, "bam_start_dma", "issue_pending: copies descriptors into the pipe's FIFO and rings the doorbell")   \
  X(bam_start_dma_desc, "bam_start_dma",                                                                               \
    "per transfer moved to the active list: list handling and the INT/EOT flag logic (charged as bam_start_dma)")      \
  X(bam_fifo_per_desc, "bam_start_dma",                                                                                \
    "copying one descriptor into the write-combined FIFO (charged as bam_start_dma)")                                  \
  X(bam_dma_irq, "bam_dma_irq",                                                                                        \
    "the BAM's interrupt handler, per interrupt: which pipes raised it, the deferred work")                            \
  X(process_channel_irqs, "process_channel_irqs",                                                                      \
    "per pipe that raised the interrupt: its status cleared, its descriptor offset read, the list walked")             \
  X(bam_retire_desc, "process_channel_irqs",                                                                           \
    "per finished transfer: retired from the active list, its cookie completed (charged as process_channel_irqs)")     \
  X(bam_channel_scan, "dma_tasklet",                                                                                   \
    "bam_dma's deferred work after each interrupt: every channel's lock taken to look for work waiting for FIFO room") \
  X(vchan_complete, "vchan_complete", "virt-dma completes the finished descriptors and calls the client's callback")   \
  X(bam_terminate_all, "bam_dma_terminate_all",                                                                        \
    "dmaengine_terminate_all on a channel: the driver stops its RX and TX channels")                                   \
  /* qce driver and crypto API. */                                                                                     \
  X(svc_exception, "el0_svc",                                                                                          \
    "a system call's exception: the SVC's entry and the ERET back to user space with their barriers "                  \
    "(serialising: core cycles, whatever the core's IPC)")                                                             \
  X(syscall_entry_exit, "el0_svc_common",                                                                              \
    "a system call's entry and exit work: the dispatch through the syscall table, the exit's pending-work check")      \
  X(af_alg_hash_send, "hash_sendmsg",                                                                                  \
    "AF_ALG's send of a message to a hash socket: the socket looked up, the LSM hook, the socket lock, the user's "    \
    "page pinned into a scatterlist and released after the crypto call")                                               \
  X(af_alg_hash_recv, "hash_recvmsg",                                                                                  \
    "AF_ALG's read of the digest: the read path to the socket, its lock, the result buffer allocated, the digest "     \
    "copied to user space, the buffer freed")                                                                          \
  X(af_alg_skcipher_send, "skcipher_sendmsg",                                                                          \
    "AF_ALG's send of a request's text to an skcipher socket: the system call's way to the socket, the socket lock, "  \
    "the 4 KiB table for the text's pages set up")                                                                     \
  X(af_alg_skcipher_control, "af_alg_cmsg_send",                                                                       \
    "a request's operation and IV sent as control messages (sendmsg, not send): the message header and iovec "         \
    "imported, the control data copied into a buffer and parsed, the IV copied to the socket")                         \
  X(af_alg_skcipher_recv, "skcipher_recvmsg",                                                                          \
    "AF_ALG's read of an skcipher result: the request allocated, the user's output pages listed, the text's "          \
    "pages pulled into the source list, the crypto call waited for, everything released")                              \
  X(af_alg_skcipher_page, "af_alg_pull_tsgl",                                                                          \
    "per page of text through an AF_ALG skcipher socket: the send loop around its copy, its entries in the "           \
    "read's lists, the free loops")                                                                                    \
  X(af_alg_rsgl, "af_alg_get_rsgl", "each further output list of an AF_ALG read (16 pages per list)")                  \
  X(alloc_pages, "alloc_pages", "one page from the page allocator's per-CPU list (AF_ALG: a page for the text)")       \
  X(free_pages, "free_unref_page",                                                                                     \
    "one page back to the page allocator's per-CPU list (AF_ALG: the text's page after the call)")                     \
  X(gup_call, "get_user_pages_fast",                                                                                   \
    "a call that pins user pages for the device (AF_ALG's output): the page-table walk's set-up")                      \
  X(gup_page, "get_user_pages_fast", "per user page pinned for the device and released after the call")                \
  X(aio_submit, "io_submit",                                                                                           \
    "an AIO read submitted (OpenSSL's afalg engine): the iocb copied and checked, its eventfd looked up, the "         \
    "read started on the socket")                                                                                      \
  X(aio_complete, "aio_complete",                                                                                      \
    "an AIO read's completion: the socket's callback, the event into the ring, the eventfd signalled, the iocb "       \
    "freed")                                                                                                           \
  X(eventfd_read, "eventfd_read", "the caller reads the eventfd the AIO completion signals")                           \
  X(aio_getevents, "io_getevents", "the caller collects the AIO event")                                                \
  X(cryptodev_crypt, "cryptodev_ioctl",                                                                                \
    "ioctl(CIOCCRYPT) into cryptodev-linux: the operation and IV copied in, the session looked up twice, the "         \
    "request run and waited for, the IV and operation copied back")                                                    \
  X(cryptodev_pin_call, "__get_userbuf",                                                                               \
    "cryptodev's pinning of a user buffer (one call in place, two for a separate output): the mmap lock and the "      \
    "VMA lookup of get_user_pages_remote")                                                                             \
  X(cryptodev_pin_page, "get_user_pages_remote",                                                                       \
    "per user page cryptodev pins through the slow page-table walk and releases after the call")                       \
  X(caller_overhead, "caller",                                                                                         \
    "the measured caller's time per request that no modelled kernel function accounts for (its harness is not "        \
    "published); fitted to P1 on SM8650, zero where nothing was measured")                                             \
  X(crypto_ahash_digest, "crypto_ahash_digest",                                                                        \
    "the caller asks the crypto API for a digest; the API picks the qce ahash driver")                                 \
  X(crypto_wait_req, "crypto_wait_req",                                                                                \
    "the caller's way from the started request to its sleep: the driver's return, crypto_wait_req, "                   \
    "wait_for_completion's lock and wait-queue entry, schedule(); a completion taken here finds it still running")     \
  X(qce_ahash_update, "qce_ahash_update",                                                                              \
    "the caller's crypto_ahash_init and crypto_ahash_update: the context reset, the message's last block held back "   \
    "for the final (copied to rctx->buf), the rest queued")                                                            \
  X(qce_ahash_final, "qce_ahash_final",                                                                                \
    "the caller's crypto_ahash_final: the held-back bytes copied to rctx->tmpbuf and queued as the last block")        \
  X(qce_handle_queue, "qce_handle_queue",                                                                              \
    "the qce core queues the request and starts it if the engine is free (one request in flight)")                     \
  X(qce_ahash_async_req_handle, "qce_ahash_async_req_handle",                                                          \
    "the sha driver sets up the request: scatterlists and the result buffer")                                          \
  X(qce_write_ce, "qce_write",                                                                                         \
    "adds a register write to a command descriptor (the locking series moves register I/O to BAM)")                    \
  X(qce_submit_cmd_desc, "qce_submit_cmd_desc",                                                                        \
    "the locking series: attaches the lock metadata to the command transfer and submits it (its map and prep apart)")  \
  X(qce_skcipher_crypt, "qce_skcipher_crypt",                                                                          \
    "the caller asks for an skcipher operation; the driver decides between the engine and the software fallback")      \
  X(qce_skcipher_async_req_handle, "qce_skcipher_async_req_handle",                                                    \
    "the skcipher driver sets up the request: the destination table with the result buffer, mappings")                 \
  X(qce_skcipher_done, "qce_skcipher_done",                                                                            \
    "the skcipher driver's DMA callback: unmaps, checks the status, copies the next IV out of the result dump")        \
  X(qce_aead_crypt, "qce_aead_crypt",                                                                                  \
    "the caller asks for an AEAD operation; the driver checks lengths and decides on the software fallback")           \
  X(qce_aead_async_req_handle, "qce_aead_async_req_handle",                                                            \
    "the aead driver sets up the request: CCM's B0 and formatted associated data, the tables, mappings")               \
  X(qce_aead_done, "qce_aead_done",                                                                                    \
    "the aead driver's DMA callback: unmaps, checks the status, writes or compares the tag")                           \
  X(qce_ahash_done, "qce_ahash_done",                                                                                  \
    "the sha driver's DMA callback: reads the result dump, copies the digest, checks the status")                      \
  X(qce_req_done_work, "qce_req_done_work",                                                                            \
    "the qce core's work item: finishes the request and frees the engine for the next")                                \
  X(qce_tasklet_req_done, "qce_tasklet_req_done",                                                                      \
    "the pre-2024 qce core's done tasklet: completes the request and starts the next one from softirq")                \
  X(crypto_request_complete, "crypto_request_complete", "calls the caller's completion callback: the digest is ready") \
  /* The CPU path: kernel-mode NEON around a CE hash. */                                                               \
  X(kernel_neon_begin, "kernel_neon_begin",                                                                            \
    "saves the task's FP/SIMD state so the kernel may use NEON/Crypto Extensions")                                     \
  X(kernel_neon_end, "kernel_neon_end", "gives FP/SIMD back to the task")                                              \
  X(sha256_lib_call, "sha256_lib_call",                                                                                \
    "the kernel's SHA-256 library entry: state set-up and final padding bookkeeping")                                  \
  /* The CPU path of a cipher request: the skcipher API around the mode's loop. */                                     \
  X(skcipher_walk, "skcipher_walk_virt",                                                                               \
    "the skcipher API around the CPU's cipher loop: crypto_skcipher_encrypt, the mode's glue, skcipher_walk_virt "     \
    "and skcipher_walk_done for the request's first page")                                                             \
  X(skcipher_walk_step, "skcipher_walk_done",                                                                          \
    "one more page of the request: the glue's loop, skcipher_walk_next and skcipher_walk_done")

enum class Cost : unsigned {
#define QCESIM_COST_ENUM(field, label, doc) field,
  QCESIM_COST_ITEMS(QCESIM_COST_ENUM)
#undef QCESIM_COST_ENUM
};

struct CostItem {
  Cost id;
  const char* field;  // the profile key is "cost." + field
  const char* label;  // the kernel function it is charged as
  const char* doc;
};

constexpr CostItem kCostItems[] = {
#define QCESIM_COST_ROW(field, label, doc) {Cost::field, #field, label, doc},
    QCESIM_COST_ITEMS(QCESIM_COST_ROW)
#undef QCESIM_COST_ROW
};
constexpr std::size_t kNumCosts = sizeof kCostItems / sizeof kCostItems[0];

constexpr const CostItem& cost_item(Cost c) { return kCostItems[static_cast<unsigned>(c)]; }
std::string cost_profile_key(Cost c);
// The item whose profile key is `key` ("cost.<field>"), or null.
const CostItem* cost_item_for_key(const std::string& key);
// The first item charged as `label`, or null: what explain says about a step.
const CostItem* cost_item_for_label(const std::string& label);

// n times a per-item cost.
inline sc_core::sc_time per(std::size_t n, const sc_core::sc_time& each) { return each * static_cast<double>(n); }

// What one call of an item costs: CPU work (an instruction count, run at the charging core's
// kernel IPC and clock, stretching when the governor lowers the clock) or a wait (a time that is
// the same on every core: a bus round trip, an SMMU sync, cache maintenance to the point of
// coherency).
struct CostDef {
  bool work = false;
  double instructions = 0;  // work
  sc_core::sc_time wait;    // a wait
  // Serialising events (exception entry and return, barriers, system registers): core cycles at
  // the core's clock whatever its IPC; they stretch with the clock like work.
  double cycles = 0;
  // Cache lines one call reads that the request's other core wrote last (lines.<field>): each a
  // transfer from that core's cache (cpu.line_transfer, a wait) when the caller's core and the
  // interrupt's differ, nothing when one core does both.
  double lines = 0;
};

struct Costs {
  using T = sc_core::sc_time;
  std::array<CostDef, kNumCosts> def{};  // indexed by Cost
  // The SoC's CPUs by number (cpu.cpus); empty: one core of zero cost (the untimed emulator).
  std::vector<CoreType> cpus;
  unsigned task_cpu = 0;  // where the benchmark task runs (cpu.task_cpu)
  // Timing the kernel model needs that is not CPU time of a function.
  T gic_latency;              // line to CPU exception
  T sync_quantum;             // a device read syncs the CPU only once this much time is owed (0: always)
  CpuPower power;             // the governors and idle states (the clock comes from each core's type)
  IommuConfig iommu;          // the dma-mapping layer's mode
  T line_transfer;            // one cache line from another core's cache (cpu.line_transfer)
  bool cores_differ = false;  // the caller's core (cpu.task_cpu) is not the interrupt's (cpu.irq_cpu)
  double cost_cv = 0;         // service-time variation of every CPU charge (cpu.cost_cv)
  std::uint64_t seed = 0;     // sim.seed: 0 runs every charge at its mean

  const CostDef& operator[](Cost c) const { return def[static_cast<unsigned>(c)]; }
  CostDef& operator[](Cost c) { return def[static_cast<unsigned>(c)]; }
  // The cache lines one call of item c takes from the request's other core, as a wait.
  T moved(Cost c) const { return cores_differ ? line_transfer * (*this)[c].lines : T{}; }
  // One call of item c on a core of type t at its maximum clock, the lines it moves apart.
  T on(Cost c, const CoreType& t) const {
    const CostDef& d = (*this)[c];
    if (d.cycles > 0) return t.freq_max > 0 ? T(d.cycles / t.freq_max, sc_core::SC_NS) : T{};
    return d.work ? T(t.ns(d.instructions), sc_core::SC_NS) : d.wait;
  }
  // What a charge site charges: the item under its kernel label, timed by the core it runs on.
  Charge operator()(Cost c) const { return {cost_item(c).label, T{}, false, static_cast<int>(c), 1.0}; }
  // The item charged under another label (a tasklet's dispatch under the tasklet's function).
  Charge as(const char* fn, Cost c) const { return {fn, T{}, false, static_cast<int>(c), 1.0}; }
  // n calls of item c.
  Charge times(Cost c, double n) const { return {cost_item(c).label, T{}, false, static_cast<int>(c), n}; }
  // n cache lines taken from the request's other core, charged as fn: a wait, nothing where one
  // core does both (lines a structure's layout adds beyond what its item counts).
  Charge lines_moved(const char* fn, double n) const {
    return {fn, cores_differ ? line_transfer * n : T{}, false, -1, 1.0, true};
  }
};

// Item c's time and whether it scales with the clock, per item, on a core of type t (the table a
// Core resolves charges through).
ItemTimes item_times(const Costs& k, const CoreType& t);
// The governors and idle states with a core type's clock range.
CpuPower core_power(const Costs& k, const CoreType& t);

// CPU-bound work of `cycles` core cycles at the maximum clock (the CE and software crypto loops),
// charged as `fn`; it stretches with the governor's frequency like the cycle-counted items.
Charge cycles_charge(const char* fn, double cycles, double hz);

// The table's line for a "cost.*" parameter ("`label`: doc"), "" for any other parameter.
std::string cost_param_doc(const std::string& param);

// The cost items and the kernel timing from a profile: every item must be there ("cost.<field>")
// and every "cost.*" key must be an item; ConfigError names the one that is not. An item in
// instructions is work that runs at the charging core's cpu.<type>.kernel_ipc and clock; an item
// in a time unit is a wait that neither scales with the core nor the clock (a bus round trip, an
// SMMU sync). The CPUs come from cpu.cpus, the task's from cpu.task_cpu.
Costs costs_from_profile(const model::Profile& p);

}  // namespace qcesim::cpu
