// Uncertainty on a prediction: the profile's parameters that have an interval (what independent
// sources allow, or for a fitted parameter what the fit allows) are sampled, each sample is a
// replay in its own process (timing only), and every output is reported as the nominal run's
// value with the 5th-95th percentile band of the samples. `qcesim run --uncertainty N` and
// `qcesim validate` (cli/) use it.
//
// A 90 % interval [lo, hi] is read as a log-normal with lo and hi at its 5th and 95th
// percentiles (a normal when lo <= 0), clipped to the parameter's range; whole-number units are
// rounded. The profile's correlated groups (a fit's posterior) are drawn jointly, each member
// keeping its own interval as its marginal. Samples come from a counter-based generator
// (splitmix64 of the seed and the sample index), so sample i is the same whatever the job count
// or the order the runs finish in.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/profile.h"
#include "studies/scenario.h"

namespace qcesim::studies {

struct UncertainParam {
  std::string name;
  double lo = 0, hi = 0, min = 0, max = 0;
  bool integer = false;
  // A member of a correlated group: its standard normal is this weighted sum of the named
  // parameters' own draws (a row of the group's Cholesky factor); empty: its own draw alone.
  std::vector<std::pair<std::string, double>> mix = {};
  bool variant_group = false;  // a member of its variant's own correlated group (a restated fit's)
};

// The parameters that vary: a number with an interval of nonzero width.
std::vector<UncertainParam> uncertain_params(const model::Profile& p);
// Gives the members of each of the profile's correlated groups among `ps` their mix: the
// group's correlations among those present. A member pinned or left out of the design leaves the
// others their marginal joint distribution, not the one conditioned on the pinned value: a
// what-if that pins one (`--set`) keeps the others at their nominal values, which conditioning
// would move, and their bands as wide as the fit left them.
void correlate(std::vector<UncertainParam>& ps, const model::Profile& p);
// A parameter's name as a number (FNV-1a), to key its random draws: a parameter added to a
// profile, or pinned by a scenario, then leaves every other one's draws as they were (except a
// correlated group's members, whose draws mix the group's).
std::uint64_t name_key(const std::string& name);
// Sample i's values as --set strings ("name=value").
std::vector<std::string> sample_sets(const std::vector<UncertainParam>& ps, std::uint64_t seed, std::size_t i);

struct Band {
  double nominal = 0, p05 = 0, median = 0, p95 = 0;
  double measured = -1;  // at the run's message count; -1 when the scenario has none
};

// Whether a band holds its measured value. A count of interrupts takes whole values: within half
// an interrupt of its band, as `run` compares a count with the simulated one.
bool inside(const Band& b, const std::string& quantity);

struct VariantBands {
  std::string name;
  std::map<std::string, Band> quantity;  // wall_s, cpu_s, hardirq_s, softirq_s, p50_us, p99_us, mb_per_s
  std::vector<std::string> fixed;        // the design's parameters this variant's runs hold at a fixed value
  // Its restatements drawn jointly with its own `correlations` (a hypothesis' fit), as drawn.
  std::vector<UncertainParam> joint;
};

// Splitting the runs for a batch engine: shard I of N runs the points whose index is I modulo N
// and hands back their results (a JSON document with the design's fingerprint) instead of an
// analysis; the same command with `merge` set to all N documents runs nothing and analyses their
// union, which gives the unsharded result exactly (every point is its own process either way).
struct ShardOptions {
  std::size_t index = 0, count = 0;      // count 0: not sharded
  nlohmann::json* written = nullptr;     // where a shard's document goes
  std::vector<nlohmann::json> merge;     // shard documents to analyse together
  std::vector<std::string> merge_files;  // their file names, for errors
};

struct UncertaintySpec {
  std::string scenario;
  InputKind scenario_kind = InputKind::any;  // regular: validate's files, examined as such already
  std::vector<std::string> sets, variants;   // variants: all when empty
  std::string compare;                       // a variant: every other's paired difference to it
  std::size_t samples = 100;
  std::uint64_t seed = 1;
  unsigned jobs = 0;
  ShardOptions shard;
};

// A variant's difference to the compared one, sample by sample (both runs draw the same
// parameter values): the nominal difference, the 90 % interval of the differences, and the share
// of samples in which the variant's value is below the other's (1: lower in every sample, a
// ranking that holds across the intervals; near 0.5: the intervals decide it).
struct DiffBand {
  double nominal = 0, p05 = 0, median = 0, p95 = 0;
  double lower = 0;  // fraction of the samples with a negative difference
  std::size_t n = 0;
};
struct VariantDiffs {
  std::string name;
  std::map<std::string, DiffBand> quantity;
};

struct UncertaintyResult {
  std::string scenario;
  std::vector<UncertainParam> params;
  std::vector<VariantBands> variants;
  std::string compare;              // the variant the differences are to ("" when none)
  std::vector<VariantDiffs> diffs;  // every other variant's, with compare
  std::size_t failed = 0;           // sample runs that failed (a sample outside what the model accepts)
};

// A checked sampling design: the scenario (with --set), the variants, and what varies. A
// parameter varies in a variant's runs when that variant's profile gives it an interval: neither
// the scenario, --set nor the variant pins it (restates it without one), and a variant that
// restates it with an interval of its own draws it from that. Pinning is per variant: one
// variant's hypothesis leaves the others their spread. `params` is the union (sensitivity's
// factors, the JSON's list), its groups' mixes from the scenario's shared profile, so that two
// variants draw the same values for what they share (--compare's pairs); `drawn[v]` is variant
// v's own, in the same order.
struct Design {
  Scenario sc;
  std::vector<std::string> variants;
  std::vector<UncertainParam> params;
  std::vector<std::vector<UncertainParam>> drawn;
};
Design design_for(const UncertaintySpec& spec);
// A point's "name=value" sets for one variant's run: a parameter the variant restates
// ({value, interval, provenance}) is set in that variant's overrides, which would otherwise hold it
// at the restated value; the others stay where --set puts them (a value the variant pins wins).
std::vector<std::string> variant_sets(const Scenario& sc, const Variant& v, std::vector<std::string> sets);
// Runs each point (--set strings on top of spec.sets) for every variant, timing only, one process
// each: [point][variant] -> the run's JSON (or {"error": ...}). `kind` names the analysis (for the
// shards' fingerprint). A shard run returns nothing (its document is in spec.shard.written).
// The points are made on demand by `point_at(p, v)`, p < n_points, v an index into the design's
// variants (deterministic: the same p and v give the same sets), so that a design of 10000
// samples or 500 trajectories is not held in memory as text; the runs' results are kept without
// their per-function profile, which no analysis of many runs reads. Each run's sets pass through
// variant_sets.
using PointAt = std::function<std::vector<std::string>(std::size_t point, std::size_t variant)>;
std::vector<std::vector<nlohmann::json>> run_points(const UncertaintySpec& spec, const Design& d, std::size_t n_points,
                                                    const PointAt& point_at, std::ostream& progress,
                                                    const std::string& kind);
// The outputs of one run by quantity key.
struct VariantResult;
std::map<std::string, double> quantities_of(const VariantResult& r);

// The quantities reported, in table order, with their headings.
const std::vector<std::pair<std::string, std::string>>& band_quantities();
// Quantities a board can measure that get a band (and a validate row) only where a variant's
// `measured` block has them: the measuring process's own CPU time and the engine's interrupts
// per request.
const std::vector<std::pair<std::string, std::string>>& checked_quantities();
// band_quantities() (or another table's own rows), then those checked_quantities() that `keys`
// has (a variant's bands, or its measured values): a table's rows for it.
template <class Map>
std::vector<std::pair<std::string, std::string>> quantities_in(
    const Map& keys, std::vector<std::pair<std::string, std::string>> q = band_quantities()) {
  for (const auto& c : checked_quantities())
    if (keys.count(c.first)) q.push_back(c);
  return q;
}

// Checks the scenario and the options (ConfigError), then runs nominal + samples for each
// variant; progress on `progress`.
UncertaintyResult run_uncertainty(const UncertaintySpec& spec, std::ostream& progress);
std::string uncertainty_table(const UncertaintyResult& r);
nlohmann::json uncertainty_json(const UncertaintyResult& r, const UncertaintySpec& spec);

// Variability: the same profile run with service-time variation under seeds 1..n (sim.seed),
// each output as its mean with a 95 % confidence interval of the mean (Student's t).
struct SeedStats {
  double mean = 0, lo = 0, hi = 0;
  double measured = -1;
};
struct SeedsResult {
  std::string scenario;
  std::size_t seeds = 0;
  double cv = 0;
  std::vector<std::pair<std::string, std::map<std::string, SeedStats>>> variants;
};
// The quantities --seeds reports beyond band_quantities(): counts that vary from run to run.
const std::vector<std::pair<std::string, std::string>>& seed_quantities();
SeedsResult run_seeds(const UncertaintySpec& spec, std::size_t seeds, std::ostream& progress);
// The mean and the sample standard deviation (0 with fewer than two values) of a non-empty list.
struct MeanSd {
  double mean = 0, sd = 0;
};
MeanSd mean_sd(const std::vector<double>& x);
// Student's t at 97.5 % for df degrees of freedom (a table for 1..30; beyond, the normal's 1.96).
double student_t975(std::size_t df);
std::string seeds_table(const SeedsResult& r);
nlohmann::json seeds_json(const SeedsResult& r);

}  // namespace qcesim::studies
