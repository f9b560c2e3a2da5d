#include "studies/caller_path.h"

#include <algorithm>

namespace qcesim::studies {

namespace {

using cpu::Cost;

constexpr std::uint32_t kPage = 4096;
constexpr std::uint32_t kAlgMaxPages = 16;  // ALG_MAX_PAGES: the pages of one AF_ALG output list

// Collects one part's charges, or, given no costs, only which items the part charges: one path
// answers both, so the items param_can_matter says a caller charges are the ones it charges.
struct Builder {
  const cpu::Costs* k;            // null: record what is used only
  std::vector<cpu::Charge>* out;  // with costs
  CallerUse* use;                 // without
  void add(Cost c, double n = 1) { add_as(cpu::cost_item(c).label, c, n); }
  void add_as(const char* fn, Cost c, double n = 1) {
    if (n <= 0) return;
    if (!k) {
      use->items.push_back(c);
      return;
    }
    cpu::Charge ch = k->as(fn, c);
    ch.count = n;
    out->push_back(ch);
  }
  void syscall() {
    add(Cost::svc_exception);
    add(Cost::syscall_entry_exit);
  }
  // copy_from_user of the text into the socket's pages, at the task core's copy bandwidth (a
  // core's figure, not a cost item); it stretches with the clock like work.
  void copy_from_user(std::uint32_t bytes) {
    if (!k) {
      use->copies = true;
      return;
    }
    double ns = 0;
    if (k->task_cpu < k->cpus.size()) ns = k->cpus[k->task_cpu].copy_ns(bytes);
    out->push_back({"copy_from_user", sc_core::sc_time(ns, sc_core::SC_NS), true, -1, 1.0});
  }
};

// The text sent (af_alg_sendmsg): the 4 KiB table allocated, a page per 4 KiB, the text copied
// into them. With the operation and IV as control messages (sendmsg), first their copy and parse,
// the copy into a sock_kmalloc'd buffer when they outgrow ____sys_sendmsg's stack buffer (with an
// IV they do; ECB's operation alone does not), freed when the call returns; without (a plain
// send: the socket kept them from its set-up), none of that.
void af_alg_send(Builder& b, std::uint32_t bytes, std::uint32_t pages, bool control, bool iv) {
  b.syscall();
  if (control) {
    b.add(Cost::af_alg_skcipher_control);
    if (iv) b.add_as("____sys_sendmsg", Cost::kmalloc);  // the control buffer
  }
  b.add(Cost::af_alg_skcipher_send);
  b.add_as("skcipher_sendmsg", Cost::kmalloc);  // the tsgl table
  b.add(Cost::alloc_pages, pages);
  b.copy_from_user(bytes);
  b.add(Cost::af_alg_skcipher_page, pages);
  if (control && iv) b.add_as("____sys_sendmsg", Cost::kfree);
}

// The read's part before the crypto call (_skcipher_recvmsg): the request and the source table
// allocated, the output pinned list by list, the emptied tsgl table freed.
void af_alg_recv_start(Builder& b, std::uint32_t pages) {
  const std::uint32_t lists = (pages + kAlgMaxPages - 1) / kAlgMaxPages;
  b.add(Cost::af_alg_skcipher_recv);
  b.add_as("skcipher_recvmsg", Cost::kmalloc, 2);  // af_alg_alloc_areq, the source table
  b.add_as("skcipher_recvmsg", Cost::kfree);       // the tsgl table af_alg_pull_tsgl emptied
  b.add(Cost::gup_call, lists);
  b.add(Cost::gup_page, pages);
  b.add(Cost::af_alg_rsgl, lists - 1);
  b.add_as("af_alg_get_rsgl", Cost::kmalloc, lists - 1);
  b.add_as("af_alg_get_rsgl", Cost::kfree, lists - 1);
}

// af_alg_free_resources after the call: the text's pages freed, the source table and the
// request (the pins' release is in gup_page).
void af_alg_free(Builder& b, std::uint32_t pages) {
  b.add(Cost::free_pages, pages);
  b.add_as("af_alg_free_resources", Cost::kfree, 2);
}

// The items only a caller's path charges; which caller charges which is the path's own to say
// (caller_use).
constexpr Cost kCallerItems[] = {Cost::crypto_wait_req,
                                 Cost::svc_exception,
                                 Cost::syscall_entry_exit,
                                 Cost::af_alg_hash_send,
                                 Cost::af_alg_hash_recv,
                                 Cost::af_alg_skcipher_send,
                                 Cost::af_alg_skcipher_control,
                                 Cost::af_alg_skcipher_recv,
                                 Cost::af_alg_skcipher_page,
                                 Cost::af_alg_rsgl,
                                 Cost::alloc_pages,
                                 Cost::free_pages,
                                 Cost::gup_call,
                                 Cost::gup_page,
                                 Cost::aio_submit,
                                 Cost::aio_complete,
                                 Cost::eventfd_read,
                                 Cost::aio_getevents,
                                 Cost::cryptodev_crypt,
                                 Cost::cryptodev_pin_call,
                                 Cost::cryptodev_pin_page};

// One message's caller path, part by part (CallerCharges in the header). Every caller but the
// AIO one waits in crypto_wait_req, or in cryptodev's wait_for_completion on the same way.
void caller_path(const Workload& w, std::uint32_t bytes, Builder& before, Builder& done, Builder& wait,
                 Builder& after) {
  const std::uint32_t pages = std::max<std::uint32_t>(1, (bytes + kPage - 1) / kPage);
  const bool iv = w.algorithm.mode != CipherMode::ecb;  // ECB's control message is the operation alone
  switch (w.caller) {
    case Workload::Caller::kernel:
      wait.add(Cost::crypto_wait_req);
      break;
    case Workload::Caller::af_alg:
      if (!w.cipher()) {  // afalg-bench's hash socket: the send makes the crypto call, the read copies the digest
        before.syscall();
        before.add(Cost::af_alg_hash_send);
        wait.add(Cost::crypto_wait_req);
        after.syscall();
        after.add(Cost::af_alg_hash_recv);
        break;
      }
      af_alg_send(before, bytes, pages, w.af_alg_control_each, iv);
      before.syscall();
      af_alg_recv_start(before, pages);
      wait.add(Cost::crypto_wait_req);
      af_alg_free(after, pages);  // after crypto_wait_req returns, in the task
      break;
    case Workload::Caller::af_alg_aio:
      // OpenSSL 1.1.1's afalg engine: sendmsg, io_submit of the read with an eventfd, a blocking
      // read of the eventfd, io_getevents.
      af_alg_send(before, bytes, pages, w.af_alg_control_each, iv);
      before.syscall();
      before.add(Cost::aio_submit);
      before.add_as("io_submit", Cost::kmalloc);  // the aio_kiocb
      af_alg_recv_start(before, pages);
      af_alg_free(done, pages);
      done.add(Cost::aio_complete);
      done.add_as("aio_complete", Cost::kfree);  // the aio_kiocb
      // io_submit returns at once; the caller blocks in the eventfd's read (its return after the
      // wake-up charged with it: the system call is one item).
      wait.syscall();
      wait.add(Cost::eventfd_read);
      after.syscall();
      after.add(Cost::aio_getevents);
      break;
    case Workload::Caller::cryptodev: {
      // One ioctl; the user pages pinned by __get_userbuf, once in place, else input and output
      // (their release after the call is in the per-page item).
      const unsigned calls = w.in_place ? 1 : 2;
      before.syscall();
      before.add(Cost::cryptodev_crypt);
      before.add(Cost::cryptodev_pin_call, calls);
      before.add(Cost::cryptodev_pin_page, static_cast<double>(calls) * pages);
      wait.add_as("waitfor", Cost::crypto_wait_req);  // cryptodev's own call of wait_for_completion
      break;
    }
  }
}

}  // namespace

bool param_can_matter(const std::string& param, const Workload& w, const std::vector<std::string>& core_types) {
  const CallerUse use = caller_use(w);
  for (const Cost c : kCallerItems)
    if (param == cpu::cost_profile_key(c)) return std::find(use.items.begin(), use.items.end(), c) != use.items.end();
  if (param.rfind("cpu.", 0) != 0) return true;
  const std::size_t dot = param.find('.', 4);
  if (dot == std::string::npos) return true;  // cpu.count_scale, cpu.cost_cv ...
  // cpu.<type>.<figure>: a core type the runs do not have is never timed.
  const std::string type = param.substr(4, dot - 4);
  if (std::find(core_types.begin(), core_types.end(), type) == core_types.end()) return false;
  return param.substr(dot + 1) != "copy_bandwidth" || use.copies;
}

CallerCharges caller_charges(const Workload& w, const cpu::Costs& k, std::uint32_t bytes) {
  CallerCharges c;
  Builder before{&k, &c.before, nullptr}, done{&k, &c.completion, nullptr}, wait{&k, &c.wait, nullptr},
      after{&k, &c.after, nullptr};
  caller_path(w, bytes, before, done, wait, after);
  c.wait_always = w.caller == Workload::Caller::af_alg_aio;
  return c;
}

CallerUse caller_use(const Workload& w) {
  CallerUse use;
  Builder rec{nullptr, nullptr, &use};
  // Past one output list (ALG_MAX_PAGES pages), so that every branch a size decides is taken.
  caller_path(w, (kAlgMaxPages + 1) * kPage, rec, rec, rec, rec);
  std::sort(use.items.begin(), use.items.end());
  use.items.erase(std::unique(use.items.begin(), use.items.end()), use.items.end());
  return use;
}

bool caller_only_item(Cost c) {
  return std::find(std::begin(kCallerItems), std::end(kCallerItems), c) != std::end(kCallerItems);
}

}  // namespace qcesim::studies
