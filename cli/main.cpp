// qcesim: a virtual platform of the Qualcomm Crypto Engine, its BAM DMA and the Linux drivers.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <systemc>

#include "cli/command_docs.h"
#include "cli/data_files.h"
#include "cli/flamegraph.h"
#include "cli/hash_command.h"
#include "cli/hex.h"
#include "cli/numbers.h"
#include "cli/report_command.h"
#include "cli/run_command.h"
#include "studies/stop_signals.h"
#include "cli/calibrate_command.h"
#include "cli/cipher_command.h"
#include "cli/sweep_command.h"
#include "cli/explain_command.h"
#include "cli/validate_command.h"
#include "cli/ingest_command.h"
#include "model/config_error.h"
#include "cpu/costs.h"
#include "model/profile.h"

using namespace qcesim;

namespace qcesim {
extern const char* const kRevision;  // the build's git revision (cmake/revision.cmake)
}

namespace {
// Bad input (a ConfigError names file, JSON path, expectation and finding) or any other failure:
// one line on stderr and exit status 2, never a crash.
int guarded(const std::string& command, const std::function<int()>& fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    std::cerr << "qcesim " << command << ": " << model::terminal_safe(e.what()) << "\n";
    return 2;
  }
}

// What a command printed must have reached standard output: a full disk, a closed pipe or a
// stream that cannot be written (/dev/full, a read-only descriptor) is an error naming the
// stream, with a non-zero exit status, as coreutils' close_stdout makes it.
int finish_stdout(const std::string& command, int rc) {
  std::cout.flush();
  const bool lost = !std::cout;
  errno = 0;
  const bool flush_failed = std::fflush(stdout) != 0;
  const int why = errno;
  if (!lost && !flush_failed && !std::ferror(stdout)) return rc;
  std::cerr << "qcesim" << (command.empty() ? "" : " " + command) << ": standard output: write failed"
            << (why ? std::string(" (") + std::strerror(why) + ")" : std::string()) << "; the output is incomplete\n";
  return rc == 0 ? 2 : rc;
}

// libsystemc prints its banner before sc_main runs, unless this is set by then.
const int kQuietBanner = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);

// The documented ranges of the counts (docs/run.md "Numbers on the command line"): the largest
// values' memory and time are measured by bench/limits.sh.
constexpr std::uint64_t kMaxSamples = 10000;     // --uncertainty, --seeds, validate --samples
constexpr std::uint64_t kMaxTrajectories = 500;  // sensitivity --trajectories
const CLI::Validator kJobs = cli::whole_number(1, 256);
const CLI::Validator kSeed = cli::whole_number(0, UINT64_MAX);
const CLI::Validator kMessages = cli::whole_number(1, 1000000000);
// A scenario, sweep or profile given by the name of a file qcesim ships (cli/data_files.h).
// Its description is empty so that --help does not show it.
const CLI::Validator kScenarioName(
    [](std::string& arg) {
      arg = cli::scenario_path(arg);
      return std::string();
    },
    "");

// --platform and --era as cipher and hash take them: a profile by file or shipped name, and the
// qce driver's kernel era over the profile's driver.era. `applies` says what the platform decides.
void add_platform_and_era(CLI::App* c, std::string& platform, int& era, const std::string& applies,
                          const std::string& era_note) {
  c->add_option("--platform", platform,
                "A platform profile, a file or the name of one qcesim ships (sm8650, ipq40xx): " + applies)
      ->transform(kScenarioName);
  c->add_option("--era", era,
                "The qce driver's kernel era: 0 (no rules), 2020, 2021, 2024 or 2026, overriding the platform's "
                "driver.era (" +
                    era_note + ")")
      ->check(cli::whole_number(0, 9999));
}

// "qcesim X.Y.Z (REVISION)": --version's line, and what reports say wrote them.
std::string version_text() { return std::string("qcesim ") + QCESIM_VERSION + " (" + kRevision + ")"; }

// A subcommand: its options are parsed into state that `run` reads.
struct Command {
  CLI::App* app;
  std::function<int()> run;
};

Command hash_command(CLI::App& app) {
  struct State {
    cli::HashOptions opt;
    std::string engine = "qce", alg = "sha256", reg_io = "mmio", hmac_key;
  };
  auto st = std::make_shared<State>();
  auto* h = app.add_subcommand(
      "hash", "Print SHA-1/SHA-256 (or HMAC) checksums like sha256sum, computed by the emulated engine");
  h->add_option("--engine", st->engine, "qce: through the emulated QCE and BAM; ce: on the CPU (ARMv8 CE path)")
      ->check(cli::one_of({"qce", "ce"}))
      ->capture_default_str();
  h->add_option("--alg", st->alg, "Hash algorithm")->check(cli::one_of({"sha1", "sha256"}))->capture_default_str();
  h->add_option("--hmac-key", st->hmac_key, "HMAC key in hex: print HMAC instead of the plain hash");
  h->add_option("--reg-io", st->reg_io,
                "mmio: CPU register writes (mainline); bam: command descriptors with BAM LOCK/UNLOCK (locking series)")
      ->check(cli::one_of({"mmio", "bam"}))
      ->capture_default_str();
  h->add_option("--request-bytes", st->opt.request_bytes,
                "Bytes handed to the driver per update() call (any size: the driver holds back what ends short of "
                "a block, as the self-tests' uneven updates exercise)")
      ->check(cli::whole_number(1, 64u << 20))
      ->capture_default_str();
  h->add_flag("--reimport", st->opt.reimport,
              "After every update(), export the request's state and import it into a new request (the "
              "driver's qce_ahash_export/import, as the self-tests' import/export test does)");
  h->add_flag("--stats", st->opt.stats, "Print descriptor, interrupt and register counts on stderr");
  add_platform_and_era(h, st->opt.platform, st->opt.era, "its kernel era applies",
                       "an empty message's HMAC is left unwritten before 2026; 2026 registers no SHA-1");
  h->add_option("files", st->opt.files, "Files to hash; none or '-' reads standard input");
  return {h, [st, h] {
            cli::HashOptions& hash = st->opt;
            hash.engine = st->engine == "ce" ? cli::Engine::ce : cli::Engine::qce;
            hash.alg = st->alg == "sha1" ? HashAlg::sha1 : HashAlg::sha256;
            hash.reg_io = st->reg_io == "bam" ? qce::RegIo::bam : qce::RegIo::mmio;
            if (!h->get_option("--hmac-key")->empty()) {
              std::string why;
              auto key = cli::parse_hex(st->hmac_key, &why);
              if (!key) {
                std::cerr << "qcesim hash: --hmac-key: expected " << why << "\n";
                return 2;
              }
              hash.hmac_key = std::move(*key);
            }
            return cli::run_hash(hash, std::cout, std::cerr);
          }};
}

Command cipher_command(CLI::App& app) {
  struct State {
    cli::CipherOptions opt;
    std::string engine = "qce", reg_io = "mmio";
  };
  auto st = std::make_shared<State>();
  auto* c =
      app.add_subcommand("cipher", "Encrypt or decrypt a file through the emulated engine, like openssl enc -nopad");
  c->add_option("--alg", st->opt.alg,
                "The kernel's name: ecb(aes), cbc(aes), ctr(aes), xts(aes), ecb(des), cbc(des), "
                "ecb(des3_ede), cbc(des3_ede), ccm(aes), rfc4309(ccm(aes)), authenc(hmac(sha256),cbc(aes)), "
                "authenc(hmac(sha256|sha1),cbc(des|des3_ede))")
      ->required();
  c->add_option("--key", st->opt.key_hex, "Key in hex (xts(aes): both keys, 32 or 64 bytes; authenc: the cipher's)")
      ->required();
  c->add_option("--iv", st->opt.iv_hex,
                "IV in hex (ivsize bytes; none for ECB; xts(aes): the tweak; rfc4309: 8 bytes; ccm(aes): a 7..13-byte "
                "nonce or the kernel's 16-byte IV)");
  c->add_flag("--decrypt,-d", st->opt.decrypt, "Decrypt instead of encrypt (AEADs: the input ends with the tag)");
  c->add_option("--auth-key", st->opt.auth_key_hex, "authenc: the HMAC key in hex (at most 64 bytes)");
  c->add_option("--assoc", st->opt.assoc_hex,
                "AEAD: associated data in hex (authenticated, not encrypted, not output)");
  c->add_option("--assoc-file", st->opt.assoc_file, "AEAD: associated data from a file");
  c->add_option("--tag-bytes", st->opt.tag_bytes,
                "AEAD: tag length (ccm(aes) 4..16 even; authenc up to the digest; "
                "default the largest)")
      ->check(cli::whole_number(1, 64));
  add_platform_and_era(c, st->opt.platform, st->opt.era,
                       "its kernel era's algorithms and fallback rules apply, the fallback running on its CPU",
                       "aes_sw_max_len 512 without a platform");
  c->add_option("--engine", st->engine, "qce: through the emulated QCE and BAM; cpu: on the CPU")
      ->check(cli::one_of({"qce", "cpu"}))
      ->capture_default_str();
  c->add_option("--reg-io", st->reg_io,
                "mmio: CPU register writes (mainline); bam: command descriptors with BAM LOCK/UNLOCK (locking series)")
      ->check(cli::one_of({"mmio", "bam"}))
      ->capture_default_str();
  c->add_flag(
      "--forbid-weak-keys", st->opt.forbid_weak_keys,
      "Set CRYPTO_TFM_REQ_FORBID_WEAK_KEYS on the tfm: weak and semi-weak DES keys (-EINVAL), 3DES with K1 = K2 "
      "or K2 = K3 (the driver's -ENOKEY, the CPU's -EINVAL) and (on the CPU, or the 2026 driver) XTS with equal "
      "halves (-EINVAL) are refused");
  c->add_option(
      "--iv-out", st->opt.iv_out,
      "skciphers: write the IV the request leaves in req->iv (hex, one line) to this file, as a caller chaining "
      "the next request would read it");
  c->add_option("file", st->opt.file, "Input file; none or '-' reads standard input");
  return {c, [st] {
            st->opt.on_cpu = st->engine == "cpu";
            st->opt.bam_reg_io = st->reg_io == "bam";
            return cli::run_cipher(st->opt, std::cout, std::cerr);
          }};
}

Command run_command(CLI::App& app) {
  struct State {
    cli::RunOptions opt;
    std::string trace_requests = "0:200";
  };
  auto st = std::make_shared<State>();
  cli::RunOptions& run = st->opt;
  auto* r = app.add_subcommand("run", "Replay a scenario's workload for each variant and compare with the measurement");
  r->add_option("scenario", run.scenario, "Scenario JSON file, or the name of one qcesim ships (e.g. sm8650-seed)")
      ->required()
      ->transform(kScenarioName);
  r->add_option("--jobs,-j", run.jobs, "Variants simulated at once, each in its own process (default: cores)")
      ->check(kJobs);
  r->add_option("--set", run.sets,
                "PATH=VALUE: change the scenario (workload.messages=500) or a profile parameter (qce.clock=200)");
  r->add_option("--variant", run.variants, "Run only this variant (repeatable)");
  r->add_option("--json", run.json_file, "Write the results as JSON to this file");
  r->add_flag("--timing-only", run.timing_only, "Skip the bytes: same timing, no digests computed or checked");
  r->add_option("--uncertainty", run.uncertainty,
                "N: sample the profile's parameter intervals N times (timing only) and report each output with its 90 "
                "% interval")
      ->check(cli::whole_number(2, kMaxSamples));
  r->add_option("--seed", run.seed, "Seed of the --uncertainty samples (the same seed gives the same samples)")
      ->check(kSeed)
      ->capture_default_str();
  r->add_option("--shard", run.shards.shard,
                "I/N: run only shard I of N of the --uncertainty/--seeds runs (a batch task)");
  r->add_option("--shard-out", run.shards.shard_out, "Where --shard writes its results");
  r->add_option("--merge", run.shards.merge, "All N shard files: analyse them as one run (the same command otherwise)")
      ->expected(1, -1);
  r->add_option(
       "--seeds", run.seeds,
       "N: run each variant N times with service-time variation (sim.seed 1..N) and report means with 95 % intervals")
      ->check(cli::whole_number(2, kMaxSamples));
  r->add_option("--compare", run.compare,
                "NAME: a table of every variant's difference to variant NAME per request, CPU split by mechanism");
  r->add_option("--top", run.top, "Functions listed per variant in the CPU summary")
      ->check(cli::whole_number(0, 1000))
      ->capture_default_str();
  r->add_option("--trace", run.trace_file, "Write a Chrome-trace/Perfetto JSON timeline (per variant when several)");
  r->add_option("--trace-requests", st->trace_requests, "A:B: the requests the timeline keeps (A to B-1)")
      ->capture_default_str();
  r->add_option("--profile", run.profile_file, "Write folded stacks (context;function nanoseconds) for flame graphs");
  return {r, [st] {
            if (!cli::parse_request_range(st->trace_requests, st->opt.trace_first, st->opt.trace_last)) {
              std::cerr << "qcesim run: --trace-requests: expected A:B with 0 <= A < B, found " << st->trace_requests
                        << "\n";
              return 2;
            }
            return cli::run_scenario(st->opt, std::cout, std::cerr);
          }};
}

Command calibrate_command(CLI::App& app) {
  auto cal = std::make_shared<cli::CalibrateOptions>();
  auto* c = app.add_subcommand("calibrate", "Fit profile parameters to a scenario's measured values");
  c->add_option("scenario", cal->spec.scenario, "Scenario JSON file (or shipped name) with measured values per variant")
      ->required()
      ->transform(kScenarioName);
  c->add_option("--fit", cal->spec.fit, "Profile parameters to fit (comma separated or repeated)")
      ->delimiter(',')
      ->required();
  c->add_option("--set", cal->spec.sets, "PATH=VALUE changes as for run");
  c->add_option("--messages", cal->spec.messages, "Messages per variant per evaluation")
      ->check(kMessages)
      ->capture_default_str();
  c->add_option("--prior-factor", cal->spec.prior_factor, "One prior standard deviation as a factor")
      ->check(cli::real_number(1.001, 1e9))
      ->capture_default_str();
  c->add_option("--iterations", cal->spec.iterations, "Pattern-search sweeps at most (0: evaluate the start only)")
      ->check(cli::whole_number(0, 10000))
      ->capture_default_str();
  c->add_option("--jobs,-j", cal->spec.jobs, "Simulations at once (default: cores)")->check(kJobs);
  c->add_option("--write-profile", cal->write_profile, "Write the profile with the fitted values here");
  c->add_option("--report", cal->report, "Write the Markdown fit report here");
  c->add_option("--evidence", cal->spec.evidence,
                "A board's per-function table (qcesim ingest's BOARD-functions.json): the fitted cost items a "
                "traced function maps onto get priors centred on its measured time");
  c->add_option("--evidence-factor", cal->spec.evidence_factor, "One evidence prior standard deviation as a factor")
      ->check(cli::real_number(1.001, 100))
      ->capture_default_str();
  c->add_flag("--underdetermined", cal->spec.underdetermined,
              "Fit more parameters than there are measured numbers (negative degrees of freedom: the priors decide)");
  c->add_flag("--weighted", cal->spec.weighted,
              "Weigh each residual by its kind's variance in the fit too, as the posterior does, refitting until the "
              "weights settle");
  return {c, [cal] { return cli::run_calibrate(*cal, std::cout, std::cerr); }};
}

Command ingest_command(CLI::App& app) {
  auto o = std::make_shared<cli::IngestOptions>();
  auto* c = app.add_subcommand("ingest",
                               "Turn a board kit archive (board/qcesim-measure) into a profile, scenarios with the "
                               "board's measurements, a per-function cost table and a report");
  c->add_option("archive", o->archive, "The kit's archive (.tar or .tar.gz)")->required();
  c->add_option("--out,-o", o->out_dir, "Folder to write into (made if missing; default: the --name)");
  c->add_option("--name", o->name, "The board's name: every output file starts with it (default: board)");
  c->add_option("--profiles", o->profiles, "Folder of profiles to start from (default: the scenarios qcesim ships)");
  return {c, [o] { return cli::run_ingest(*o, std::cout, std::cerr); }};
}

Command validate_command(CLI::App& app) {
  auto v = std::make_shared<cli::ValidateOptions>();
  auto* c = app.add_subcommand(
      "validate", "Run every scenario with measured values, with uncertainty, in one table: in and out of sample");
  c->add_option("dir", v->dir, "Folder of scenario files")->capture_default_str();
  c->add_option("--samples", v->samples, "Samples of the parameter intervals per run")
      ->check(cli::whole_number(2, kMaxSamples))
      ->capture_default_str();
  c->add_option("--messages", v->messages, "Messages per run (at most the scenario's own)")
      ->check(kMessages)
      ->capture_default_str();
  c->add_option("--seed", v->seed, "Seed of the samples")->check(kSeed)->capture_default_str();
  c->add_option("--jobs,-j", v->jobs, "Simulations at once (default: cores)")->check(kJobs);
  c->add_option("--json", v->json_file, "Write the rows as JSON to this file");
  // One value per --soc: a folder after it stays the folder.
  c->add_option("--soc", v->socs, "Only this SoC's scenarios (its profile's name; repeatable)")
      ->allow_extra_args(false);
  return {c, [v, c] {
            // From a folder without scenarios/ (an installed qcesim): the ones it ships.
            std::error_code ec;
            if (c->get_option("dir")->empty() && !std::filesystem::is_directory(v->dir, ec) && !cli::data_dir().empty())
              v->dir = cli::data_dir();
            return cli::run_validate(*v, std::cout, std::cerr);
          }};
}

Command sensitivity_command(CLI::App& app) {
  auto o = std::make_shared<cli::SensitivityOptions>();
  auto* c = app.add_subcommand("sensitivity", "Rank which profile parameters drive which output (Morris screening)");
  c->add_option("scenario", o->scenario, "Scenario JSON file, or the name of one qcesim ships")
      ->required()
      ->transform(kScenarioName);
  c->add_option("--set", o->sets, "PATH=VALUE changes as for run (workload.messages=5000 keeps it quick)");
  c->add_option("--variant", o->variants, "Only this variant (repeatable)");
  c->add_option("--trajectories", o->trajectories,
                "Morris trajectories (runs: trajectories x (parameters + 1) per variant)")
      ->check(cli::whole_number(2, kMaxTrajectories))
      ->capture_default_str();
  c->add_option("--top", o->top, "Parameters listed per output")
      ->check(cli::whole_number(1, 1000))
      ->capture_default_str();
  c->add_option("--seed", o->seed, "Seed of the trajectories")->check(kSeed)->capture_default_str();
  c->add_option("--jobs,-j", o->jobs, "Simulations at once (default: cores)")->check(kJobs);
  c->add_option("--json", o->json_file, "Write every parameter's mu* and sigma per output as JSON");
  c->add_option("--compare", o->compare,
                "NAME: rank the parameters by their effect on each variant's difference to variant NAME");
  c->add_option("--shard", o->shards.shard, "I/N: run only shard I of N of the runs (a batch task)");
  c->add_option("--shard-out", o->shards.shard_out, "Where --shard writes its results");
  c->add_option("--merge", o->shards.merge, "All N shard files: analyse them as one run (the same command otherwise)")
      ->expected(1, -1);
  return {c, [o] { return cli::run_sensitivity(*o, std::cout, std::cerr); }};
}

Command sweep_command(CLI::App& app) {
  auto sw = std::make_shared<cli::SweepOptions>();
  auto* sp =
      app.add_subcommand("sweep", "Run a scenario at every point of a sweep file; CSV, JSON and an optional SVG chart");
  sp->add_option("sweep", sw->file, "Sweep JSON file, or the name of one qcesim ships (e.g. study-message-size)")
      ->required()
      ->transform(kScenarioName);
  sp->add_option("--jobs,-j", sw->jobs, "Runs at once, each in its own process (default: cores)")->check(kJobs);
  sp->add_option("--out,-o", sw->out,
                 "Prefix of the output files PREFIX.csv and PREFIX.json (default: the sweep's name)");
  sp->add_flag("--fresh", sw->fresh, "Discard the journal of an interrupted run instead of resuming it");
  sp->add_option("--set", sw->sets, "PATH=VALUE applied at every point (as for run)");
  sp->add_option("--plot", sw->plot, "Draw a metric against a swept value into this SVG file (gnuplot)");
  sp->add_option("--x", sw->x,
                 "Axis path on the chart's x axis (default: the sweep file's plot.x, else the first axis)");
  sp->add_option("--y", sw->y,
                 "Metric on the y axis, e.g. us_per_request, cpu_us_per_request, mb_per_s (default: plot.y)");
  sp->add_flag("--log-x", sw->log_x, "Logarithmic x axis");
  sp->add_flag("--log-y", sw->log_y, "Logarithmic y axis");
  sp->add_option("--shard", sw->shards.shard, "I/N: run only the points p with p % N == I (a batch task)");
  sp->add_option("--shard-out", sw->shards.shard_out, "Where --shard writes its runs");
  sp->add_option("--merge", sw->shards.merge,
                 "All N shard files: the sweep's outputs from them (the same command otherwise)")
      ->expected(1, -1);
  sp->add_option("--report", sw->report,
                 "Also write the sweep as one HTML page: charts with break-even points, analysis, every point");
  sp->add_flag("--partial", sw->partial,
               "With --merge: accept missing runs (a lost shard's) and say in every output which are missing");
  return {sp, [sw] {
            sw->version = version_text();
            return cli::run_sweep(*sw, std::cout, std::cerr);
          }};
}

Command explain_command(CLI::App& app) {
  auto ex = std::make_shared<cli::ExplainOptions>();
  auto* xp = app.add_subcommand(
      "explain", "Narrate one request step by step: every CPU and hardware step, its context, time and why");
  xp->add_option("scenario", ex->scenario, "Scenario JSON file, or the name of one qcesim ships (e.g. sm8650-seed)")
      ->required()
      ->transform(kScenarioName);
  xp->add_option("--variant", ex->variant, "Variant to explain (default: the first QCE variant)");
  xp->add_option("--request", ex->request,
                 "Request number, from 0 (0 includes the driver's first-use set-up); default: one in the replay's "
                 "steady state (where the fast-forward recognises its cycle: governors settled, queues warm), else "
                 "the 100th")
      ->check(cli::whole_number(0, 1000000000));
  xp->add_option("--set", ex->sets, "PATH=VALUE changes as for run");
  xp->add_flag("--timing-only", ex->timing_only, "Skip the bytes (same timing)");
  return {xp, [ex] { return cli::run_explain(*ex, std::cout, std::cerr); }};
}

Command flamegraph_command(CLI::App& app) {
  auto fg = std::make_shared<cli::FlamegraphOptions>();
  auto* fl = app.add_subcommand("flamegraph", "Draw folded stacks (run --profile) as an SVG flame graph");
  fl->add_option("folded", fg->folded, "Folded-stacks file (context;function count per line), or - for stdin")
      ->required();
  fl->add_option("--output,-o", fg->out, "SVG file to write (default: standard output)");
  fl->add_option("--title", fg->title, "Title above the graph")->capture_default_str();
  return {fl, [fg] { return cli::run_flamegraph(*fg, std::cout, std::cerr); }};
}

Command profile_command(CLI::App& app) {
  auto file = std::make_shared<std::string>();
  auto* pr = app.add_subcommand("profile", "Print a platform profile's parameters as a Markdown table");
  pr->add_option("profile", *file, "Profile JSON file, or the name of one qcesim ships (e.g. sm8650)")
      ->required()
      ->transform(kScenarioName);
  return {pr, [file] {
            const model::Profile p = model::Profile::load(*file);
            (void)cpu::costs_from_profile(p);  // every cost item there, no unknown one
            std::cout << p.markdown([](const model::Param& prm) { return cpu::cost_param_doc(prm.name); });
            return 0;
          }};
}

Command report_command(CLI::App& app) {
  auto o = std::make_shared<cli::ReportOptions>();
  auto* c = app.add_subcommand("report",
                               "One self-contained HTML page of a scenario (results, a request's timeline, where the "
                               "time goes, what locking adds, the narration) or of a sweep (charts, break-even)");
  c->add_option("scenario", o->input, "Scenario or sweep JSON file, or the name of one qcesim ships")
      ->required()
      ->transform(kScenarioName);
  c->add_option("--output,-o", o->out, "The HTML file to write")->required();
  c->add_option("--json", o->json_file, "Also write the report's data (every number it shows) as JSON");
  c->add_option("--set", o->sets, "PATH=VALUE changes as for run");
  c->add_option("--variant", o->variants, "Only this variant (repeatable)");
  c->add_option("--request", o->request,
                "The request drawn and narrated (default: one in every variant's steady state, as for explain)")
      ->check(cli::whole_number(0, 1000000000));
  c->add_option("--compare", o->compare,
                "NAME: the variant the others are compared with (default: the engine's without the lock, when a "
                "variant locks)");
  c->add_option("--uncertainty", o->uncertainty, "N: each output's 90 % interval from N samples (as run)")
      ->check(cli::whole_number(2, kMaxSamples));
  c->add_option("--sensitivity", o->sensitivity,
                "T: rank the parameters each output depends on (Morris, T trajectories), with their provenance")
      ->check(cli::whole_number(2, kMaxTrajectories));
  c->add_option("--seed", o->seed, "Seed of the samples and trajectories")->check(kSeed)->capture_default_str();
  c->add_option("--jobs,-j", o->jobs, "Simulations at once (default: cores)")->check(kJobs);
  c->add_flag("--timing-only", o->timing_only, "Skip the bytes: same timing, no digests computed or checked");
  return {c, [o] {
            o->version = version_text();
            return cli::run_report(*o, std::cout, std::cerr);
          }};
}

Command completion_command(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  auto* c =
      app.add_subcommand("completion", "Print the shell completion script (bash): source <(qcesim completion bash)");
  c->add_option("shell", *shell, "The shell (bash), or man: the man page's COMMANDS section (help2man's include)")
      ->required()
      ->check(cli::one_of({"bash", "man"}));
  return {c, [&app, shell] {
            std::cout << (*shell == "man" ? cli::man_commands(app) : cli::bash_completion(app));
            return 0;
          }};
}

// -1 when the command line parsed, else the exit status (help, version: 0; a bad option: 2).
int parse(CLI::App& app, int argc, char* argv[]) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  return -1;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  studies::install_stop_handlers();
  spdlog::set_level(spdlog::level::warn);
  // sc_stop() ends every run normally: not worth a message.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  CLI::App app{"qcesim: Qualcomm Crypto Engine + BAM DMA virtual platform"};
  app.require_subcommand(1);
  // A bad option names the program as every other error does.
  app.failure_message(
      [](const CLI::App* a, const CLI::Error& e) { return "qcesim: " + CLI::FailureMessage::simple(a, e); });
  app.set_version_flag("--version", version_text());
  const Command commands[] = {hash_command(app),        cipher_command(app),  run_command(app),
                              calibrate_command(app),   sweep_command(app),   explain_command(app),
                              flamegraph_command(app),  profile_command(app), validate_command(app),
                              sensitivity_command(app), ingest_command(app),  report_command(app),
                              completion_command(app)};
  if (const int rc = parse(app, argc, argv); rc >= 0) return finish_stdout("", rc);
  for (const Command& c : commands)
    if (c.app->parsed()) return finish_stdout(c.app->get_name(), guarded(c.app->get_name(), c.run));
  return finish_stdout("", 0);
}
