#include "studies/scenario.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "studies/replay.h"

namespace qcesim::studies {

using namespace model;

using nlohmann::json;

namespace {

const std::vector<std::string> kTopKeys = {"scenario", "about",    "profile",   "workload",
                                           "faults",   "variants", "overrides", "correlations"};
const std::vector<std::string> kVariantKeys = {
    "name",       "engine",           "reg_io",       "bam_lock",         "ce_interleave", "status_from_dump",
    "ce_buffers", "completion",       "rx_interrupt", "unlock_interrupt", "poll_delay_us", "lock_batch",
    "lock_when",  "lock_descriptors", "overrides",    "correlations",     "measured",      "about"};
// What a variant's `measured` block may say: the workload it was taken with, the four numbers of
// the measurement's table, and what a board adds: the measuring process's own CPU time (getrusage)
// and the engine's interrupts per request (/proc/interrupts).
const std::vector<std::string> kMeasuredKeys = {"messages",  "message_bytes", "wall_s", "cpu_s",
                                                "hardirq_s", "softirq_s",     "task_s", kIrqsPerRequest};

void apply_overrides(Profile& p, const json& ov, const std::string& file, const std::string& path) {
  if (!ov.is_object()) throw ConfigError(file, path, "an object of parameter: value", describe_json(ov));
  for (const auto& [name, v] : ov.items()) {
    const std::string at = path + "/" + name;
    if (v.is_number()) {
      p.set(name, v.get<double>(), file, at);
    } else if (v.is_string()) {
      p.set_text(name, v.get<std::string>(), file, at);
    } else if (v.is_object()) {
      p.restate(name, v, file, at);
    } else {
      throw ConfigError(file, at, "a number, a word or {value, interval, provenance}", describe_json(v));
    }
  }
}

// A --set value: JSON when it parses as JSON (numbers, true, "quoted"), else the text itself.
json set_value(const std::string& text, const std::string& assignment) {
  try {
    json v = json::parse(text);
    if (v.is_number_float() && !std::isfinite(v.get<double>()))
      throw ConfigError("--set " + assignment, "", "a finite number", quoted_input(text));
    return v;
  } catch (const json::parse_error&) {
    return text;
  } catch (const json::out_of_range&) {  // 1e400
    throw ConfigError("--set " + assignment, "", "a number a double can hold", quoted_input(text));
  }
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> keys;
  for (std::size_t b = 0;;) {
    const auto d = path.find('.', b);
    keys.push_back(path.substr(b, d == std::string::npos ? std::string::npos : d - b));
    if (d == std::string::npos) break;
    b = d + 1;
  }
  return keys;
}

// workload.size_mix: [{"bytes": N, "weight": W}, ...] into a repeating pattern where each size
// comes up as often as its weight, the sizes interleaved (smooth weighted round robin).
void load_size_mix(const JsonObject& w, Workload& wl) {
  const json& mix = w.array("size_mix", true);
  if (mix.size() > 16) w.fail("size_mix", "at most 16 sizes");
  std::vector<std::pair<std::uint32_t, std::uint64_t>> sizes;
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < mix.size(); ++i) {
    const JsonObject m(mix[i], w.file(), w.path("size_mix") + "/" + std::to_string(i), {"bytes", "weight"});
    const auto bytes = static_cast<std::uint32_t>(m.whole("bytes", 0, 1, 1u << 20));
    const std::uint64_t weight = m.whole("weight", 1, 1, 1000);
    sizes.push_back({bytes, weight});
    total += weight;
  }
  if (total > 1000) w.fail("size_mix", "weights adding up to at most 1000");
  std::vector<std::int64_t> credit(sizes.size(), 0);
  for (std::uint64_t k = 0; k < total; ++k) {
    std::size_t best = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      credit[i] += static_cast<std::int64_t>(sizes[i].second);
      if (credit[i] > credit[best]) best = i;
    }
    credit[best] -= static_cast<std::int64_t>(total);
    wl.size_pattern.push_back(sizes[best].first);
  }
  wl.message_bytes = *std::max_element(wl.size_pattern.begin(), wl.size_pattern.end());
}

// A cipher workload's key, direction, associated data and tag, and the message sizes its
// algorithm takes.
void load_cipher_workload(const JsonObject& w, Workload& wl) {
  const AlgName& a = wl.algorithm;
  if (w.has("size_mix")) {
    if (w.has("message_bytes")) w.fail("size_mix", "either size_mix or message_bytes, not both");
    load_size_mix(w, wl);
  }
  const bool aes = a.cipher == CipherAlg::aes, xts = a.kind == AlgKind::skcipher && a.mode == CipherMode::xts;
  wl.key_bytes = static_cast<std::uint32_t>(w.whole("key_bytes", a.default_key_bytes(), 1, 64));
  const std::uint32_t k = xts ? wl.key_bytes / 2 : wl.key_bytes;
  const bool key_ok = aes ? (k == 16 || k == 24 || k == 32) && (!xts || wl.key_bytes % 2 == 0)
                          : wl.key_bytes == (a.cipher == CipherAlg::des ? 8u : 24u);
  if (!key_ok)
    w.fail("key_bytes", xts   ? "32, 48 or 64 for xts(aes) (two AES keys)"
                        : aes ? "16, 24 or 32 for AES"
                              : (a.cipher == CipherAlg::des ? "8 for DES" : "24 for 3DES"));
  wl.encrypt = w.choice("direction", "encrypt", {"encrypt", "decrypt"}) == "encrypt";
  wl.in_place = w.flag("in_place", false);
  const std::uint32_t block = static_cast<std::uint32_t>(cipher_block_bytes(a.cipher));
  const bool whole_blocks = a.kind == AlgKind::skcipher ? a.mode != CipherMode::ctr : !a.ccm;
  for (std::uint32_t bytes : wl.size_pattern.empty() ? std::vector<std::uint32_t>{wl.message_bytes} : wl.size_pattern)
    if (whole_blocks && bytes % block)
      w.fail(wl.size_pattern.empty() ? "message_bytes" : "size_mix",
             wl.size_pattern.empty()
                 ? fmt::format("a multiple of {} bytes for {} (no padding)", block, a.name)
                 : fmt::format("sizes of a multiple of {} bytes for {} (no padding; {} is not)", block, a.name, bytes));
  if (xts && wl.message_bytes > 0xFFFF0) w.fail("message_bytes", "at most 1048560 bytes for xts(aes) (one data unit)");
  if (a.kind == AlgKind::aead) {
    wl.assoc_bytes = static_cast<std::uint32_t>(w.whole("assoc_bytes", 0, 0, 65504));
    const unsigned max_tag = a.ccm ? 16 : static_cast<unsigned>(digest_bytes(a.hash));
    wl.tag_bytes = static_cast<std::uint32_t>(w.whole("tag_bytes", max_tag, a.ccm ? 4 : 1, max_tag));
    if (a.ccm && wl.tag_bytes % 2) w.fail("tag_bytes", "an even number 4..16 for ccm(aes)");
    wl.auth_key_bytes = static_cast<std::uint32_t>(w.whole("auth_key_bytes", 32, 0, 64));
    if (wl.message_bytes > (1u << 20)) w.fail("message_bytes", "at most 1048576 bytes for an AEAD (one request)");
    // bam_dma splits a longer payload into descriptors, and the engine stalls on a CCM payload
    // in more than one [I]: such a workload would only hang (a 2026 driver does not check size).
    if (a.ccm && wl.message_bytes + (wl.encrypt ? 0 : wl.tag_bytes) > 32760)
      w.fail("message_bytes",
             "at most 32760 bytes of ccm(aes) payload, tag included when decrypting (one BAM descriptor)");
  } else {
    for (const char* key : {"assoc_bytes", "tag_bytes", "auth_key_bytes"})
      if (w.has(key)) w.fail(key, fmt::format("nothing: {} is not an AEAD", a.name));
  }
  if (w.has("tz")) w.fail("tz", "no other EE with a cipher workload (the TrustZone agent hashes)");
}

// workload.caller and what each caller can ask: AF_ALG's hash socket for hashes; AF_ALG's skcipher
// socket (read or AIO) and cryptodev for skciphers (algif_aead and cryptodev's AEAD path have no
// cost items); one request in flight, as a system call waits for its result.
void load_caller(const JsonObject& w, Workload& wl) {
  const std::string c = w.choice("caller", "kernel", {"kernel", "af_alg", "af_alg_aio", "cryptodev"});
  if (c == "af_alg") wl.caller = Workload::Caller::af_alg;
  if (c == "af_alg_aio") wl.caller = Workload::Caller::af_alg_aio;
  if (c == "cryptodev") wl.caller = Workload::Caller::cryptodev;
  const AlgKind kind = wl.algorithm.kind;
  if (wl.caller != Workload::Caller::kernel && kind == AlgKind::aead)
    w.fail("caller", fmt::format("\"kernel\" for {}: the user-space callers are modelled for hashes (af_alg) and "
                                 "skciphers, not AEADs",
                                 wl.algorithm.name));
  if (kind == AlgKind::hash && wl.caller != Workload::Caller::kernel && wl.caller != Workload::Caller::af_alg)
    w.fail("caller",
           fmt::format("\"kernel\" or \"af_alg\" for {}: {} is modelled for skciphers", wl.algorithm.name, c));
  const bool skcipher_socket =
      kind == AlgKind::skcipher && (wl.caller == Workload::Caller::af_alg || wl.caller == Workload::Caller::af_alg_aio);
  if (w.has("af_alg_control") && !skcipher_socket)
    w.fail("af_alg_control", fmt::format("nothing with caller \"{}\" for {}: only an AF_ALG skcipher socket takes "
                                         "control messages",
                                         c, wl.algorithm.name));
  wl.af_alg_control_each = w.choice("af_alg_control", "each", {"each", "once"}) == "each";
  if (wl.caller == Workload::Caller::kernel) return;
  if (wl.queue_depth > 1)
    w.fail("caller", fmt::format("\"kernel\" with queue_depth {}: a user-space caller's system call waits for its "
                                 "result, one request in flight",
                                 wl.queue_depth));
  if (wl.in_place && wl.caller != Workload::Caller::cryptodev)
    w.fail("in_place", fmt::format("false with caller \"{}\": AF_ALG copies the text into the socket's pages, so "
                                   "the request is never in place",
                                   c));
}

Workload load_workload(const json& j, const std::string& file) {
  Workload wl;
  if (!j.contains("workload")) return wl;
  const JsonObject w(j["workload"], file, "/workload",
                     {"messages", "message_bytes", "algorithm", "queue_depth", "tz", "key_bytes", "direction",
                      "assoc_bytes", "tag_bytes", "auth_key_bytes", "size_mix", "hash_calls", "caller",
                      "af_alg_control", "in_place", "scatterlist", "about"});
  wl.messages = w.whole("messages", 50000, 1, 100000000000ull);
  wl.message_bytes = static_cast<std::uint32_t>(w.whole("message_bytes", 4096, 1, 64u << 20));
  wl.queue_depth = static_cast<unsigned>(w.whole("queue_depth", 1, 1, 1024));
  std::vector<std::string> names;
  for (const AlgName& a : alg_names()) names.push_back(a.name);
  wl.algorithm = *parse_alg_name(w.choice("algorithm", "sha256", names));
  wl.alg = wl.algorithm.hash;
  if (wl.cipher()) load_cipher_workload(w, wl);
  for (const char* k :
       {"key_bytes", "direction", "assoc_bytes", "tag_bytes", "auth_key_bytes", "size_mix", "in_place", "scatterlist"})
    if (!wl.cipher() && w.has(k)) w.fail(k, "nothing: the workload's algorithm is a hash, not a cipher");
  if (wl.cipher() && w.has("hash_calls"))
    w.fail("hash_calls", fmt::format("nothing: {} is not a hash", wl.algorithm.name));
  if (w.choice("hash_calls", "digest", {"digest", "init_update_final"}) == "init_update_final")
    wl.hash_calls = Workload::HashCalls::init_update_final;
  load_caller(w, wl);
  // An AEAD's buffer stays one entry: the engine's CCM payload in several descriptors is not
  // modelled (see the CCM size limit above).
  if (wl.algorithm.kind == AlgKind::aead && w.has("scatterlist"))
    w.fail("scatterlist", fmt::format("nothing for {}: an AEAD's buffer is one entry", wl.algorithm.name));
  wl.sg_per_page =
      w.choice("scatterlist", wl.caller == Workload::Caller::kernel ? "one" : "pages", {"one", "pages"}) == "pages";
  if (w.has("tz")) {
    const JsonObject t(w.at("tz"), file, "/workload/tz",
                       {"rate_per_s", "message_bytes", "timeout_us", "seed", "share_hold_us"});
    wl.tz.rate_per_s = t.number("rate_per_s", 0, 0, 1e6, "jobs per second");
    wl.tz.message_bytes = static_cast<std::uint32_t>(t.whole("message_bytes", 4096, 1, 32760));
    wl.tz.timeout_us = t.number("timeout_us", 2000, 10, 1e6, "microseconds");
    wl.tz.seed = t.whole("seed", 7, 0, UINT32_MAX);
    wl.tz.share_hold_us = t.number("share_hold_us", 1000, 0, 1e6, "microseconds");
  }
  return wl;
}

Faults load_faults(const json& j, const std::string& file) {
  Faults f;
  if (!j.contains("faults")) return f;
  std::vector<std::string> keys = {"seed"};
  for (const FaultKind& k : fault_kinds()) keys.push_back(k.key);
  keys.insert(keys.end(), {"tz_lock_hold_us", "timeout_us", "cpu_fallback", "about"});
  const JsonObject fj(j["faults"], file, "/faults", keys);
  f.seed = fj.whole("seed", 1, 0, UINT32_MAX);
#define QCESIM_FAULT_READ(member, per, ...) \
  f.member = fj.number(#member, 0, 0, 1, std::string("probability per ") + per);
  QCESIM_FAULT_KINDS(QCESIM_FAULT_READ)
#undef QCESIM_FAULT_READ
  if (f.bam_data_error + f.bam_descriptor_drop > 1)
    fj.fail("bam_descriptor_drop", "bam_data_error + bam_descriptor_drop <= 1");
  if (f.engine_axi_error + f.engine_hang > 1) fj.fail("engine_hang", "engine_axi_error + engine_hang <= 1");
  f.tz_lock_hold_us = fj.number("tz_lock_hold_us", 0, 0, 1e6, "microseconds");
  f.timeout_us = fj.number("timeout_us", 2000, 10, 1e6, "microseconds");
  f.cpu_fallback = fj.flag("cpu_fallback", false);
  return f;
}

std::map<std::string, double> load_measured(const JsonObject& vj) {
  std::map<std::string, double> m;
  if (!vj.has("measured")) return m;
  const JsonObject mj(vj.at("measured"), vj.file(), vj.path("measured"), kMeasuredKeys);
  for (const std::string& k : kMeasuredKeys) {
    if (!mj.has(k.c_str())) continue;
    if (k == "messages" || k == "message_bytes")
      m[k] = static_cast<double>(mj.whole(k.c_str(), 0, 1, 100000000000ull));
    else if (k == kIrqsPerRequest)
      m[k] = mj.number(k.c_str(), 0, 0, 1000, "interrupts per request");
    else
      m[k] = mj.number(k.c_str(), 0, 0, 1e9, "seconds");
  }
  return m;
}

Variant load_variant(const json& j, const std::string& file, const std::string& path) {
  const JsonObject vj(j, file, path, kVariantKeys);
  Variant v;
  v.name = vj.name("name", "a variant name");
  // "cpu": the implementation the kernel would pick on the core ("ce", the older name, is the same).
  v.engine = vj.choice("engine", "qce", {"qce", "cpu", "ce"}) == "qce" ? VariantEngine::qce : VariantEngine::ce;
  v.reg_io = vj.choice("reg_io", "mmio", {"mmio", "bam"}) == "bam" ? qce::RegIo::bam : qce::RegIo::mmio;
  const std::string completion = vj.choice("completion", "irq", {"irq", "poll", "adaptive"});
  v.poll = completion == "poll";
  v.poll_at_load = completion == "adaptive";
  v.rx_interrupt = vj.flag("rx_interrupt", true);
  v.poll_delay_us = vj.number("poll_delay_us", 1, 0.01, 1000, "microseconds");
  v.status_from_dump = vj.flag("status_from_dump", false);
  v.coherent_ce = vj.choice("ce_buffers", "mapped", {"mapped", "coherent"}) == "coherent";
  // The series always locks; with reg_io mmio a lock pair is a design alternative.
  v.bam_lock = vj.flag("bam_lock", v.reg_io == qce::RegIo::bam);
  if (v.coherent_ce && v.reg_io != qce::RegIo::bam && !v.bam_lock)
    vj.fail("ce_buffers", "\"mapped\" with reg_io \"mmio\" and no bam_lock (no command elements to place)");
  v.lock_batch = static_cast<unsigned>(vj.whole("lock_batch", 1, 1, 64));
  v.lock_when_shared = vj.choice("lock_when", "always", {"always", "shared"}) == "shared";
  if (!v.bam_lock && (v.lock_batch > 1 || v.lock_when_shared))
    vj.fail(v.lock_batch > 1 ? "lock_batch" : "lock_when", "a variant with bam_lock (there is no lock to place)");
  if (v.lock_when_shared && v.lock_batch > 1)
    vj.fail("lock_batch", "1 with lock_when \"shared\" (one design at a time)");
  if ((v.poll || v.poll_at_load) && v.lock_batch > 1)
    vj.fail("lock_batch", "1 with completion \"poll\" or \"adaptive\" (a kept lock is released by an interrupt)");
  v.lock_inline = vj.choice("lock_descriptors", "dummy", {"dummy", "inline"}) == "inline";
  if (v.lock_inline && (v.reg_io != qce::RegIo::bam || !v.bam_lock))
    vj.fail("lock_descriptors",
            "\"dummy\" unless reg_io is \"bam\" with bam_lock (the flags ride on command descriptors)");
  if (v.lock_inline && v.lock_batch > 1)
    vj.fail("lock_batch", "1 with lock_descriptors \"inline\" (one design at a time)");
  v.unlock_interrupt = vj.flag("unlock_interrupt", true);
  // A quiet UNLOCK is reclaimed by the done callback's terminate_all: only the series' own shape
  // has one after every UNLOCK (a batch's release has none, and without interrupts there is no
  // third one to save).
  if (!v.unlock_interrupt) {
    if (!v.bam_lock)
      vj.fail("unlock_interrupt", "true unless the variant has bam_lock (there is no UNLOCK to keep quiet)");
    if (v.reg_io != qce::RegIo::bam) vj.fail("unlock_interrupt", "true unless reg_io is \"bam\" (the series' shape)");
    if (v.lock_batch > 1 || v.lock_when_shared || v.lock_inline)
      vj.fail("unlock_interrupt",
              "true with lock_batch, lock_when \"shared\" or lock_descriptors \"inline\" (one design at a time)");
    if (v.poll || v.poll_at_load || !v.rx_interrupt)
      vj.fail("unlock_interrupt",
              "true with completion \"poll\" or \"adaptive\" or rx_interrupt false (no UNLOCK interrupt to leave out)");
  }
  v.ce_interleave = static_cast<unsigned>(vj.whole("ce_interleave", 1, 1, 2));
  if (vj.has("overrides")) v.overrides = vj.object("overrides");
  if (vj.has("correlations")) v.correlations = vj.array("correlations", false);
  v.measured = load_measured(vj);
  return v;
}

// The scenario as read, before any check of its profile.
Scenario parse(const json& j, const std::string& file, const std::string& folder) {
  const JsonObject top(j, file, "", kTopKeys);
  Scenario sc;
  sc.file = file;
  sc.document = j;
  sc.name = top.name("scenario", "a scenario name");
  sc.folder = folder;
  sc.profile_file = model::in_folder(folder, top.text("profile"));
  sc.workload = load_workload(j, file);
  sc.faults = load_faults(j, file);
  if (sc.faults.tz_lock_hold_us > 0 && sc.workload.tz.rate_per_s == 0)
    top.fail("faults", "tz_lock_hold_us only with another EE on the engine (workload.tz.rate_per_s above 0)");
  const json& vs = top.array("variants", true);
  for (std::size_t i = 0; i < vs.size(); ++i) {
    const std::string path = "/variants/" + std::to_string(i);
    Variant v = load_variant(vs[i], file, path);
    for (const auto& other : sc.variants)
      if (other.name == v.name)
        throw ConfigError(file, path + "/name", "a name no other variant has", quoted_input(v.name));
    sc.variants.push_back(std::move(v));
  }
  if (top.has("overrides")) sc.overrides = top.object("overrides");
  if (top.has("correlations")) sc.correlations = top.array("correlations", false);
  return sc;
}

}  // namespace

std::uint64_t Workload::bytes_of_first(std::uint64_t n) const {
  if (size_pattern.empty()) return n * message_bytes;
  std::uint64_t cycle = 0;
  for (std::uint32_t b : size_pattern) cycle += b;
  std::uint64_t total = n / size_pattern.size() * cycle;
  for (std::uint64_t i = 0; i < n % size_pattern.size(); ++i) total += size_pattern[i];
  return total;
}

std::string apply_set(json& doc, const std::string& assignment, const std::string& file) {
  const std::string origin = "--set " + assignment;
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) throw ConfigError("--set", "", "PATH=VALUE", quoted_input(assignment));
  const std::string path = assignment.substr(0, eq);
  const json value = set_value(assignment.substr(eq + 1), assignment);
  std::vector<std::string> keys = split_path(path);
  // A path that does not start at a scenario key is a profile parameter: overrides.<name>.
  if (std::find(kTopKeys.begin(), kTopKeys.end(), keys[0]) == kTopKeys.end()) keys = {"overrides", path};
  json* node = &doc;
  std::string pointer;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::string& k = keys[i];
    if (k.empty()) throw ConfigError(origin, "", "a path of non-empty keys joined by dots", quoted_input(path));
    if (k == "overrides" && i + 1 < keys.size()) {
      // The rest is one parameter name.
      std::string rest;
      for (std::size_t j = i + 1; j < keys.size(); ++j) rest += (rest.empty() ? "" : ".") + keys[j];
      if (!node->is_object())
        throw ConfigError(file, pointer, "an object to set " + quoted_input(path) + " in", describe_json(*node));
      json& ov = (*node)["overrides"];
      if (!ov.is_null() && !ov.is_object())
        throw ConfigError(file, pointer + "/overrides", "an object of parameter: value", describe_json(ov));
      ov[rest] = value;
      return pointer + "/overrides/" + rest;
    }
    if (node->is_array()) {
      const bool digits =
          !k.empty() && k.size() <= 9 && std::all_of(k.begin(), k.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!digits)
        throw ConfigError(origin, "", "an index into the array at " + (pointer.empty() ? "/" : pointer),
                          quoted_input(k));
      const std::size_t idx = std::stoul(k);
      if (idx >= node->size())
        throw ConfigError(origin, "", fmt::format("an index below {} at {}", node->size(), pointer), k);
      node = &(*node)[idx];
    } else if (node->is_object() || node->is_null()) {
      node = &(*node)[k];
    } else {
      throw ConfigError(origin, "", "a path through objects and arrays",
                        fmt::format("{} at {}", describe_json(*node), pointer));
    }
    pointer += "/" + k;
  }
  *node = value;
  return pointer;
}

namespace {

// The scenario a document describes after `sets` are applied to it; `edited` the pointers earlier
// sets replaced (the document already holds them).
Scenario with_edits(json j, const std::string& file, const std::string& folder, const std::vector<std::string>& sets,
                    const std::vector<std::string>& edited, bool check_variants) {
  if (!j.is_object()) throw ConfigError(file, "", "an object", describe_json(j));
  // Where each --set landed: an error at or below it names the option, not the file.
  std::vector<std::pair<std::string, std::string>> set_at;
  set_at.reserve(sets.size());
  for (const auto& s : sets) set_at.emplace_back(apply_set(j, s, file), s);
  try {
    Scenario sc = parse(j, file, folder);
    sc.edited = edited;
    for (const auto& [pointer, _] : set_at) sc.edited.push_back(pointer);
    // Every variant's profile, platform and core now, so that nothing fails once runs started.
    if (check_variants)
      for (const Variant& v : sc.variants) check_variant(sc, v);
    return sc;
  } catch (const ConfigError& e) {
    if (e.file != file) throw;
    for (auto it = set_at.rbegin(); it != set_at.rend(); ++it)
      if (e.path == it->first || e.path.rfind(it->first + "/", 0) == 0)
        throw ConfigError("--set " + it->second, e.path, e.expected, e.found);
    throw;
  }
}

}  // namespace

Scenario Scenario::load(const std::string& file, const std::vector<std::string>& sets, InputKind kind,
                        bool check_variants) {
  json doc = read_json_file(file, "scenario file", kind);
  return with_edits(std::move(doc), file, model::folder_of(file), sets, {}, check_variants);
}

Scenario Scenario::from_document(json doc, const std::string& file, const std::string& folder,
                                 const std::vector<std::string>& sets, bool check_variants) {
  return with_edits(std::move(doc), file, folder, sets, {}, check_variants);
}

Scenario Scenario::with_sets(const std::vector<std::string>& more, bool check_variants) const {
  return with_edits(document, file, folder, more, edited, check_variants);
}

Profile Scenario::shared_profile() const {
  Profile p = Profile::load(profile_file);
  apply_overrides(p, overrides, file, "/overrides");
  if (!correlations.is_null()) p.add_correlations(correlations, file, "/correlations", "/overrides", edited_at());
  return p;
}

Profile Scenario::profile_for(const Variant& v) const {
  Profile p = shared_profile();
  for (std::size_t i = 0; i < variants.size(); ++i)
    if (variants[i].name == v.name) {
      const std::string at = "/variants/" + std::to_string(i);
      apply_overrides(p, v.overrides, file, at + "/overrides");
      if (!v.correlations.is_null())
        p.add_correlations(v.correlations, file, at + "/correlations", at + "/overrides", edited_at());
    }
  return p;
}

std::function<bool(const std::string&)> Scenario::edited_at() const {
  return [this](const std::string& pointer) {
    return std::any_of(edited.begin(), edited.end(),
                       [&pointer](const std::string& e) { return pointer == e || pointer.rfind(e + "/", 0) == 0; });
  };
}

bool Scenario::holds_plainly(const Variant& v, const std::string& param) const {
  if (const auto it = v.overrides.find(param); it != v.overrides.end()) return !it->is_object();
  const auto it = overrides.find(param);
  return it != overrides.end() && !it->is_object();
}

std::size_t Scenario::index_of(const Variant& v) const {
  const Variant& mine = variant(v.name);  // throws for a name the scenario lacks, naming those it has
  return static_cast<std::size_t>(&mine - variants.data());
}

const Variant& Scenario::variant(const std::string& wanted) const {
  for (const auto& v : variants)
    if (v.name == wanted) return v;
  std::vector<std::string> names;
  for (const auto& v : variants) names.push_back(v.name);
  throw ConfigError(file, "/variants", "a variant named one of " + join_names(names), quoted_input(wanted));
}

const std::vector<FaultKind>& fault_kinds() {
#define QCESIM_FAULT_ROW(member, per, counter, words, label) FaultKind{#member, per, counter, words, label},
  static const std::vector<FaultKind> rows = {QCESIM_FAULT_KINDS(QCESIM_FAULT_ROW)};
#undef QCESIM_FAULT_ROW
  return rows;
}

}  // namespace qcesim::studies
