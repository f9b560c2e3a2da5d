// A scenario: a platform profile, a workload, the variants to compare, overrides of profile
// parameters (for all variants and per variant) and optional measured values per variant.
// `--set PATH=VALUE` edits the scenario document before it is read (see docs/scenarios.md).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/alg_names.h"
#include "model/profile.h"
#include "model/sha_core.h"
#include "drivers/crypto/qce/reg_io.h"

namespace qcesim::studies {

using model::ConfigError;
using model::InputKind;
using model::Param;
using model::Profile;

// The `measured` key of the engine's interrupts per request: a count, not a time (it does not scale
// with the message count, gets a band only where measured, and is a check, not a fitting target).
inline constexpr const char* kIrqsPerRequest = "irqs_per_request";
// A count of interrupts takes whole values: a measured one matches within half an interrupt.
inline constexpr double kIrqsSlack = 0.5;
// A simulated interrupt count matches a measured one: within the slack, its edge included (as
// the bands' inside() takes it).
inline bool irqs_match(double simulated, double measured) { return std::fabs(simulated - measured) <= kIrqsSlack; }

enum class VariantEngine { ce, qce };

struct Variant {
  std::string name;
  VariantEngine engine = VariantEngine::qce;
  qce::RegIo reg_io = qce::RegIo::mmio;
  bool bam_lock = false;          // LOCK/UNLOCK around each transaction (with reg_io bam)
  unsigned ce_interleave = 1;     // CPU path: 1, or 2 (finup2x)
  bool status_from_dump = false;  // what-if: the done callback's STATUS from the result dump
  bool coherent_ce = false;       // design: command elements in coherent buffers mapped once (ce_buffers)
  unsigned lock_batch = 1;        // design: one LOCK/UNLOCK pair around up to this many queued requests
  bool lock_when_shared = false;  // design: lock only while the other EE uses the engine (lock_when "shared")
  bool lock_inline = false;       // design: LOCK/UNLOCK as flags on real command descriptors (lock_descriptors)
  bool poll = false;              // completion: "poll" instead of "irq"
  bool poll_at_load = false;      // completion: "adaptive" (poll while requests queue, else interrupts)
  bool rx_interrupt = true;       // what-if: no interrupt for the data pipe
  bool unlock_interrupt = true;   // design: false, the UNLOCK asks for no interrupt (case 2 by design)
  double poll_delay_us = 1;
  nlohmann::json overrides = nlohmann::json::object();
  // Correlated groups of what the variant restates (a fit's posterior; null: none).
  nlohmann::json correlations;
  std::map<std::string, double> measured;  // wall_s, cpu_s, hardirq_s, softirq_s...
};

struct Workload {
  std::uint64_t messages = 50000;
  std::uint32_t message_bytes = 4096;  // ciphers: the text (AEADs: without associated data and tag)
  HashAlg alg = HashAlg::sha256;
  // workload.algorithm by the kernel's name: a hash (sha256, sha1), an skcipher (xts(aes), ...)
  // or an AEAD (ccm(aes), authenc(hmac(sha256),cbc(aes)), ...).
  AlgName algorithm = *parse_alg_name("sha256");
  std::uint32_t key_bytes = 16;       // ciphers (workload.key_bytes; XTS: both keys)
  bool encrypt = true;                // workload.direction
  std::uint32_t assoc_bytes = 0;      // AEADs
  std::uint32_t tag_bytes = 0;        // AEADs: the tag (0: the algorithm's largest)
  std::uint32_t auth_key_bytes = 32;  // authenc: the HMAC key
  // workload.in_place (ciphers): the request's destination is its source (one scatterlist, as
  // tcrypt's speed tests and openssl speed through cryptodev ask), so the driver maps it once,
  // both ways; false: a separate output buffer (AF_ALG always: the text is in the socket's pages).
  bool in_place = false;
  // workload.scatterlist (ciphers): how the caller's buffer reaches the driver. One entry for the
  // whole buffer (a kmalloc'd one), or one per 4 KiB page, each its own page frame (user pages
  // through AF_ALG or cryptodev, tcrypt's pages): without a translating IOMMU to merge them, each
  // entry is a BAM descriptor. Default: pages for a user-space caller, one for an in-kernel one.
  bool sg_per_page = false;
  bool cipher() const { return algorithm.kind != AlgKind::hash; }
  // workload.size_mix (ciphers): request sizes in a repeating pattern (a packet mix), each size
  // as often as its weight, spread evenly; message_bytes is then the largest.
  std::vector<std::uint32_t> size_pattern;
  std::uint32_t bytes_of(std::uint64_t request) const {
    return size_pattern.empty() ? message_bytes : size_pattern[request % size_pattern.size()];
  }
  // Bytes of the first n requests.
  std::uint64_t bytes_of_first(std::uint64_t n) const;
  unsigned queue_depth = 1;  // requests the caller keeps in flight
  // workload.hash_calls (hashes): how the caller asks for each message's digest. digest: one
  // crypto_ahash_digest (in-kernel callers, tcrypt, AF_ALG from 6.5). init_update_final:
  // crypto_ahash_init, crypto_ahash_update with the whole message and crypto_ahash_final, each
  // waited for (AF_ALG's hash socket before 6.5, cryptodev-linux): on the qce driver two engine
  // requests per message longer than a block.
  enum class HashCalls { digest, init_update_final } hash_calls = HashCalls::digest;
  // workload.caller: who asks (studies/caller_path.h). kernel: an in-kernel caller (tcrypt, a
  // module). af_alg: a user-space loop through an AF_ALG socket (a hash's send and read, an
  // skcipher's sendmsg and read: afalg-bench, cryptsetup). af_alg_aio (skciphers): the read through
  // AIO (OpenSSL's afalg engine). cryptodev (skciphers): ioctl(CIOCCRYPT) on /dev/crypto (OpenSSL's
  // devcrypto engine). Their system calls are charged on the CPU path as on the engine's.
  enum class Caller { kernel, af_alg, af_alg_aio, cryptodev } caller = Caller::kernel;
  // workload.af_alg_control (AF_ALG skcipher callers): each: every request's sendmsg carries the
  // operation and the IV as control messages (afalg-bench, cryptsetup, OpenSSL's afalg engine).
  // once: they go once, when the socket is set up, and each request is a plain send of its text
  // (the socket keeps the operation and chains the IV: cotequeiroz's afalg_engine).
  bool af_alg_control_each = true;
  // Another execution environment (TrustZone) using the engine on its own pipes.
  struct Tz {
    double rate_per_s = 0;  // 0: none
    std::uint32_t message_bytes = 4096;
    double timeout_us = 2000;     // its jobs' and Linux's request watchdog
    std::uint64_t seed = 7;       // its arrivals' and messages' random generator
    double share_hold_us = 1000;  // lock_when "shared": how long after its last job it still says it uses the engine
  } tz;
};

// The hardware faults a scenario can inject, each a probability per event:
// F(member, "per what", "result counter key", "counter in words", "sweep axis label").
// The scenario key is faults.<member>; the run's JSON counts each under `faults.<counter>`
// (studies/replay.cpp wires each to its block and reads its count back).
#define QCESIM_FAULT_KINDS(F)                                                                                          \
  F(bam_data_error, "data descriptor", "bam_data_errors", "BAM bus errors", "BAM bus errors per data descriptor")      \
  F(bam_descriptor_drop, "data descriptor", "bam_descriptor_drops", "dropped descriptors",                             \
    "dropped descriptors per data descriptor")                                                                         \
  F(engine_axi_error, "engine operation", "engine_axi_errors", "engine AXI errors", "engine AXI errors per operation") \
  F(engine_hang, "engine operation", "engine_hangs", "engine hangs", "engine hangs per operation")

// Faults injected into the hardware (scenario key `faults`), and what the caller does about a
// request that fails. The kernel driver has no watchdog; a request the hardware never finishes
// is failed by the model's after `timeout_us`, standing in for the caller's own timeout.
struct Faults {
  std::uint64_t seed = 1;
#define QCESIM_FAULT_MEMBER(member, ...) double member = 0;
  QCESIM_FAULT_KINDS(QCESIM_FAULT_MEMBER)
#undef QCESIM_FAULT_MEMBER
  double tz_lock_hold_us = 0;  // TrustZone (workload.tz) keeps the BAM lock this much longer per job
  double timeout_us = 2000;    // the request watchdog while faults are injected
  bool cpu_fallback = false;   // a failed request is redone by the caller on the CPU (counted as a fallback)
  bool any() const {
    bool some = tz_lock_hold_us > 0;
#define QCESIM_FAULT_ANY(member, ...) some = some || member > 0;
    QCESIM_FAULT_KINDS(QCESIM_FAULT_ANY)
#undef QCESIM_FAULT_ANY
    return some;
  }
};

// One fault kind's row, for code that goes over all of them.
struct FaultKind {
  const char* key;      // faults.<key>
  const char* per;      // the event the probability is per
  const char* counter;  // the result's faults.<counter>
  const char* words;    // the counter in the text output
  const char* label;    // the sweep axis label
};
const std::vector<FaultKind>& fault_kinds();

struct Scenario {
  std::string file;
  std::string name;
  std::string profile_file;  // resolved against the scenario's folder
  std::string folder;        // that folder, decided when the file was read ("": the current one)
  Workload workload;
  Faults faults;
  std::vector<Variant> variants;
  nlohmann::json overrides = nlohmann::json::object();
  nlohmann::json correlations;      // groups of what the scenario's overrides restate (null: none)
  nlohmann::json document;          // after --set edits
  std::vector<std::string> edited;  // the JSON pointers --set replaced, in order

  // check_variants false: the variants' profiles are not built here (a sample of a design whose
  // nominal scenario was checked; each run builds its own variant's and reports its error).
  static Scenario load(const std::string& file, const std::vector<std::string>& sets = {},
                       InputKind kind = InputKind::any, bool check_variants = true);
  // The scenario a file's document describes, read once (a sweep's every point is made from the
  // text the sweep read); `file` names it in messages, its references are looked up in `folder`
  // (model::folder_of the file when it was read).
  static Scenario from_document(nlohmann::json doc, const std::string& file, const std::string& folder,
                                const std::vector<std::string>& sets = {}, bool check_variants = true);
  // This scenario with `more` --set edits on top of its own, its file not read again: the forked
  // runs of a study take the text their design read, whatever the file holds by then (and a
  // FIFO or device put in its place is never opened).
  Scenario with_sets(const std::vector<std::string>& more, bool check_variants = true) const;
  // The profile with the scenario's overrides applied (those every variant shares).
  Profile shared_profile() const;
  // The profile with the scenario's overrides and then the variant's applied.
  Profile profile_for(const Variant& v) const;
  // Whether a JSON pointer is at or under one that --set replaced.
  std::function<bool(const std::string&)> edited_at() const;
  // Whether variant v runs with parameter `param` at a plain value the scenario gives (the variant's
  // overrides, or else the scenario's and --set's), not its profile's value or a restatement
  // ({value, interval, provenance}). The variant's entry decides, as it does in its profile.
  bool holds_plainly(const Variant& v, const std::string& param) const;
  // The variant's index in the scenario's `variants` array (its JSON pointer's).
  std::size_t index_of(const Variant& v) const;
  const Variant& variant(const std::string& name) const;
};

// Applies "a.b.c=VALUE" to a JSON document (VALUE parsed as JSON, else taken as a string) and
// returns the JSON pointer it set. Keys under "overrides" are parameter names and keep their dots.
std::string apply_set(nlohmann::json& doc, const std::string& assignment, const std::string& file);

}  // namespace qcesim::studies
