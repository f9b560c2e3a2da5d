#include "cli/run_command.h"

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <spdlog/fmt/fmt.h>
#include <thread>

#include "cli/compare_table.h"
#include "cli/numbers.h"
#include "cli/output_file.h"
#include "studies/stop_signals.h"
#include "studies/uncertainty.h"
#include "model/config_error.h"
#include "model/trace.h"

namespace qcesim::cli {

using nlohmann::json;

std::string per_variant_file(const std::string& file, const std::string& variant, bool several) {
  if (!several) return file;
  const std::filesystem::path p(file);
  return (p.parent_path() / (p.stem().string() + "." + variant + p.extension().string())).string();
}

bool parse_request_range(const std::string& text, std::int64_t& first, std::int64_t& last) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) return false;
  const std::string a = text.substr(0, colon), b = text.substr(colon + 1);
  std::uint64_t f = 0, l = static_cast<std::uint64_t>(INT64_MAX);
  if (!a.empty() && !parse_whole(a, 0, static_cast<std::uint64_t>(INT64_MAX) - 1, f)) return false;
  if (!b.empty() && !parse_whole(b, 1, static_cast<std::uint64_t>(INT64_MAX), l)) return false;
  first = static_cast<std::int64_t>(f);
  last = static_cast<std::int64_t>(l);
  return last > first;
}

std::string folded_stacks(const std::vector<studies::FunctionTime>& profile) {
  std::string s;
  for (const auto& f : profile)
    s += fmt::format("{};{} {}\n", f.ctx, f.function, static_cast<long long>(std::llround(f.seconds * 1e9)));
  return s;
}

std::string folded_stacks(const studies::VariantResult& r) { return folded_stacks(r.profile); }

namespace {

std::string cell(double sim, const std::map<std::string, double>& measured, const char* key) {
  auto it = measured.find(key);
  if (it == measured.end()) return fmt::format("{:>7.3f} {:>6} {:>7}", sim, "-", "-");
  const double m = it->second;
  // A measured 0.00 is a rounded value: anything that rounds to it agrees.
  const std::string err =
      m == 0 ? (std::fabs(sim) < 0.005 ? "ok" : "n/a") : fmt::format("{:+.1f}%", (sim - m) / m * 100);
  return fmt::format("{:>7.3f} {:>6.3f} {:>7}", sim, m, err);
}

}  // namespace

// The injected faults' counts, "2 engine AXI errors, 1 watchdog timeout".
std::string fault_summary(const json& f) {
  std::string s;
  for (const studies::FaultKind& k : studies::fault_kinds())
    s += fmt::format("{}{} {}", s.empty() ? "" : ", ", f.value(k.counter, 0), k.words);
  return s + fmt::format(", {} watchdog timeouts", f.value("timeouts", 0));
}

// What sharing the engine with another EE did, in words.
std::string race_summary(const studies::VariantResult& r) {
  std::string s;
  if (!r.tz.is_null()) {
    const auto& t = r.tz;
    s += fmt::format(
        "  other EE (TrustZone): {} jobs, {} completed, {} wrong digests, {} engine errors, {} timed out; "
        "its pipes waited {:.3f} ms for Linux's lock\n",
        t.value("jobs", 0), t.value("completed", 0), t.value("digest_mismatches", 0), t.value("errors", 0),
        t.value("timeouts", 0), t.value("lock_wait_s", 0.0) * 1e3);
    s += fmt::format(
        "  Linux: {} wrong digests, {} failed requests; its pipes waited {:.3f} ms for the other EE's lock; "
        "{} AUTH_IV writes hit a running operation\n",
        r.digest_mismatches, r.failed_requests, r.lock_wait_s * 1e3, r.live_state_writes);
  }
  const bool locked = !r.tz.is_null() && r.tz.value("lock", false);
  if (!locked && (r.digest_mismatches || r.failed_requests || r.live_state_writes)) {
    s += "  why: without the BAM lock nothing keeps the other EE's register writes out of Linux's request. Its\n"
         "       command elements land one by one while Linux programs or runs the engine: AUTH_IV writes replace\n"
         "       the running hash state (wrong digest, no error), its CONFIG/SEG_SIZE writes before Linux's GO\n"
         "       redirect Linux's operation, and a GO while the engine is busy sets SW_ERR, which fails the request\n"
         "       whose driver reads STATUS next (and the model's driver's CLR_CNTXT, which mainline does not\n"
         "       write, kills the other EE's operation in turn).\n";
  } else if (locked && r.failed_requests) {
    s += "  why: the BAM lock serializes the two EEs' descriptors, so none of the other EE's register writes lands\n"
         "       inside Linux's request (no wrong digests). The failures come from qce_check_status: the done\n"
         "       callback reads STATUS with a CPU MMIO read after UNLOCK (the series keeps that read), when the\n"
         "       other EE may already hold the lock and run its operation (busy, OPERATION_DONE clear). The driver\n"
         "       fails the request; the model's driver then writes CLR_CNTXT (mainline's does not), which kills\n"
         "       the other EE's operation (its timeouts).\n"
         "       On hardware that aborts CPU access to a BAM-locked engine this read would fault instead.\n"
         "       Taking STATUS from the result dump (variant key status_from_dump) removes both.\n";
  }
  if ((r.digest_mismatches || r.failed_requests) && !r.race.empty()) s += "  first failure: " + r.race + "\n";
  return s;
}

std::string format_table(const std::vector<studies::VariantResult>& results) {
  std::size_t w = 20;  // the variant column, as wide as the longest name
  for (const auto& r : results) w = std::max(w, r.name.size());
  std::string s;
  s += fmt::format("{:<{}} | {:^22} | {:^22} | {:^22} | {:^22}\n", "variant", w, "wall [s]", "CPU [s]", "hardirq [s]",
                   "softirq [s]");
  s += fmt::format("{:<{}} | {:^22} | {:^22} | {:^22} | {:^22}\n", "", w, "sim   meas    err", "sim   meas    err",
                   "sim   meas    err", "sim   meas    err");
  s += std::string(w, '-') + ("-+-" + std::string(22, '-')) + ("-+-" + std::string(22, '-')) +
       ("-+-" + std::string(22, '-')) + ("-+-" + std::string(22, '-')) + "\n";
  for (const auto& r : results) {
    s += fmt::format("{:<{}} | {} | {} | {} | {}\n", r.name, w, cell(r.wall_s, r.measured, "wall_s"),
                     cell(r.cpu_s, r.measured, "cpu_s"), cell(r.hardirq_s, r.measured, "hardirq_s"),
                     cell(r.softirq_s, r.measured, "softirq_s"));
  }
  return s;
}

// The variants --variant names, each once, or all of them.
std::vector<const studies::Variant*> chosen_variants(const studies::Scenario& sc,
                                                     const std::vector<std::string>& names) {
  std::vector<const studies::Variant*> chosen;
  if (names.empty()) {
    for (const auto& v : sc.variants) chosen.push_back(&v);
    return chosen;
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t k = 0; k < i; ++k)
      if (names[k] == names[i])
        throw model::ConfigError("--variant", "", "each variant named once", model::quoted_input(names[i]) + " twice");
    try {
      chosen.push_back(&sc.variant(names[i]));
    } catch (const model::ConfigError& e) {
      throw model::ConfigError("--variant", "", e.expected, e.found);
    }
  }
  return chosen;
}

namespace {

// Every output file, per variant where there are several, can be written and is none of the
// files the run reads (`--json x.json` for the scenario x.json): checked before any run.
void check_outputs(const RunOptions& opt, const studies::Scenario& sc,
                   const std::vector<const studies::Variant*>& chosen) {
  const std::vector<std::string> inputs = {opt.scenario, sc.profile_file};
  if (!opt.json_file.empty()) {
    check_output("--json", opt.json_file);
    refuse_input("--json", opt.json_file, inputs);
  }
  const bool several = chosen.size() > 1;
  for (const auto& [option, file] : {std::pair<const char*, const std::string&>{"--trace", opt.trace_file},
                                     std::pair<const char*, const std::string&>{"--profile", opt.profile_file}}) {
    if (file.empty()) continue;
    if (several && check_output(option, file) == OutputKind::write_through)
      throw model::ConfigError(option, "", "one variant (--variant NAME) to write to a device or FIFO",
                               fmt::format("{} variants", chosen.size()));
    for (const studies::Variant* v : chosen) {
      const std::string each = per_variant_file(file, v->name, several);
      check_output(option, each);
      refuse_input(option, each, inputs);
    }
  }
}

// The streaming timeline of one variant's run, into its output file.
struct TraceFile : model::TraceSink {
  OutputFile file;
  model::Tracer tracer;
  TraceFile(const std::string& name, const RunOptions& opt, const std::string& title)
      : file("--trace", name), tracer(opt.trace_first, opt.trace_last, *this, title) {}
  void write(const std::string& text) override { file.write(text); }
  void commit() {
    tracer.finish();
    file.commit();
  }
};

json run_one(const studies::Scenario& sc, const studies::Variant& v, const RunOptions& opt, bool several, bool ahead) {
  std::unique_ptr<TraceFile> trace;
  if (!opt.trace_file.empty())
    trace =
        std::make_unique<TraceFile>(per_variant_file(opt.trace_file, v.name, several), opt, sc.name + " / " + v.name);
  studies::ReplayProgress progress;
  progress.report = [&v](std::uint64_t done, std::uint64_t total, double s, double left, const char* phase) {
    const std::string eta =
        left < 0 ? std::string("time left not known yet") : fmt::format("about {:.0f} s to go", left);
    std::fprintf(stderr, "  %s: %llu/%llu %s (%.0f%%), %.0f s so far, %s\n", v.name.c_str(),
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total), phase,
                 100.0 * static_cast<double>(done) / static_cast<double>(total), s, eta.c_str());
  };
  const studies::VariantResult r = studies::run_variant(sc, v, opt.timing_only, ahead, &progress);
  if (trace) trace->commit();
  if (!opt.profile_file.empty())
    write_output("--profile", per_variant_file(opt.profile_file, v.name, several), folded_stacks(r));
  return r.to_json();
}

// `outputs`: what the checks compare ("digest" for hashes, "output" for ciphers).
void print_results(const std::vector<studies::VariantResult>& results, unsigned top, const char* outputs,
                   std::ostream& out) {
  out << format_table(results);
  for (const auto& r : results) {
    out << fmt::format(
        "\n{}: {} requests, latency mean {:.1f} us, p50 {:.1f}, p99 {:.1f}, max {:.1f}; {} irqs, {} BAM "
        "descriptors, {} {} mismatches{}\n",
        r.name, r.requests, r.lat_mean_us, r.lat_p50_us, r.lat_p99_us, r.lat_max_us, r.irqs, r.bam_descriptors,
        r.digest_mismatches, outputs, r.timing_only ? " (timing only: not checked)" : "");
    if (auto it = r.measured.find(studies::kIrqsPerRequest); it != r.measured.end() && r.requests) {
      const double sim = static_cast<double>(r.irqs) / static_cast<double>(r.requests);
      out << fmt::format("  interrupts per request: {:.2f} simulated, {:.2f} measured{}\n", sim, it->second,
                         studies::irqs_match(sim, it->second)
                             ? ""
                             : ": the model takes a different path through the driver than the board "
                               "(docs/calibration.md, hypotheses H3 and H4)");
    }
    // A board's own process time (the kit's getrusage), beside the model's task context.
    if (auto it = r.measured.find("task_s"); it != r.measured.end() && it->second > 0)
      out << fmt::format("  task CPU (the measuring process's own): {:.4g} s simulated, {:.4g} s measured, {:+.1f}%\n",
                         r.task_s, it->second, 100 * (r.task_s / it->second - 1));
    if (r.fast_forward.skipped)
      out << fmt::format(
          "  fast-forward: {} of the requests repeated, not simulated{}: a steady-state cycle of {} request{} "
          "({:.3f} ms) found at request {} (same results as sim.fast_forward=0)\n",
          r.fast_forward.skipped,
          r.fast_forward.stretches > 1
              ? fmt::format(", in {} stretches between the governor's looks", r.fast_forward.stretches)
              : "",
          r.fast_forward.period, r.fast_forward.period == 1 ? "" : "s", r.fast_forward.period_s * 1e3,
          r.fast_forward.found_at);
    if (r.software)
      out << fmt::format("  {} of the requests went to the driver's software fallback (its kernel era's rules)\n",
                         r.software);
    if (!r.faults.is_null() || r.failed || r.fallback)
      out << fmt::format("  requests: {} issued = {} completed + {} failed + {} fallback{}\n", r.issued, r.completed,
                         r.failed, r.fallback,
                         r.faults.is_null() ? "" : fmt::format("; injected {}", fault_summary(r.faults)));
    if (!r.tz.is_null() || (r.failed_requests && r.faults.is_null())) out << race_summary(r);
    out << "  top CPU:";
    std::size_t k = 0;
    for (const auto& f : r.profile) {
      if (k == top) break;
      if (f.ctx == "idle") continue;  // interrupt edges on an idle core: not CPU time
      out << fmt::format("{}{}{}:{} {:.3f} s", k ? "," : "", k && k % 4 == 0 ? "\n          " : " ", f.ctx, f.function,
                         f.seconds);
      ++k;
    }
    out << "\n";
  }
}

}  // namespace

namespace {

// --uncertainty N: nominal + N samples per variant, timing only; the bands table (and JSON).
// --seeds N: N runs with service-time variation; means with confidence intervals.
int run_uncertainty(const RunOptions& opt, std::ostream& out, std::ostream& err) {
  for (const auto& [option, set] : {std::pair<const char*, bool>{"--trace", !opt.trace_file.empty()},
                                    std::pair<const char*, bool>{"--profile", !opt.profile_file.empty()}})
    if (set)
      throw model::ConfigError(option, "", "no per-run output with --uncertainty or --seeds (many runs)", option);
  if (!opt.compare.empty() && opt.seeds)
    throw model::ConfigError("--compare", "", "a plain run or --uncertainty (paired samples)", "--seeds");
  if (opt.uncertainty && opt.seeds) throw model::ConfigError("--seeds", "", "either --uncertainty or --seeds", "both");
  if (!opt.json_file.empty()) {
    check_output("--json", opt.json_file);
    refuse_input("--json", opt.json_file, {opt.scenario});  // not its profile: that would mean loading it here
  }
  studies::UncertaintySpec spec;
  spec.scenario = opt.scenario;
  spec.sets = opt.sets;
  spec.variants = opt.variants;
  spec.samples = opt.uncertainty;
  spec.seed = opt.seed;
  spec.jobs = opt.jobs;
  spec.compare = opt.compare;
  json shard_doc;
  apply_shard_options(opt.shards, spec.shard, shard_doc);
  if (opt.seeds) {
    const studies::SeedsResult s = studies::run_seeds(spec, opt.seeds, err);
    if (spec.shard.count) return write_shard(opt.shards, spec.shard, shard_doc, err), 0;
    out << studies::seeds_table(s);
    if (!opt.json_file.empty())
      write_output("--json", opt.json_file, model::json_output(studies::seeds_json(s), 2) + "\n");
    return 0;
  }
  const studies::UncertaintyResult r = studies::run_uncertainty(spec, err);
  if (spec.shard.count) return write_shard(opt.shards, spec.shard, shard_doc, err), 0;
  out << studies::uncertainty_table(r);
  if (!opt.json_file.empty())
    write_output("--json", opt.json_file, model::json_output(studies::uncertainty_json(r, spec), 2) + "\n");
  return r.failed ? 2 : 0;  // a failed sample run: the table is over the others, and says so
}

}  // namespace

int run_scenario(const RunOptions& opt, std::ostream& out, std::ostream& err) {
  if (opt.uncertainty || opt.seeds) return run_uncertainty(opt, out, err);
  if (!opt.shards.shard.empty() || !opt.shards.merge.empty() || !opt.shards.shard_out.empty())
    throw model::ConfigError(opt.shards.merge.empty() ? "--shard" : "--merge", "",
                             "--uncertainty N or --seeds N to split", "a plain run");
  const studies::Scenario sc = studies::Scenario::load(opt.scenario, opt.sets);
  const std::vector<const studies::Variant*> chosen = chosen_variants(sc, opt.variants);
  check_outputs(opt, sc, chosen);
  if (!opt.compare.empty() &&
      std::none_of(chosen.begin(), chosen.end(), [&](const auto* v) { return v->name == opt.compare; }))
    throw model::ConfigError("--compare", "", "a variant the run simulates", model::quoted_input(opt.compare));
  err << fmt::format("qcesim run: {} ({} x {} B {}, queue depth {}), {} variant(s){}\n", sc.name, sc.workload.messages,
                     sc.workload.message_bytes, sc.workload.algorithm.name, sc.workload.queue_depth, chosen.size(),
                     opt.timing_only ? ", timing only" : "");
  // Real bytes cost host time: SHA-256 at about 1.7 GB/s (host SHA instructions) per variant.
  const double gb = static_cast<double>(sc.workload.messages) * sc.workload.message_bytes / 1e9;
  if (!opt.timing_only && gb > 5)
    err << fmt::format(
        "qcesim run: {:.0f} GB of real data per variant: about {:.0f} s per variant on a host with SHA "
        "instructions (progress below; --timing-only gives the same timing without the bytes)\n",
        gb, gb / 1.7);
  err.flush();
  std::size_t finished = 0;
  const bool ahead = studies::spare_core_per_run(chosen.size(), opt.jobs);
  const auto raw = studies::fork_each(
      chosen.size(), opt.jobs, [&](std::size_t i) { return run_one(sc, *chosen[i], opt, chosen.size() > 1, ahead); },
      [&](std::size_t i, const json& j) {
        ++finished;
        if (j.contains("error")) {
          err << fmt::format("[{}/{}] {}: failed: {}\n", finished, chosen.size(), chosen[i]->name,
                             model::terminal_safe(j["error"].get<std::string>()));
        } else {
          err << fmt::format("[{}/{}] {}: {:.3f} s simulated in {:.2f} s\n", finished, chosen.size(), chosen[i]->name,
                             j["wall_s"].get<double>(), j["host_seconds"].get<double>());
        }
        err.flush();
      });
  std::vector<studies::VariantResult> results;
  int status = 0;
  for (const json& r : raw) {
    if (r.contains("error")) {
      status = 2;
      continue;
    }
    results.push_back(studies::VariantResult::from_json(r));
  }
  print_results(results, opt.top, sc.workload.cipher() ? "output" : "digest", out);
  if (!opt.compare.empty()) out << format_compare(results, opt.compare);
  if (!opt.json_file.empty()) {
    json j = {{"scenario", sc.name}, {"variants", json::array()}};
    for (const auto& r : results) j["variants"].push_back(r.to_json());
    write_output("--json", opt.json_file, model::json_output(j, 2) + "\n");
  }
  for (const auto& r : results) {
    if (!opt.trace_file.empty())
      err << "wrote " << per_variant_file(opt.trace_file, r.name, chosen.size() > 1)
          << " (open it in ui.perfetto.dev)\n";
    if (!opt.profile_file.empty())
      err << "wrote " << per_variant_file(opt.profile_file, r.name, chosen.size() > 1)
          << " (build/release/qcesim flamegraph FILE -o graph.svg)\n";
  }
  return status;
}

}  // namespace qcesim::cli
