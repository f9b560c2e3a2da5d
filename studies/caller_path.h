// What a caller costs per message around the crypto call (workload.caller), charged as the kernel
// functions it runs (docs/reference/instruction-counts.md, sections syscall, af_alg and cryptodev):
// an in-kernel caller's wait; afalg-bench's hash socket; an AF_ALG skcipher socket read
// synchronously (afalg-bench, cryptsetup) or through AIO (OpenSSL's afalg engine); cryptodev-linux's
// CIOCCRYPT (OpenSSL's devcrypto engine). The crypto call itself is not in here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpu/costs.h"
#include "studies/scenario.h"

namespace qcesim::studies {

struct CallerCharges {
  // In the caller's task before the crypto call: the system calls up to it.
  std::vector<cpu::Charge> before;
  // Where the crypto call completes: an AIO read's completion and the resources it frees run in
  // the driver's completion context when the tfm is asynchronous (the engine), in io_submit when
  // it is not (the CPU path, the driver's software fallback).
  std::vector<cpu::Charge> completion;
  // In the caller's task from the started request to its sleep, once per wait (a hash's update
  // and final wait apart): crypto_wait_req's way to __schedule, or the AIO caller's blocking read
  // of its eventfd. A completion that comes meanwhile finds the caller running: it does not sleep.
  std::vector<cpu::Charge> wait;
  // Whether `wait` runs when the call completed at once (the CPU path, the software fallback):
  // the eventfd's read does; crypto_wait_req returns at once on a finished call.
  bool wait_always = false;
  // In the caller's task once the call has completed (woken, for the engine): what the read
  // frees after its wait, the system calls that collect the result.
  std::vector<cpu::Charge> after;
};

// The charges for one message of `bytes` bytes (its text; a cipher's output is as long). A user
// buffer is taken page-aligned: ceil(bytes / 4096) pages.
CallerCharges caller_charges(const Workload& w, const cpu::Costs& k, std::uint32_t bytes);

// What this workload's caller path uses at some message size (the same path as caller_charges,
// recording instead of costing): the cost items it charges, in the enum's order, each once, and
// whether it copies text at the task core's copy bandwidth (copy_from_user).
struct CallerUse {
  std::vector<cpu::Cost> items;
  bool copies = false;
};
CallerUse caller_use(const Workload& w);

// Whether a cost item is charged only by a caller's path (no driver or kernel path of the replay
// charges it; QceDevice::run_sync, the emulator's own synchronous call, charges crypto_wait_req as
// its caller): kmalloc and kfree, which that path charges too, are not.
bool caller_only_item(cpu::Cost c);

// Whether a profile parameter can move a run of this workload on CPUs of these core types: a
// caller's own cost items only where its path charges them, the cores' copy bandwidth
// only where it copies (caller_use); a core type's figures only for a core type the runs have. The others
// have no effect, so the uncertainty and sensitivity designs leave them out (their draws are
// keyed by name: the rest stay as they are).
bool param_can_matter(const std::string& param, const Workload& w, const std::vector<std::string>& core_types);

}  // namespace qcesim::studies
