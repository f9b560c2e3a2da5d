#include "ingest/ingest.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "ingest/text_lines.h"
#include "model/config_error.h"
#include "soc/device_tree.h"

namespace qcesim::ingest {

using model::ConfigError;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// MIDR (implementer, part) -> the core type's name as profiles spell it (arch/arm64's cputype.h).
std::string core_from_midr(const CpuId& c) {
  static const std::map<std::pair<unsigned, unsigned>, std::string> parts = {
      {{0x41, 0xc07}, "cortex-a7"},   {{0x41, 0xd03}, "cortex-a53"},  {{0x41, 0xd04}, "cortex-a35"},
      {{0x41, 0xd05}, "cortex-a55"},  {{0x41, 0xd07}, "cortex-a57"},  {{0x41, 0xd08}, "cortex-a72"},
      {{0x41, 0xd0a}, "cortex-a75"},  {{0x41, 0xd0b}, "cortex-a76"},  {{0x41, 0xd0d}, "cortex-a77"},
      {{0x41, 0xd41}, "cortex-a78"},  {{0x41, 0xd44}, "cortex-x1"},   {{0x41, 0xd46}, "cortex-a510"},
      {{0x41, 0xd47}, "cortex-a710"}, {{0x41, 0xd48}, "cortex-x2"},   {{0x41, 0xd4d}, "cortex-a715"},
      {{0x41, 0xd4e}, "cortex-x3"},   {{0x41, 0xd80}, "cortex-a520"}, {{0x41, 0xd81}, "cortex-a720"},
      {{0x41, 0xd82}, "cortex-x4"}};
  const auto it = parts.find({c.implementer, c.part});
  return it == parts.end() ? fmt::format("unknown (implementer {:#x}, part {:#x})", c.implementer, c.part) : it->second;
}

// "arm,cortex-a720" -> "cortex-a720".
std::string core_from_compatible(const std::string& c) {
  const std::size_t comma = c.find(',');
  return comma == std::string::npos ? c : c.substr(comma + 1);
}

// A name by the name rule, from a driver's name ("hmac(sha256-ce)" -> "hmac-sha256-ce").
std::string name_from(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' || c == '=';
    if (ok)
      out += c;
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  while (!out.empty() && (out[0] == '.' || out[0] == '-')) out.erase(0, 1);
  return out.substr(0, 40);
}

// The engine's driver: named *-qce, or registered by the qcrypto module.
bool is_qce(const std::string& driver, const std::string& module) {
  return module == "qcrypto" || (driver.size() > 4 && driver.compare(driver.size() - 4, 4, "-qce") == 0);
}

bool is_qce_driver(const BenchRun& r, const BoardArchive& a) {
  if (is_qce(r.driver, "")) return true;
  for (const CryptoDriver& d : a.drivers)
    if (d.driver == r.driver && is_qce(d.driver, d.module)) return true;
  return false;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The engine's interrupts in a run: the /proc/interrupts rows whose action names the BAM or QCE,
// and how many of them moved. A count taken as a measurement must come from one row: a SoC with
// another BAM busy at the time (the IPQ40xx's BLSP for its UART and SPI) adds its interrupts.
// Where the device tree gives the crypto BAM's SPI and the rows are a GIC's, only the crypto
// BAM's own row counts: the one the GIC lists as hwirq SPI + 32 ("GIC-0 239 Level bam_dma" for
// the IPQ4019's SPI 207), never another BAM's, even when that one alone moved.
struct EngineIrqs {
  std::uint64_t count = 0;
  unsigned rows = 0;
  int cpu = -1;  // with one row: the CPU that took most of them (irq_cpu), and how many
  std::uint64_t cpu_count = 0;
};
EngineIrqs engine_irqs(const BenchRun& r, const FdtCrypto* crypto) {
  EngineIrqs e, own;
  bool on_gic = false;
  for (const IrqDelta& d : r.irqs) {
    const std::string s = lower(d.name);
    if (!d.count || (s.find("bam") == std::string::npos && s.find("qce") == std::string::npos &&
                     s.find("crypto") == std::string::npos))
      continue;
    e.count += d.count, ++e.rows;
    e.cpu = d.cpu, e.cpu_count = d.cpu_count;
    const std::vector<std::string> w = words(s, 2);  // chip, hwirq
    if (w.empty() || w[0].find("gic") == std::string::npos) continue;
    on_gic = true;
    if (crypto && crypto->has_spi && w.size() == 2 && w[1] == std::to_string(crypto->bam_spi + 32))
      own.count += d.count, ++own.rows, own.cpu = d.cpu, own.cpu_count = d.cpu_count;
  }
  return crypto && crypto->has_spi && on_gic ? own : e;
}

// One CPU took nine in ten of the row's interrupts or more: where the interrupt is said to run.
bool mostly_on_one_cpu(const EngineIrqs& e) { return e.cpu >= 0 && e.cpu_count * 10 >= e.count * 9; }

// The run of that member (runs/seed-qce), or none.
const BenchRun* run_named(const BoardArchive& a, const std::string& member) {
  for (const BenchRun& b : a.runs)
    if (b.member == member) return &b;
  return nullptr;
}

// Which qce driver the kernel runs, from its function names (/proc/kallsyms, the trace filter's
// list): the BAM-locking series adds register I/O through command descriptors on the crypto side
// (v20 13/14: qce_write_dma, qce_prep_dma_cmd_desc, qce_submit_cmd_desc,
// qce_clear_bam_transaction) and the pipe lock on the dmaengine side (06/14:
// bam_setup_pipe_lock, bam_make_lock_desc), functions mainline has not
// (docs/reference/v20-series.md). The two halves go through different trees: a kernel with the
// BAM half alone still runs mainline's qce, so the series is the qce half. A static function
// the compiler inlined has no name, so any of a half's names finds it.
struct DriverFinding {
  enum Kind { unknown, mainline, series } kind = unknown;
  std::string names;     // the functions that said so
  std::string bam_half;  // the BAM half's functions, where only they were found
};
DriverFinding qce_driver_kind(const BoardArchive& a) {
  std::set<std::string> names = a.kernel_symbols;
  names.insert(a.ftrace_traceable.begin(), a.ftrace_traceable.end());
  DriverFinding f;
  const auto found = [&](std::initializer_list<const char*> list) {
    std::string s;
    for (const char* n : list)
      if (names.count(n)) s += (s.empty() ? "" : ", ") + std::string(n);
    return s;
  };
  f.bam_half = found({"bam_setup_pipe_lock", "bam_make_lock_desc"});
  if (!(f.names = found({"qce_write_dma", "qce_prep_dma_cmd_desc", "qce_submit_cmd_desc", "qce_clear_bam_transaction"}))
           .empty()) {
    f.kind = DriverFinding::series;
    if (!f.bam_half.empty()) f.names += ", " + f.bam_half;
    f.bam_half.clear();
  } else if (!(f.names = found(
                   {"qce_ahash_async_req_handle", "qce_skcipher_async_req_handle", "qce_dma_request", "qce_start"}))
                  .empty()) {
    f.kind = DriverFinding::mainline;
  }
  return f;
}

// A traced function's calls, its clone suffix (".constprop.0") ignored; -1 when the trace
// did not see it called.
long long traced_calls(const FtraceTable& t, const std::string& function) {
  long long calls = -1;
  for (const FunctionStat& f : t.functions)
    if (kernel_function_base(f.function) == function)
      calls = std::max<long long>(calls, 0) + static_cast<long long>(f.calls);
  return calls;
}

// Why the archive does not say which qce driver runs.
std::string unknown_driver_why(const BoardArchive& a) {
  if (a.has_kernel_symbols) return "the function names it recorded hold none of the qce driver's request handlers";
  if (const ManifestItem* i = a.item("system/kallsyms-crypto"))
    return "system/kallsyms-crypto " + i->status + (i->note.empty() ? "" : ": " + i->note);
  return "no system/kallsyms-crypto: a kit before December 2026";
}

// What the archive says about the questions the model leaves open for P1's locking run
// (docs/calibration.md's hypotheses): where the engine's interrupt runs against the caller (H1,
// H3), how many a request takes, whether the done callback's terminate_all resets the rx pipe
// because the UNLOCK is still listed (H4), and the IOMMU's mode (H1 against H2). It draws a
// hypothesis' conclusion only where the model's reading of it holds: the series' kernel, and for
// the interrupt count SM8650's timing.
std::string open_questions(const BoardArchive& a, const FdtCrypto* crypto, const DriverFinding& driver,
                           const std::string& iommu_mode, const std::string& seed_scenario, bool sm8650) {
  const bool series = driver.kind == DriverFinding::series;
  std::string r =
      "\n## What this board says about the open questions\n\nThe hypotheses are docs/calibration.md's for P1's "
      "locking run: H1 (the committed profile: the interrupt on another core than the caller's, the UNLOCK freed in a "
      "hardirq), H2 (the series' extra wall in the SMMU's page walks), H3 (the interrupt on the caller's core), H4 "
      "(the UNLOCK freed in softirq after terminate_all's pipe reset).\n\n";
  r += "- **The driver**: ";
  if (series)
    r += "the BAM-locking series (" + driver.names + ").\n";
  else if (driver.kind == DriverFinding::mainline)
    r += "mainline, registers written by the CPU (" + driver.names + ")" +
         (driver.bam_half.empty() ? "" : "; the series' BAM half alone (" + driver.bam_half + ")") +
         ": the locking questions need a run on the series' kernel.\n";
  else
    r += "not known (" + unknown_driver_why(a) + ").\n";

  const BenchRun* seed = run_named(a, "runs/seed-qce");
  const EngineIrqs e = seed ? engine_irqs(*seed, crypto) : EngineIrqs{};
  r += "- **Where the engine's interrupt ran** (H1 against H3): ";
  if (!seed || e.rows != 1 || e.cpu < 0 || e.count == 0 || seed->cpu < 0) {
    r += "not recorded (runs/seed-qce with one row of the crypto BAM's and its irq_cpu line, which kits from "
         "December 2026 print).\n";
  } else {
    r += fmt::format("CPU{} took {} of the crypto BAM's {} interrupts during runs/seed-qce", e.cpu, e.cpu_count,
                     e.count);
    if (seed->cpu_end >= 0 && seed->cpu_end != seed->cpu)
      r += fmt::format(", whose loop moved from CPU{} to CPU{}: the placement is not decided.\n", seed->cpu,
                       seed->cpu_end);
    else if (!mostly_on_one_cpu(e))
      r += fmt::format(", whose loop ran on CPU{}: spread over CPUs, neither placement held throughout.\n", seed->cpu);
    else if (e.cpu == seed->cpu)
      r += fmt::format(", whose loop ran on CPU{}: the caller's own core (H3's placement).\n", seed->cpu);
    else
      r += fmt::format(
          ", whose loop ran on CPU{}: another core than the caller's (H1's placement, the SM8650 "
          "profile's).\n",
          seed->cpu);
  }

  // The pipe resets per request: bam_chan_init_hw calls per qce_dma_terminate_all call (once per
  // request: the done callback terminates the rx and the tx channel), else per two of
  // bam_dma_terminate_all's (which also counts another bam_dma client's calls in the window).
  const long long resets = traced_calls(a.ftrace, "bam_chan_init_hw");
  const long long qce_terms = traced_calls(a.ftrace, "qce_dma_terminate_all");
  const long long bam_terms = traced_calls(a.ftrace, "bam_dma_terminate_all");
  const double requests = qce_terms > 0   ? static_cast<double>(qce_terms)
                          : bam_terms > 0 ? static_cast<double>(bam_terms) / 2
                                          : 0.0;
  const double per_request = requests > 0 ? static_cast<double>(std::max(resets, 0LL)) / requests : -1;

  r += "- **Interrupts per request**: ";
  if (!seed || e.rows != 1 || seed->messages == 0) {
    r += "not measured (no single row of the crypto BAM's in /proc/interrupts during runs/seed-qce).\n";
  } else {
    const double per = static_cast<double>(e.count) / static_cast<double>(seed->messages);
    r += fmt::format("{:.2f} during runs/seed-qce", per);
    // SM8650's model: the series' UNLOCK races the tx EOT's handler (docs/calibration.md); on
    // other SoCs the count is the model's to compare, by timing (the IPQ40xx's two EOTs come
    // within one handler).
    if (series && sm8650 && std::fabs(per - 2) <= 0.05)
      r += ": the tx EOT's handler saw the UNLOCK (H1) or the UNLOCK took no interrupt of its own (H4); the pipe "
           "resets below tell which.\n";
    else if (series && sm8650 && std::fabs(per - 3) <= 0.05)
      r += ": a third hardirq per request, the UNLOCK's own: its interrupt came after the tx EOT's handler had read "
           "its sources (H3's timing), or after a pipe reset (the resets below tell).\n";
    else if (series && sm8650 && per > 2 && per < 3)
      r += fmt::format(
          ": about {:.0f} % of the requests took a third, the UNLOCK's own: the race with the tx EOT's "
          "handler went both ways.\n",
          (per - 2) * 100);
    else if (!seed_scenario.empty())
      r += "; `qcesim run " + seed_scenario + "` sets the model's count beside it.\n";
    else
      r += ".\n";
  }

  r += "- **Pipe resets** (H1 against H4): ";
  if (a.ftrace.kind.empty()) {
    r += "no function trace (the kit's -f).\n";
  } else if (requests <= 0) {
    r += "the trace saw neither qce_dma_terminate_all nor bam_dma_terminate_all called, so resets cannot be counted "
         "per request.\n";
  } else if (resets < 0 && !a.ftrace_traceable.count("bam_chan_init_hw")) {
    r += "bam_chan_init_hw is not in the trace's list of functions (inlined, or a kit before December 2026): the "
         "resets cannot be counted.\n";
  } else {
    r += fmt::format(
        "bam_chan_init_hw ran {} time{} in the traced run's {:.0f} requests ({:.2f} per request, counted "
        "by {})",
        std::max(resets, 0LL), resets == 1 ? "" : "s", requests, per_request,
        qce_terms > 0 ? "qce_dma_terminate_all, once per request"
                      : "bam_dma_terminate_all, twice per "
                        "request");
    if (per_request > 1.2)
      r += ": more than one reset per request, which neither the series nor mainline does: a path the model does not "
           "take.\n";
    else if (!series)
      r += per_request > 0 ? ": a descriptor still listed when the done callback terminated the channels, which "
                             "mainline's order does not leave: a path the model does not take.\n"
                           : ": none, as mainline has none.\n";
    else if (per_request >= 0.8)
      r += ": terminate_all found the UNLOCK still listed, reset the rx pipe and freed it in softirq (H4).\n";
    else if (per_request > 0)
      r += ": on some requests only: the UNLOCK's race with the tx EOT went both ways.\n";
    else
      r += ": none, so the UNLOCK was freed in a hardirq before the done callback (H1 or H3).\n";
  }
  if (iommu_mode == "none")
    r += "- **The IOMMU's mode** (H1 against H2): no IOMMU on the engine, so no page walks: H2 does not apply.\n";
  else
    r += "- **The IOMMU's mode** (H1 against H2): " +
         (iommu_mode.empty() ? std::string("not known") : "this run's is " + iommu_mode) +
         ". The series' runs after booting with iommu.passthrough=1, beside a strict run, tell them apart: H2 loses "
         "most of the series' extra wall there, H1 keeps it.\n";
  return r;
}

// What each piece the archive may lack would settle (docs/board.md's table).
const std::vector<std::pair<std::string, std::string>>& what_it_settles() {
  static const std::vector<std::pair<std::string, std::string>> t = {
      {"system/fdt", "which SoC and profile; the engine's and BAM's addresses, EE, pipes and interrupt"},
      {"system/config",
       "whether /proc/stat's hardirq/softirq are exact (CONFIG_IRQ_TIME_ACCOUNTING) or tick samples; the IOMMU's "
       "default mode"},
      {"system/cpufreq", "the cores' clocks (cpu.<core>.freq, freq_min) and governor"},
      {"system/cpuidle", "the idle states' exit latencies (cpuidle.*): what each interrupt's wake-up costs"},
      {"system/iommu", "the crypto device's IOMMU mode (iommu.mode): map and unmap costs per request"},
      {"qce", "every engine number: the per-request fixed cost, the per-byte cost, interrupts per request"},
      {"system/kallsyms-crypto",
       "whether the kernel carries the BAM-locking series (the engine's variants then replay it: reg_io bam)"},
      {"af_alg",
       "every run: the kit measures through AF_ALG's sockets (CONFIG_CRYPTO_USER_API_HASH and _SKCIPHER; "
       "OpenWrt's kmod-crypto-user)"},
      {"runs/seed-qce", "the seed comparison (CPU against engine) on this board"},
      {"runs/seed-more-qce",
       "one more engine request per message (init, update and final): from kernel 6.5, against runs/seed-qce's "
       "digest, a request's fixed cost on its own"},
      {"runs/hmac-4096-qce", "the command-element slope: hmac(sha256) adds the key and HMAC configuration elements"},
      {"tcrypt", "an in-kernel rate without AF_ALG's system calls: the caller's share (cost.caller_overhead)"},
      {"ftrace", "per-function times as direct evidence for the cost items (qcesim calibrate --evidence)"},
      {"iommu-mode",
       "the unmap's cost on the crypto SMMU context: the same runs booted with iommu.strict=0 and iommu.passthrough=1"},
      {"dma_map_benchmark", "map/unmap time per page on the crypto device's SMMU context"},
  };
  return t;
}

std::string settles(const std::string& path) {
  for (const auto& [prefix, text] : what_it_settles())
    if (path.rfind(prefix, 0) == 0) return text;
  return "";
}

struct Profiles {
  std::vector<std::string> files;
  std::map<std::string, json> by_file;
};

const json* param(const json& profile, const std::string& name) {
  const json& ps = profile["parameters"];
  return ps.contains(name) ? &ps[name] : nullptr;
}

}  // namespace

std::vector<ProfileFile> read_profiles(const std::string& dir) {
  std::vector<ProfileFile> v;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw ConfigError(dir, "", "a folder of profiles (scenarios/)", "not a folder");
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    const json j = model::read_json_file(e.path().string(), "profile", model::InputKind::regular);
    if (j.is_object() && j.contains("parameters") && j["parameters"].is_object()) v.push_back({e.path().string(), j});
  }
  std::sort(v.begin(), v.end(), [](const ProfileFile& a, const ProfileFile& b) { return a.path < b.path; });
  return v;
}

IngestResult ingest_board(const BoardArchive& a, const std::string& board, const std::string& profiles_dir) {
  if (!model::valid_name(board) || board.size() > 40)
    throw ConfigError("--name", "", std::string(model::kNameRule) + ", at most 40 characters",
                      model::quoted_input(board));
  IngestResult res;
  res.board = board;
  std::string notes;  // the report's "how it was read" lines
  const auto note = [&](const std::string& s) { notes += "- " + s + "\n"; };

  // ---- which SoC: the device tree's crypto node against the known SoCs' wiring --------------
  std::string soc_name, soc_why;
  const FdtCrypto* crypto = nullptr;
  if (a.has_fdt) {
    for (const FdtCrypto& c : a.fdt.crypto)
      if (c.status == "okay" || c.status == "ok") crypto = &c;
    for (const std::string& n : soc::device_tree_names()) {
      const soc::DeviceTree& d = soc::device_tree(n);
      const bool root = a.fdt.compatible.find("qcom," + n) != std::string::npos;
      const bool node =
          crypto && crypto->base == d.qce_base && crypto->compatible.find(d.compatible) != std::string::npos;
      if (root || node) {
        soc_name = n;
        soc_why = node ? fmt::format("the device tree's {} ({}) at {:#x} is {}'s", crypto->path, crypto->compatible,
                                     crypto->base, n)
                       : fmt::format("the device tree's root is compatible with qcom,{}", n);
        break;
      }
    }
    if (a.fdt.crypto.empty())
      note(fmt::format("The device tree (model {}, compatible {}) has no crypto engine node: the CPU part only.",
                       a.fdt.model.empty() ? "none" : a.fdt.model,
                       a.fdt.compatible.empty() ? "none" : a.fdt.compatible));
    else if (!crypto)
      note(fmt::format("The device tree's crypto engine node {} is disabled (status {}).", a.fdt.crypto[0].path,
                       a.fdt.crypto[0].status));
  } else {
    note("No device tree in the archive: the SoC is not identified.");
  }

  // ---- the base profile ---------------------------------------------------------------------
  const std::vector<ProfileFile> profiles = read_profiles(profiles_dir);
  if (profiles.empty()) throw ConfigError(profiles_dir, "", "profile files", "none");
  std::string base;
  json prof;
  for (const ProfileFile& f : profiles) {
    const json* dt = param(f.json, "soc.dt");
    if (!soc_name.empty() && dt && dt->contains("value") && (*dt)["value"] == soc_name) {
      base = f.path;
      prof = f.json;
      break;
    }
  }
  if (base.empty()) {
    const std::string fallback = (fs::path(profiles_dir) / "sm8650.json").string();
    const auto it =
        std::find_if(profiles.begin(), profiles.end(), [&](const ProfileFile& f) { return f.path == fallback; });
    const ProfileFile& chosen = it != profiles.end() ? *it : profiles.front();
    base = chosen.path;
    prof = chosen.json;
    note(
        fmt::format("No profile for this board's SoC{}: the scenarios use {}'s engine, costs and cores where the "
                    "board says nothing else. Their predictions are {}'s, not this board's.",
                    soc_name.empty() ? "" : " (" + soc_name + ")", fs::path(base).filename().string(),
                    prof.value("profile", "that profile")));
  } else {
    note(fmt::format("SoC {}: {}; profile {}.", soc_name, soc_why, fs::path(base).filename().string()));
  }
  res.base_profile = base;
  const std::string base_name = fs::path(base).filename().string();

  // Each value the board gives: the new value and where in the archive it came from.
  struct Change {
    std::string name, was, now, from;
  };
  std::vector<Change> changes;
  const std::string src = fs::path(a.file).filename().string();
  const auto set = [&](const std::string& name, const json& value, const std::string& from) {
    json& ps = prof["parameters"];
    if (!ps.contains(name)) return false;
    json& p = ps[name];
    auto same = std::find_if(changes.begin(), changes.end(), [&](const Change& c) { return c.name == name; });
    if (same == changes.end())
      changes.push_back({name, p.value("value", json()).dump(), value.dump(), from});
    else
      same->now = value.dump(), same->from += "; " + from;
    p["value"] = value;
    p["provenance"] = fmt::format("measured: on the board, {} (archive {}, qcesim ingest)", from, src);
    p.erase("interval");  // a board's stated value is not a draw
    return true;
  };

  // ---- cores and clocks ---------------------------------------------------------------------
  std::vector<std::string> cores;
  std::string cores_from;
  if (a.has_fdt && !a.fdt.cpus.empty()) {
    for (const std::string& c : a.fdt.cpus) cores.push_back(core_from_compatible(c));
    cores_from = "the device tree's /cpus compatibles";
  } else if (!a.cpus.empty()) {
    for (const CpuId& c : a.cpus) cores.push_back(core_from_midr(c));
    cores_from = "/proc/cpuinfo's CPU implementer and part";
  }
  if (a.has_fdt && !a.fdt.cpus.empty() && a.fdt.cpus.size() == a.cpus.size()) {
    for (std::size_t i = 0; i < a.cpus.size(); ++i) {
      const std::string midr = core_from_midr(a.cpus[i]);
      if (midr != cores[i]) {
        note(
            fmt::format("cpu{}: the device tree says {}, its MIDR says {} (an emulator's or a vendor's core); the "
                        "device tree's name is used.",
                        i, cores[i], midr));
        break;
      }
    }
  }
  bool cores_known = !cores.empty();
  for (const std::string& c : cores) cores_known = cores_known && param(prof, "cpu." + c + ".freq") != nullptr;
  if (!cores.empty()) {
    std::string list;
    for (const std::string& c : cores) list += (list.empty() ? "" : ",") + c;
    if (cores_known) {
      set("cpu.cpus", list, cores_from);
    } else {
      std::set<std::string> unknown;
      for (const std::string& c : cores)
        if (!param(prof, "cpu." + c + ".freq")) unknown.insert(c);
      std::string u;
      for (const std::string& c : unknown) u += (u.empty() ? "" : ", ") + c;
      note(fmt::format("The board's cores ({}: {}) include types {} does not describe ({}): cpu.cpus stays {}'s.",
                       cores_from, cores.size(), base_name, u, base_name));
    }
  }
  if (cores_known) {
    // One policy per core type: the one holding the CPU the seed loop ran on, else the fastest
    // (a type split over policies, as SM8650's A720s are, runs the model at one clock).
    // Where the seed loops ran (runs/seed-cpu, then runs/seed-qce): the task CPU.
    std::vector<const BenchRun*> seeds;
    for (const BenchRun& r : a.runs)
      if ((r.member == "runs/seed-qce" || r.member == "runs/seed-cpu") && r.cpu >= 0) seeds.push_back(&r);
    const int task = seeds.empty() ? -1 : seeds.back()->cpu;
    std::map<std::string, const CpufreqPolicy*> chosen;
    for (const CpufreqPolicy& p : a.cpufreq) {
      if (p.cpus.empty() || p.cpus.front() >= cores.size()) continue;
      const std::string& type = cores[p.cpus.front()];
      const bool has_task = std::find(p.cpus.begin(), p.cpus.end(), static_cast<unsigned>(task)) != p.cpus.end();
      const CpufreqPolicy*& c = chosen[type];
      const bool c_has_task =
          c && std::find(c->cpus.begin(), c->cpus.end(), static_cast<unsigned>(task)) != c->cpus.end();
      if (!c || has_task || (!c_has_task && p.max_khz > c->max_khz)) c = &p;
    }
    for (const CpufreqPolicy& p : a.cpufreq) {
      if (p.cpus.empty() || p.cpus.front() >= cores.size()) continue;
      const std::string& type = cores[p.cpus.front()];
      if (chosen[type] != &p) continue;
      if (p.max_khz > 0) set("cpu." + type + ".freq", p.max_khz / 1e6, "cpufreq " + p.name + " cpuinfo_max_freq");
      if (p.min_khz > 0) set("cpu." + type + ".freq_min", p.min_khz / 1e6, "cpufreq " + p.name + " cpuinfo_min_freq");
      if (p.governor == "performance" || p.governor == "schedutil" || p.governor == "ondemand")
        set("cpu.governor", p.governor, "cpufreq " + p.name + " scaling_governor");
      // The OPPs the governors pick among, within the range the same policy gave the core
      // (cpu.<type>.opps; written exactly as freq and freq_min are, so the ends compare equal).
      std::string opps;
      if (p.min_khz > 0 && p.max_khz > 0)
        for (const double khz : p.available_khz)
          if (khz >= p.min_khz && khz <= p.max_khz) opps += (opps.empty() ? "" : ",") + fmt::format("{}", khz / 1e6);
      json& ps = prof["parameters"];
      const std::string key = "cpu." + type + ".opps";
      if (opps.empty() && ps.contains(key) && (p.max_khz > 0 || p.min_khz > 0)) {
        // The base profile's table need not fit the board's range: without the board's own list
        // the governors pick any frequency in it.
        ps.erase(key);
        note(key + " left out: the board gave " + type + "'s range (" + p.name + ") but no frequency list in it.");
      }
      if (!opps.empty()) {
        if (!ps.contains(key))
          ps[key] = {{"value", ""},
                     {"unit", "GHz list"},
                     {"doc", "The frequencies the clock driver offers a " + type +
                                 " (GHz, ascending): governors pick among them."}};
        set(key, opps, "cpufreq " + p.name + " scaling_available_frequencies");
      }
    }
    for (const BenchRun* r : seeds)
      if (static_cast<std::size_t>(r->cpu) < cores.size())
        set("cpu.task_cpu", r->cpu, r->member + " cpu_start (where the measuring loop ran)");
    // Where the BAM's interrupts went during the seed's engine run: cpu.irq_cpu (and with it the
    // softirq and the done work), when one CPU took nine in ten of them or more.
    const BenchRun* seed_qce = run_named(a, "runs/seed-qce");
    const EngineIrqs e = seed_qce ? engine_irqs(*seed_qce, crypto) : EngineIrqs{};
    if (e.rows == 1 && e.cpu >= 0 && e.count > 0) {
      const std::string what = fmt::format("{} of the BAM's {} interrupts on CPU{}", e.cpu_count, e.count, e.cpu);
      if (static_cast<std::size_t>(e.cpu) >= cores.size())
        note("The BAM's interrupts in runs/seed-qce went to CPU" + std::to_string(e.cpu) + ", which the board's " +
             std::to_string(cores.size()) + " cores do not include: cpu.irq_cpu stays the profile's.");
      else if (mostly_on_one_cpu(e))
        set("cpu.irq_cpu", e.cpu, "runs/seed-qce /proc/interrupts: " + what);
      else
        note("The BAM's interrupts in runs/seed-qce went to more than one CPU (" + what +
             "): cpu.irq_cpu stays the profile's.");
    }
  }
  if (a.cpufreq.empty()) note("No cpufreq policies: the cores' clocks stay the profile's.");

  // ---- idle states ----------------------------------------------------------------------------
  const bool idle_states = std::any_of(a.idle.begin(), a.idle.end(), [](const IdleState& s) { return !s.disabled; });
  if (a.item("system/cpuidle") && !idle_states) {
    set("cpuidle.off", 1,
        "no cpuidle driver (" + (a.cpuidle_driver.empty() ? "none" : a.cpuidle_driver) +
            "): idle is the architecture's WFI");
  } else {
    const int task = static_cast<int>(prof["parameters"].value("cpu.task_cpu", json::object()).value("value", 0.0));
    for (const IdleState& s : a.idle) {
      if (static_cast<int>(s.cpu) != task || s.disabled) continue;
      std::string n = lower(s.name);
      std::replace(n.begin(), n.end(), '-', '_');
      while (!n.empty() && (std::isdigit(static_cast<unsigned char>(n.back())) || n.back() == '_')) n.pop_back();
      const std::string from = fmt::format("cpuidle cpu{} {} ({})", s.cpu, s.state, s.name);
      if (set("cpuidle." + n + ".exit_latency", s.latency_us, from))
        set("cpuidle." + n + ".target_residency", s.residency_us, from);
      else if (n != "wfi" && n != "poll")
        note(fmt::format("Idle state {} of cpu{} ({}: {} us exit latency) has no counterpart in {}.", s.name, s.cpu,
                         s.state, s.latency_us, base_name));
    }
  }

  // ---- the IOMMU mode -------------------------------------------------------------------------
  std::string iommu_mode;  // as found ("" not known), for the open questions below
  {
    std::string mode, from;
    for (const IommuDevice& d : a.iommu)
      if (lower(d.device).find("crypto") != std::string::npos) {
        mode = d.type == "DMA" ? "strict" : d.type == "DMA-FQ" ? "lazy" : d.type == "identity" ? "passthrough" : "";
        from = fmt::format("IOMMU group {} of {} is {}", d.group, d.device, d.type);
      }
    const std::string cmd = " " + a.cmdline + " ";
    if (mode.empty() && cmd.find(" iommu.passthrough=1 ") != std::string::npos)
      mode = "passthrough", from = "kernel command line iommu.passthrough=1";
    if (mode.empty() && cmd.find(" iommu.strict=0 ") != std::string::npos)
      mode = "lazy", from = "kernel command line iommu.strict=0";
    if (mode.empty() && a.has_fdt && crypto && !crypto->iommus)
      mode = "none", from = "the crypto node has no iommus property";
    if (mode.empty() && a.has_config) {
      if (a.config.count("CONFIG_IOMMU_DEFAULT_PASSTHROUGH") && a.config.at("CONFIG_IOMMU_DEFAULT_PASSTHROUGH") == "y")
        mode = "passthrough", from = "kernel config CONFIG_IOMMU_DEFAULT_PASSTHROUGH";
      else if (a.config.count("CONFIG_IOMMU_DEFAULT_DMA_LAZY") && a.config.at("CONFIG_IOMMU_DEFAULT_DMA_LAZY") == "y")
        mode = "lazy", from = "kernel config CONFIG_IOMMU_DEFAULT_DMA_LAZY";
      else if (a.config.count("CONFIG_IOMMU_DEFAULT_DMA_STRICT") &&
               a.config.at("CONFIG_IOMMU_DEFAULT_DMA_STRICT") == "y" && crypto)
        mode = "strict", from = "kernel config CONFIG_IOMMU_DEFAULT_DMA_STRICT";
    }
    iommu_mode = mode;
    if (!mode.empty())
      set("iommu.mode", mode, from);
    else
      note("The crypto device's IOMMU mode is not in the archive: iommu.mode stays the profile's.");
  }

  // ---- the driver's era: the kernel release and the engine's priority -------------------------
  bool hash_in_calls = false;  // AF_ALG's hash socket before 6.5: init, update and final
  {
    unsigned major = 0, minor = 0;
    if (std::sscanf(a.release.c_str(), "%u.%u", &major, &minor) == 2) {
      const unsigned v = major * 1000 + minor;
      // 2020: before Thara Gopinath's 2021 fixes (v5.13); 2021: until the December 2024 rework
      // (v6.14); 2024 after (docs/cipher.md). The 2026 self-test fixes name no release yet.
      int era = v < 5013 ? 2020 : v < 6014 ? 2021 : 2024;
      long prio = 0;
      for (const CryptoDriver& d : a.drivers)
        if (is_qce(d.driver, d.module)) prio = d.priority;
      std::string from = "kernel release " + a.release;
      // The engine's priority is the driver's own word (300 until December 2024, 275 after): it
      // wins over the release number, which a vendor kernel may have patched past.
      if (prio == 275 && era < 2024) era = 2024;
      if (prio == 300 && era >= 2024) era = 2021;
      if (prio)
        from += fmt::format(", qce priority {} in /proc/crypto ({})", prio,
                            prio == 300   ? "before December 2024"
                            : prio == 275 ? "after December 2024"
                                          : "?");
      set("driver.era", era, from);
      // AF_ALG's hash socket takes a message sent whole as one digest only since 6.5 (algif_hash's
      // sendmsg rework); before, as init, update and final: the hash scenarios replay those calls.
      hash_in_calls =
          v < 6005 && std::any_of(a.runs.begin(), a.runs.end(), [](const BenchRun& r) { return r.type == "hash"; });
      if (hash_in_calls)
        note(fmt::format(
            "Kernel {} is older than 6.5: its AF_ALG hash socket hashes each message as init, update and final, "
            "not as one digest (the qce driver's update holds the last block back for the final: two engine "
            "requests per message longer than a block). The hash scenarios replay those calls "
            "(workload.hash_calls \"init_update_final\").",
            a.release));
    }
  }

  // ---- the fallback threshold: the qcrypto module's aes_sw_max_len ----------------------------
  // Requests up to it go to software (every AES mode in the 2020 driver, XTS since 2021): whether a
  // small cipher request reaches the engine at all.
  if (a.aes_sw_max_len) {
    const std::string from = "/sys/module/qcrypto/parameters/aes_sw_max_len";
    const json* p = param(prof, "driver.aes_sw_max_len");
    // The profile's range (a user's profile may give none: then no end).
    double hi = std::numeric_limits<double>::infinity();
    if (p && p->is_object() && p->contains("range")) {
      const json& r = (*p)["range"];
      if (r.is_array() && r.size() == 2 && r[1].is_number()) hi = r[1].get<double>();
    }
    if (static_cast<double>(*a.aes_sw_max_len) <= hi) {
      set("driver.aes_sw_max_len", *a.aes_sw_max_len, from);
    } else if (p) {
      const auto end = static_cast<std::uint64_t>(hi);
      set("driver.aes_sw_max_len", end, fmt::format("{} ({}, beyond the range's {})", from, *a.aes_sw_max_len, end));
      note(
          fmt::format("The driver's aes_sw_max_len is {}: every request up to {} bytes goes to software, so "
                      "driver.aes_sw_max_len is the range's end, {}.",
                      *a.aes_sw_max_len, end, end));
    }
  } else if (const ManifestItem* it = a.item("system/qce-parameters"); it && it->status == "absent") {
    set("driver.aes_sw_max_len", 0, "no aes_sw_max_len among the qcrypto module's parameters: no length threshold");
  } else if (std::any_of(a.drivers.begin(), a.drivers.end(),
                         [](const CryptoDriver& d) { return is_qce(d.driver, d.module); })) {
    const json* p = param(prof, "driver.aes_sw_max_len");
    note(
        fmt::format("The archive does not give the driver's aes_sw_max_len (a kit before 2026-12-06): "
                    "driver.aes_sw_max_len stays {}'s {}.",
                    base_name, p && p->contains("value") ? (*p)["value"].dump() : "value"));
  }

  // ---- the profile file -----------------------------------------------------------------------
  const std::string profile_file = board + "-profile.json";
  prof["profile"] = board;
  prof["about"] = fmt::format(
      "The board in {} ({}{}), made by qcesim ingest from {} with the board's stated and measured values; every "
      "other value is {}'s.",
      src, a.has_fdt && !a.fdt.model.empty() ? a.fdt.model : "no device tree model",
      a.uname.empty() ? "" : ", " + a.uname, base_name, base_name);

  // ---- scenarios: one per workload (algorithm, size), a variant per driver ----------------------
  // The measuring process's own CPU time is the model's task_s only where the kernel charges the
  // interrupts' time to them, not to the process they interrupted (CONFIG_IRQ_TIME_ACCOUNTING).
  const bool irq_time_accounting =
      a.has_config && a.config.count("CONFIG_IRQ_TIME_ACCOUNTING") && a.config.at("CONFIG_IRQ_TIME_ACCOUNTING") == "y";
  if (!irq_time_accounting && !a.runs.empty())
    note(
        "Without CONFIG_IRQ_TIME_ACCOUNTING=y in the archive's kernel configuration the process's own CPU time "
        "may hold interrupts' time: it is in the report's task column but not a measured task_s.");
  struct Group {
    std::string alg, send;
    std::uint64_t bytes = 0, key = 0;
    std::vector<const BenchRun*> runs;
  };
  std::map<std::string, Group> groups;
  std::string unsupported;
  for (const BenchRun& r : a.runs) {
    if (r.alg != "sha256" && r.alg != "cbc(aes)") {
      if (unsupported.find(r.alg) == std::string::npos) unsupported += (unsupported.empty() ? "" : ", ") + r.alg;
      continue;
    }
    // Messages sent with MSG_MORE are another workload (init, update and final on every kernel).
    const std::string key =
        fmt::format("{}-{}{}", name_from(r.alg == "cbc(aes)" ? fmt::format("cbc-aes{}", r.key_bytes * 8) : r.alg),
                    r.bytes, r.send == "more" ? "-more" : "");
    Group& g = groups[key];
    g.alg = r.alg;
    g.send = r.send;
    g.bytes = r.bytes;
    g.key = r.key_bytes;
    g.runs.push_back(&r);
  }
  const DriverFinding driver = qce_driver_kind(a);
  if (std::any_of(a.runs.begin(), a.runs.end(), [&](const BenchRun& b) { return is_qce_driver(b, a); })) {
    if (driver.kind == DriverFinding::series)
      note("The kernel carries the BAM-locking series (" + driver.names +
           " in its function names): the engine's variants replay it (reg_io bam, with BAM locking).");
    else if (driver.kind == DriverFinding::mainline)
      note("The kernel's qce driver writes the engine's registers from the CPU (" + driver.names +
           ", none of the locking series' qce functions in its function names" +
           (driver.bam_half.empty() ? std::string()
                                    : "; the series' BAM half is there (" + driver.bam_half +
                                          "), which mainline's qce "
                                          "does not use") +
           "): the engine's variants run the mainline driver (reg_io mmio, no BAM locking).");
    else
      note(
          "The engine's variants run the mainline driver (reg_io mmio, no BAM locking): nothing in the archive says "
          "whether the kernel carries the locking series (" +
          unknown_driver_why(a) + "); edit the scenarios' variants if it does.");
  }
  if (!unsupported.empty())
    note("Runs of " + unsupported + " are reported below but make no scenario: the replay has no such workload.");
  if (!groups.empty())
    note(
        "Every scenario replays afalg-bench's loop (workload.caller \"af_alg\"): a hash's send and read system "
        "calls per message, a cbc(aes) request's sendmsg (the text copied into the socket's pages) and read (the "
        "output pinned).");
  for (const auto& [key, g] : groups) {
    json sc;
    const std::string name = board + "-" + key;
    sc["scenario"] = name;
    sc["about"] = fmt::format(
        "Measured on the board in {} by the qcesim kit ({}): {} x {}-byte {} requests, one at a "
        "time through AF_ALG{}, per driver.",
        src, a.started.empty() ? "no date" : a.started, g.runs.front()->messages, g.bytes, g.alg,
        g.send == "more" ? ", each message sent with MSG_MORE and finalised by the read (init, update, final)" : "");
    sc["profile"] = profile_file;
    std::uint64_t messages = 0;
    for (const BenchRun* r : g.runs) messages = std::max(messages, r->messages);
    json wl = {{"messages", messages}, {"message_bytes", g.bytes}, {"algorithm", g.alg}, {"queue_depth", 1}};
    if (g.alg == "cbc(aes)") wl["key_bytes"] = g.key, wl["direction"] = "encrypt";
    wl["caller"] = "af_alg";  // afalg-bench's send (or sendmsg) and read per message
    if (g.alg != "cbc(aes)" && (hash_in_calls || g.send == "more")) wl["hash_calls"] = "init_update_final";
    sc["workload"] = wl;
    json vs = json::array();
    std::set<std::string> used;
    for (const BenchRun* r : g.runs) {
      const bool qce = is_qce_driver(*r, a);
      std::string vname = name_from(r->driver);
      if (vname.empty() || !model::valid_name(vname) || used.count(vname))
        vname = fmt::format("run-{}", used.size() + 1);
      used.insert(vname);
      json v = {{"name", vname}, {"engine", qce ? "qce" : "cpu"}};
      if (qce) v["reg_io"] = driver.kind == DriverFinding::series ? "bam" : "mmio";
      v["about"] = fmt::format("{} ({}): {}{}", r->driver, r->member, r->status,
                               r->check.empty() ? "" : ", output " + r->check + " to the generic driver's");
      v["measured"] = {{"messages", r->messages}, {"message_bytes", r->bytes}, {"wall_s", r->wall_s},
                       {"cpu_s", r->cpu_s},       {"hardirq_s", r->hardirq_s}, {"softirq_s", r->softirq_s}};
      // The process's own CPU time, where it is the model's task_s: with IRQ_TIME_ACCOUNTING the
      // interrupts' time is not charged to the process they interrupted.
      if (r->task_cpu_s > 0 && irq_time_accounting) v["measured"]["task_s"] = r->task_cpu_s;
      // The engine's interrupts per request, where /proc/interrupts named its BAM: what tells the
      // driver's paths apart (two or three per request with the locking series, calibration.md H4).
      if (const EngineIrqs irqs = engine_irqs(*r, crypto); qce && irqs.rows == 1 && r->messages) {
        const double per = std::round(static_cast<double>(irqs.count) / static_cast<double>(r->messages) * 1000) / 1000;
        if (per > 0 && per <= 1000) v["measured"]["irqs_per_request"] = per;  // the scenario's range
      }
      vs.push_back(v);
    }
    sc["variants"] = vs;
    res.files.emplace_back(name + ".json", sc.dump(1, ' ', false, json::error_handler_t::replace) + "\n");
    res.scenarios.push_back(name + ".json");
  }

  // ---- the per-function table ----------------------------------------------------------------
  std::vector<std::string> items;
  for (const auto& [n, p] : prof["parameters"].items())
    if (n.rfind("cost.", 0) == 0) items.push_back(n);
  json fn = json::array();
  std::string fn_rows;
  for (const FunctionStat& f : a.ftrace.functions) {
    if (f.calls == 0) continue;
    const std::string item = kernel_function_item(f.function, items);
    const double mean = f.total_us / static_cast<double>(f.calls);
    const double self = f.self_us / static_cast<double>(f.calls);
    fn.push_back({{"function", f.function},
                  {"calls", f.calls},
                  {"mean_us", mean},
                  {"self_mean_us", self},
                  {"max_us", f.max_us},
                  {"item", item.empty() ? json() : json(item)},
                  {"cpu", f.cpu >= 0 ? json(f.cpu) : json()}});
    fn_rows += fmt::format("| {} | {} | {:.3f} | {:.3f} | {} |\n", model::markdown_code(f.function, true), f.calls,
                           mean, self, item.empty() ? "—" : model::markdown_code(item, true));
  }
  if (!a.ftrace.kind.empty()) {
    json t = {{"board", board},
              {"archive", src},
              {"tracer", a.ftrace.kind == "graph" ? "function_graph" : "function profiler"},
              {"about",
               "Per-call times of the kernel functions the kit traced, and the cost item each is evidence "
               "for. function_graph's self time excludes traced callees only; both tracers add their own "
               "overhead to every call (docs/board.md)."},
              {"functions", fn}};
    res.files.emplace_back(board + "-functions.json", t.dump(1, ' ', false, json::error_handler_t::replace) + "\n");
  }

  // ---- the report ------------------------------------------------------------------------------
  std::string r;
  r += fmt::format("# Board {}: what `qcesim ingest` read from {}\n\n", board, src);
  r += fmt::format("Kit {}, {} to {}. Kernel: {}. Command line: {}.\n\n", a.kit.empty() ? "?" : a.kit,
                   a.started.empty() ? "?" : a.started, a.finished.empty() ? "?" : a.finished,
                   a.uname.empty() ? "not recorded" : a.uname, model::markdown_code(a.cmdline, false));
  r += "## How it was read\n\n" + notes;
  if (a.has_config) {
    const auto it = a.config.find("CONFIG_IRQ_TIME_ACCOUNTING");
    const bool exact = it != a.config.end() && it->second == "y";
    r += exact ? "- CONFIG_IRQ_TIME_ACCOUNTING=y: /proc/stat's hardirq and softirq times are measured.\n"
               : "- CONFIG_IRQ_TIME_ACCOUNTING is off: /proc/stat's hardirq and softirq times are tick samples "
                 "(coarse; short runs may show 0).\n";
  }
  if (crypto) {
    // The engine's wiring as the board's device tree has it, beside the entry the profile runs.
    const json* dt = param(prof, "soc.dt");
    const soc::DeviceTree* entry = nullptr;
    if (dt && dt->contains("value") && (*dt)["value"].is_string()) {
      try {
        entry = &soc::device_tree((*dt)["value"].get<std::string>());
      } catch (const std::invalid_argument&) {
        entry = nullptr;
      }
    }
    const auto hex = [](std::uint64_t at, std::uint64_t size) { return fmt::format("{:#x} + {:#x}", at, size); };
    struct Row {
      std::string what, board, model;
    };
    std::vector<Row> rows = {
        {"crypto node", crypto->path + " (" + crypto->compatible + ")", entry ? entry->compatible : "—"},
        {"engine registers", hex(crypto->base, crypto->size), entry ? hex(entry->qce_base, entry->qce_size) : "—"},
        {"BAM",
         crypto->bam_path.empty() ? "no dmas"
                                  : hex(crypto->bam_base, crypto->bam_size) + " (" + crypto->bam_compatible + ")",
         entry ? hex(entry->bam_base, entry->bam_size) : "—"},
        {"Linux's EE on the BAM", crypto->has_ee ? std::to_string(crypto->bam_ee) : "not stated",
         entry ? std::to_string(entry->bam_ee) : "—"},
        {"pipes rx / tx", crypto->has_pipes ? fmt::format("{} / {}", crypto->rx_pipe, crypto->tx_pipe) : "not stated",
         entry ? fmt::format("{} / {}", entry->rx_pipe, entry->tx_pipe) : "—"},
        {"BAM interrupt", crypto->has_spi ? fmt::format("GIC SPI {}", crypto->bam_spi) : "not an SPI",
         entry ? fmt::format("GIC SPI {}", entry->bam_spi) : "—"},
        {"BAM controlled by another EE", crypto->controlled_remotely ? "yes" : "no", "—"},
        {"IOMMU on the engine", crypto->iommus ? "yes (iommus)" : "no", "—"},
    };
    r += fmt::format("\n## The engine's wiring: the board's device tree and {}'s\n\n| | board | {} |\n|---|---|---|\n",
                     entry ? entry->name : "no profile entry", entry ? "soc.dt " + entry->name : "model");
    bool differs = false;
    for (const Row& row : rows) {
      r += fmt::format("| {} | {} | {} |\n", model::markdown_cell(row.what), model::markdown_cell(row.board),
                       model::markdown_cell(row.model));
      if (entry && row.model != "—" && row.what != "crypto node" && row.what != "BAM" && row.board != row.model)
        differs = true;
    }
    if (entry && (crypto->bam_base != entry->bam_base || crypto->bam_size != entry->bam_size)) differs = true;
    if (differs)
      r += "\nThe board's wiring differs from the entry the profile runs (soc.dt): the model keeps the entry's; a SoC "
           "wired otherwise needs its own entry in soc/device_tree.cpp.\n";
  }
  r += fmt::format("\n## The profile: {} (from {})\n\n", profile_file, base_name);
  if (changes.empty()) {
    r += "The board changed no value.\n";
  } else {
    r += "| parameter | was | board | from |\n|---|---|---|---|\n";
    for (const Change& c : changes)
      r += fmt::format("| {} | {} | {} | {} |\n", model::markdown_code(c.name, true), model::markdown_cell(c.was),
                       model::markdown_cell(c.now), model::markdown_cell(c.from));
  }
  r += "\n## The runs\n\nCPU is every core's busy time (/proc/stat: user, nice, system, irq and softirq), as the "
       "seed measurement's and the model's; task is the measuring process's own (utime + stime).\n\n| run | driver "
       "| engine | messages | bytes | µs/request wall | µs/request CPU | µs/request task | hardirq s | softirq s | "
       "engine interrupts/request | output |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const BenchRun& b : a.runs) {
    const double n = static_cast<double>(b.messages);
    const std::uint64_t irqs = engine_irqs(b, crypto).count;
    r +=
        fmt::format("| {} | {} | {} | {} | {} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {} | {} |\n",
                    model::markdown_cell(b.member), model::markdown_cell(b.driver), is_qce_driver(b, a) ? "qce" : "cpu",
                    b.messages, b.bytes, 1e6 * b.wall_s / n, 1e6 * b.cpu_s / n, 1e6 * b.task_cpu_s / n, b.hardirq_s,
                    b.softirq_s, irqs ? fmt::format("{:.2f}", static_cast<double>(irqs) / n) : "—",
                    b.check.empty() ? "not checked" : model::markdown_cell(b.check));
  }
  for (const ManifestItem& f : a.failed_runs)
    r += fmt::format("\n- {} is not a measurement ({}{}).", f.path, f.status, f.note.empty() ? "" : ": " + f.note);
  if (!a.failed_runs.empty()) r += "\n";
  std::string listed;
  for (const std::string& s : res.scenarios) listed += (listed.empty() ? "" : ", ") + s;
  r += fmt::format("\nScenarios: {}. Next: `qcesim validate FOLDER` shows these rows against the model.\n",
                   listed.empty() ? "none" : listed);
  // How deep the measuring CPU slept while it waited: a state deep enough has an exit the
  // request then pays (docs/calibration.md, P3's full queue). Only for a loop that stayed on one
  // CPU: another CPU's states are not its.
  std::string idle_rows;
  for (const BenchRun& b : a.runs)
    for (const IdleDelta& d : b.idle)
      if (b.cpu >= 0 && b.cpu_end == b.cpu && d.cpu == static_cast<unsigned>(b.cpu))
        idle_rows +=
            fmt::format("| {} | {} | {} {} | {:.3f} | {:.1f} |\n", model::markdown_cell(b.member), d.cpu, d.state,
                        model::markdown_cell(d.name), static_cast<double>(d.entries) / static_cast<double>(b.messages),
                        d.time_us / static_cast<double>(d.entries));
  if (!idle_rows.empty())
    r += "\n## Where the measuring CPU slept (cpuidle)\n\n| run | CPU | state | entries/request | µs per entry "
         "|\n|---|---|---|---|---|\n" +
         idle_rows;
  if (std::any_of(a.tcrypt.begin(), a.tcrypt.end(), [](const TcryptRow& t) { return t.updates == 1; })) {
    r += "\n## tcrypt (one-shot digests; skcipher rows where the log has them)\n\n| driver | operation | bytes | "
         "operations/s | µs/operation |\n|---|---|---|---|---|\n";
    for (const TcryptRow& t : a.tcrypt)
      if (t.updates == 1)
        r += fmt::format("| {} | {} | {} | {:.0f} | {:.2f} |\n", model::markdown_cell(t.driver),
                         t.direction.empty() ? "digest" : fmt::format("{}-bit {}", t.key_bits, t.direction),
                         t.block_bytes, t.ops_per_s, 1e6 / t.ops_per_s);
  }
  if (!a.ftrace.kind.empty()) {
    r += fmt::format(
        "\n## Per-function times ({}; {})\n\n| function | calls | mean µs | self µs | cost item |\n"
        "|---|---|---|---|---|\n",
        a.ftrace.kind == "graph" ? "function_graph" : "function profiler", board + "-functions.json");
    r += fn_rows;
  }
  if (crypto || driver.kind != DriverFinding::unknown ||
      std::any_of(a.runs.begin(), a.runs.end(), [&](const BenchRun& b) { return is_qce_driver(b, a); })) {
    const json* dt = param(prof, "soc.dt");
    const bool sm8650 = dt && dt->contains("value") && (*dt)["value"] == "sm8650";
    const std::string seed_scenario =
        std::find(res.scenarios.begin(), res.scenarios.end(), board + "-sha256-4096.json") != res.scenarios.end()
            ? board + "-sha256-4096.json"
            : "";
    r += open_questions(a, crypto, driver, iommu_mode, seed_scenario, sm8650);
  }
  r += "\n## What the archive lacks, and what each would settle\n\n";
  bool lacks = false;
  for (const ManifestItem& i : a.items) {
    if (i.status == "collected" || i.status == "present") continue;
    if (i.path == "system/qce-parameters") continue;  // no aes_sw_max_len is itself the answer (above)
    lacks = true;
    const std::string s = settles(i.path);
    r += fmt::format("- {} ({}{}){}\n", model::markdown_code(i.path, false), i.status,
                     i.note.empty() ? "" : ": " + i.note, s.empty() ? "" : " — would settle " + s);
  }
  if (!lacks) r += "Nothing: every item the kit collects is here.\n";
  res.report = r;
  res.files.emplace_back(profile_file, prof.dump(1, ' ', false, json::error_handler_t::replace) + "\n");
  res.files.emplace_back(board + "-report.md", r);
  return res;
}

}  // namespace qcesim::ingest
