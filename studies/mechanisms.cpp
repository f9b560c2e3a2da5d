#include "studies/mechanisms.h"

#include <array>
#include <utility>

namespace qcesim::studies {

namespace {

struct Entry {
  std::string_view function;
  Mechanism mechanism;
};

constexpr std::array kFunctions = {
    Entry{"caller", Mechanism::caller},
    Entry{"el0_svc", Mechanism::caller},
    Entry{"el0_svc_common", Mechanism::caller},
    Entry{"hash_sendmsg", Mechanism::caller},
    Entry{"hash_recvmsg", Mechanism::caller},
    Entry{"skcipher_sendmsg", Mechanism::caller},
    Entry{"af_alg_cmsg_send", Mechanism::caller},
    Entry{"____sys_sendmsg", Mechanism::caller},
    Entry{"skcipher_recvmsg", Mechanism::caller},
    Entry{"af_alg_pull_tsgl", Mechanism::caller},
    Entry{"af_alg_get_rsgl", Mechanism::caller},
    Entry{"af_alg_free_resources", Mechanism::caller},
    Entry{"copy_from_user", Mechanism::caller},
    Entry{"alloc_pages", Mechanism::caller},
    Entry{"free_unref_page", Mechanism::caller},
    Entry{"get_user_pages_fast", Mechanism::caller},
    Entry{"io_submit", Mechanism::caller},
    Entry{"aio_complete", Mechanism::caller},
    Entry{"eventfd_read", Mechanism::caller},
    Entry{"io_getevents", Mechanism::caller},
    Entry{"cryptodev_ioctl", Mechanism::caller},
    Entry{"__get_userbuf", Mechanism::caller},
    Entry{"get_user_pages_remote", Mechanism::caller},
    Entry{"kernel_neon_begin", Mechanism::crypto},
    Entry{"kernel_neon_end", Mechanism::crypto},
    Entry{"sha256_lib_call", Mechanism::crypto},
    Entry{"skcipher_walk_virt", Mechanism::driver},
    Entry{"skcipher_walk_done", Mechanism::driver},
    Entry{"aes_encrypt", Mechanism::crypto},
    Entry{"memory_stall", Mechanism::crypto},
    Entry{"crypto_ahash_digest", Mechanism::driver},
    Entry{"qce_ahash_update", Mechanism::driver},
    Entry{"qce_ahash_final", Mechanism::driver},
    Entry{"crypto_request_complete", Mechanism::driver},
    Entry{"qce_handle_queue", Mechanism::driver},
    Entry{"qce_req_done_work", Mechanism::driver},
    Entry{"qce_tasklet_req_done", Mechanism::driver},
    Entry{"qce_ahash_async_req_handle", Mechanism::driver},
    Entry{"qce_skcipher_async_req_handle", Mechanism::driver},
    Entry{"qce_aead_async_req_handle", Mechanism::driver},
    Entry{"qce_ahash_done", Mechanism::driver},
    Entry{"qce_skcipher_done", Mechanism::driver},
    Entry{"qce_aead_done", Mechanism::driver},
    Entry{"qce_skcipher_crypt", Mechanism::driver},
    Entry{"qce_aead_crypt", Mechanism::driver},
    Entry{"qce_request_timeout", Mechanism::driver},
    Entry{"qce_dma_error", Mechanism::driver},
    Entry{"readl", Mechanism::mmio},
    Entry{"writel", Mechanism::mmio},
    Entry{"__udelay", Mechanism::polling},
    Entry{"qce_write", Mechanism::descriptors},
    Entry{"qce_submit_cmd_desc", Mechanism::descriptors},
    Entry{"bam_prep_slave_sg", Mechanism::descriptors},
    Entry{"bam_start_dma", Mechanism::descriptors},
    Entry{"bam_make_lock_desc", Mechanism::descriptors},
    Entry{"bam_dma_free_lock_desc", Mechanism::descriptors},
    Entry{"bam_dma_terminate_all", Mechanism::descriptors},
    Entry{"vchan_complete", Mechanism::descriptors},
    Entry{"kmalloc", Mechanism::descriptors},
    Entry{"kfree", Mechanism::descriptors},
    Entry{"dma_map_sg", Mechanism::dma_map},
    Entry{"dma_unmap_sg", Mechanism::dma_map},
    Entry{"alloc_iova_fast", Mechanism::dma_map},
    Entry{"free_iova_fast", Mechanism::dma_map},
    Entry{"arm_lpae_map_pages", Mechanism::dma_map},
    Entry{"__arm_lpae_init_pte", Mechanism::dma_map},
    Entry{"arm_lpae_unmap_pages", Mechanism::dma_map},
    Entry{"dcache_clean_poc", Mechanism::cache},
    Entry{"dcache_inval_poc", Mechanism::cache},
    Entry{"dsb", Mechanism::cache},
    Entry{"arm_smmu_tlb_inv_range_s1", Mechanism::tlb},
    Entry{"arm_smmu_tlb_sync_context", Mechanism::tlb},
    Entry{"gic_handle_irq", Mechanism::interrupts},
    Entry{"el1_interrupt", Mechanism::interrupts},
    Entry{"irq_enter_rcu", Mechanism::interrupts},
    Entry{"tick_irq_enter", Mechanism::interrupts},
    Entry{"irq_exit_rcu", Mechanism::interrupts},
    Entry{"__do_softirq", Mechanism::interrupts},
    Entry{"bam_dma_irq", Mechanism::interrupts},
    Entry{"process_channel_irqs", Mechanism::interrupts},
    Entry{"tasklet_action", Mechanism::interrupts},
    Entry{"tasklet_schedule", Mechanism::interrupts},
    Entry{"dma_tasklet", Mechanism::interrupts},
    Entry{"bam_dma_work", Mechanism::interrupts},
    Entry{"bh_worker", Mechanism::interrupts},
    Entry{"crypto_wait_req", Mechanism::wakeups},
    Entry{"waitfor", Mechanism::wakeups},
    Entry{"try_to_wake_up", Mechanism::wakeups},
    Entry{"__schedule", Mechanism::wakeups},
    Entry{"sched_ttwu_pending", Mechanism::wakeups},
    Entry{"queue_work_on", Mechanism::wakeups},
    Entry{"process_one_work", Mechanism::wakeups},
    Entry{"wakeup_softirqd", Mechanism::wakeups},
};

// The CPU's crypto implementations (cpu/soft_crypto.cpp, cpu/ce_sha.cpp) by their kernel names.
constexpr std::array kCryptoPrefixes = {std::string_view{"sha1_"},   std::string_view{"sha256_"},
                                        std::string_view{"ce_aes_"}, std::string_view{"aesbs_"},
                                        std::string_view{"__aes_"},  std::string_view{"des"}};

}  // namespace

Mechanism mechanism_of(std::string_view function) {
  for (const Entry& e : kFunctions)
    if (e.function == function) return e.mechanism;
  for (std::string_view p : kCryptoPrefixes)
    if (function.substr(0, p.size()) == p) return Mechanism::crypto;
  return Mechanism::other;
}

const char* mechanism_name(Mechanism m) {
  switch (m) {
#define QCESIM_MECHANISM_NAME(A, name, ...) \
  case Mechanism::name:                     \
    return #name;
    QCESIM_MECHANISMS(QCESIM_MECHANISM_NAME, _)
#undef QCESIM_MECHANISM_NAME
  }
  return "other";
}

}  // namespace qcesim::studies
