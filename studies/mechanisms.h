// The mechanisms a request's CPU time goes to: each kernel function a cost is charged as
// (cpu/costs.h labels, the profile's `function`) belongs to one, so a variant's CPU time, and
// the difference between two variants, splits into maps, cache maintenance, TLB invalidations,
// descriptors, interrupts, wake-ups... (docs/locking-designs.md, run.md's cpu_by_mechanism.*).
#pragma once

#include <string_view>

namespace qcesim::studies {

// X(A, name, "label", "meaning"), A passed through: the run's JSON has cpu_by_mechanism.<name>
// (seconds; studies/result_fields.h makes them result fields and sweep metrics).
#define QCESIM_MECHANISMS(X, A)                                                                                      \
  X(A, caller, "caller",                                                                                             \
    "the caller's own code around each request (`caller`; with a user-space `workload.caller` its system calls: "    \
    "`el0_svc`, `el0_svc_common`, `hash_sendmsg`, `hash_recvmsg`, `____sys_sendmsg`, `af_alg_cmsg_send`, "           \
    "`skcipher_sendmsg`, `skcipher_recvmsg`, `af_alg_pull_tsgl`, `af_alg_get_rsgl`, `af_alg_free_resources`, "       \
    "`copy_from_user`, `alloc_pages`, "                                                                              \
    "`free_unref_page`, `get_user_pages_fast`, `io_submit`, `aio_complete`, `eventfd_read`, `io_getevents`, "        \
    "`cryptodev_ioctl`, `__get_userbuf`, `get_user_pages_remote`)")                                                  \
  X(A, crypto, "CPU crypto", "crypto computed on the CPU: CE or NEON code, the library, `kernel_neon_begin`/`_end`") \
  X(A, driver, "crypto API and driver",                                                                              \
    "the crypto API's and the qce driver's bookkeeping: `crypto_ahash_digest` (or `qce_ahash_update` and "           \
    "`qce_ahash_final`), `qce_*_async_req_handle`, `qce_*_done`, `qce_handle_queue`, `qce_req_done_work`, "          \
    "`crypto_request_complete`")                                                                                     \
  X(A, mmio, "MMIO",                                                                                                 \
    "CPU register reads and writes (`readl`, `writel`): the engine's set-up in mainline, STATUS, "                   \
    "the BAM's doorbells and interrupt registers")                                                                   \
  X(A, polling, "polling", "busy waits between polls (`__udelay`): completion by polling, waiting for a LOCK")       \
  X(A, descriptors, "descriptors and command elements",                                                              \
    "building, loading and freeing BAM descriptors and command elements: `qce_write` (a command element), "          \
    "`qce_submit_cmd_desc`, `bam_prep_slave_sg`, `bam_start_dma`, `bam_make_lock_desc`, `bam_dma_free_lock_desc`, "  \
    "`bam_dma_terminate_all`, `vchan_complete`, `kmalloc`, `kfree`")                                                 \
  X(A, dma_map, "DMA maps and unmaps",                                                                               \
    "the dma-mapping calls and IOMMU page tables: `dma_map_sg`, `dma_unmap_sg`, `alloc_iova_fast`, "                 \
    "`free_iova_fast`, `arm_lpae_map_pages`, `__arm_lpae_init_pte`, `arm_lpae_unmap_pages`")                         \
  X(A, cache, "cache maintenance",                                                                                   \
    "cleaning and invalidating lines for a non-coherent device or walker, and the "                                  \
    "barriers that wait for it: `dcache_clean_poc`, `dcache_inval_poc`, `dsb`")                                      \
  X(A, tlb, "TLB invalidations and syncs",                                                                           \
    "the SMMU's TLB maintenance on unmap: `arm_smmu_tlb_inv_range_s1`, `arm_smmu_tlb_sync_context`")                 \
  X(A, interrupts, "interrupts",                                                                                     \
    "interrupt entry and exit, the BAM's handler and its deferred work: `gic_handle_irq`, `el1_interrupt`, "         \
    "`irq_enter_rcu`, `tick_irq_enter`, `irq_exit_rcu`, `__do_softirq`, `bam_dma_irq`, `process_channel_irqs`, "     \
    "`tasklet_*`, `dma_tasklet`, "                                                                                   \
    "`bam_dma_work`, `bh_worker`")                                                                                   \
  X(A, wakeups, "wake-ups and scheduling",                                                                           \
    "going to sleep, waking and switching threads: `crypto_wait_req` (cryptodev's `waitfor`), `try_to_wake_up`, "    \
    "`__schedule`, `sched_ttwu_pending`, `queue_work_on`, `process_one_work`, `wakeup_softirqd`")                    \
  X(A, other, "other", "functions in none of the above (none in the shipped scenarios)")

enum class Mechanism {
#define QCESIM_MECHANISM_ENUM(A, name, ...) name,
  QCESIM_MECHANISMS(QCESIM_MECHANISM_ENUM, _)
#undef QCESIM_MECHANISM_ENUM
};

// The mechanism a kernel function's time belongs to (Mechanism::other when unknown).
Mechanism mechanism_of(std::string_view function);
const char* mechanism_name(Mechanism m);

}  // namespace qcesim::studies
