#include "studies/uncertainty.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ostream>
#include <spdlog/fmt/fmt.h>

#include "model/cholesky.h"
#include "model/counter_rng.h"
#include "studies/processes.h"
#include "cpu/core_type.h"
#include "studies/caller_path.h"
#include "studies/replay.h"
#include "studies/scenario.h"
#include "studies/shard_files.h"

namespace qcesim::studies {

using nlohmann::json;

namespace {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto i = static_cast<std::size_t>(std::floor(pos));
  const double f = pos - static_cast<double>(i);
  return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

// A variant's restatement of a parameter with an interval ({value, interval, provenance}), which
// its runs draw from; null when it has none.
const nlohmann::json* restated_interval(const Variant& v, const std::string& name) {
  const auto it = v.overrides.find(name);
  return it != v.overrides.end() && it->is_object() && it->contains("interval") ? &*it : nullptr;
}

// The key of a restated parameter's own draw: its name, restated value and interval (not its
// wording: 24310 and 24310.0 are one value), so that variants restating it alike draw it alike
// (--compare's pairs).
std::string restated_key(const UncertainParam& u, const nlohmann::json& restated) {
  const nlohmann::json& v = restated.contains("value") ? restated["value"] : nlohmann::json();
  const std::string value = v.is_number() ? fmt::format("{:.10g}", v.get<double>()) : v.dump();
  return fmt::format("restated/{}/{}/{:.10g}/{:.10g}", u.name, value, u.lo, u.hi);
}

// Gives ps[in_ps[a]] the a-th row of the Cholesky factor of g's correlations among its members
// g.names[in_g[...]] (in that order), over the draws keyed keys[0..a]: their joint draw.
void mix_members(std::vector<UncertainParam>& ps, const model::Correlation& g, const std::vector<std::size_t>& in_ps,
                 const std::vector<std::size_t>& in_g, const std::vector<std::string>& keys) {
  // A principal submatrix of a checked one: its factor is never empty.
  const model::Matrix l = model::cholesky(model::principal_submatrix(g.matrix, in_g));
  for (std::size_t a = 0; a < in_ps.size(); ++a) {
    UncertainParam& u = ps[in_ps[a]];
    u.mix.clear();
    for (std::size_t b = 0; b <= a; ++b) u.mix.emplace_back(keys[b], l[a][b]);
  }
}

// Gives the members of variant v's own correlated groups (scenario.h: `correlations` of what it
// restates, a hypothesis' fit) among `mine` their mix, over the members' restated draws. The
// factor is taken in the order of those draws' keys, not the group's listing, so that variants
// restating the same values with the same correlations draw alike however they list them.
void correlate_restated(std::vector<UncertainParam>& mine, const Variant& v, const model::Profile& p) {
  for (const model::Correlation& g : p.correlations()) {
    // The profile's groups lost what the variant restated, the scenario's are over its own
    // restatements: a group whose every member the variant restates is the variant's.
    if (!std::all_of(g.names.begin(), g.names.end(), [&v](const std::string& n) { return restated_interval(v, n); }))
      continue;
    struct Member {
      std::string key;
      std::size_t in_mine, in_g;
    };
    std::vector<Member> present;
    present.reserve(g.names.size());
    for (std::size_t j = 0; j < g.names.size(); ++j)
      for (std::size_t i = 0; i < mine.size(); ++i)
        if (mine[i].name == g.names[j])
          present.push_back({restated_key(mine[i], *restated_interval(v, g.names[j])), i, j});
    if (present.size() < 2) continue;
    std::sort(present.begin(), present.end(), [](const Member& a, const Member& b) { return a.key < b.key; });
    std::vector<std::size_t> in_mine, in_g;
    std::vector<std::string> keys;
    in_mine.reserve(present.size()), in_g.reserve(present.size()), keys.reserve(present.size());
    for (const Member& m : present) {
      in_mine.push_back(m.in_mine), in_g.push_back(m.in_g), keys.push_back(m.key);
      mine[m.in_mine].variant_group = true;
    }
    mix_members(mine, g, in_mine, in_g, keys);
  }
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& band_quantities() {
  static const std::vector<std::pair<std::string, std::string>> q = {
      {"wall_s", "wall [s]"},           {"cpu_s", "CPU [s]"},           {"hardirq_s", "hardirq [s]"},
      {"softirq_s", "softirq [s]"},     {"p50_us", "latency p50 [us]"}, {"p99_us", "latency p99 [us]"},
      {"mb_per_s", "throughput [MB/s]"}};
  return q;
}

const std::vector<std::pair<std::string, std::string>>& checked_quantities() {
  static const std::vector<std::pair<std::string, std::string>> q = {{"task_s", "task [s]"},
                                                                     {kIrqsPerRequest, "interrupts/request"}};
  return q;
}

std::vector<UncertainParam> uncertain_params(const model::Profile& p) {
  std::vector<UncertainParam> out;
  for (const auto& [name, prm] : p.params())
    if (!prm.is_text() && prm.has_interval && prm.hi > prm.lo)
      out.push_back({name, prm.lo, prm.hi, prm.min, prm.max, prm.is_integer()});
  return out;
}

// FNV-1a: a parameter's name as a number, to key its draws.
std::uint64_t name_key(const std::string& name) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (const char c : name) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
  return h;
}

void correlate(std::vector<UncertainParam>& ps, const model::Profile& p) {
  for (const model::Correlation& g : p.correlations()) {
    std::vector<std::size_t> in_ps, in_g;  // the members present, by index in ps and in the group
    for (std::size_t j = 0; j < g.names.size(); ++j)
      for (std::size_t i = 0; i < ps.size(); ++i)
        if (ps[i].name == g.names[j]) in_ps.push_back(i), in_g.push_back(j);
    if (in_ps.size() < 2) continue;
    std::vector<std::string> names;
    names.reserve(in_ps.size());
    for (const std::size_t i : in_ps) names.push_back(ps[i].name);
    mix_members(ps, g, in_ps, in_g, names);
  }
}

std::vector<std::string> sample_sets(const std::vector<UncertainParam>& ps, std::uint64_t seed, std::size_t i) {
  std::uint64_t sample = seed * 0xD1B54A32D192ED03ull + static_cast<std::uint64_t>(i);
  (void)model::splitmix64(sample);
  // Each parameter's own draw from the seed, the sample and its name: a parameter added to a
  // profile (or pinned by a scenario) leaves every other one's draws as they were, except its
  // correlated group's, whose values mix the members' own draws.
  auto own = [sample](const std::string& name) {
    std::uint64_t state = sample ^ name_key(name);
    return model::standard_normal(state);
  };
  std::vector<std::string> sets;
  for (const UncertainParam& u : ps) {
    double z = 0;
    if (u.mix.empty()) z = own(u.name);
    for (const auto& [name, w] : u.mix) z += w * own(name);
    double v =
        u.lo > 0
            ? std::exp(0.5 * (std::log(u.lo) + std::log(u.hi)) + z * std::log(u.hi / u.lo) / (2 * model::kNormalP95))
            : 0.5 * (u.lo + u.hi) + z * (u.hi - u.lo) / (2 * model::kNormalP95);
    v = std::clamp(v, u.min, u.max);
    if (u.integer) v = std::round(v);
    sets.push_back(fmt::format("{}={:.10g}", u.name, v));
  }
  return sets;
}

Design design_for(const UncertaintySpec& spec) {
  Design d;
  d.sc = Scenario::load(spec.scenario, spec.sets, spec.scenario_kind);
  if (spec.variants.empty()) {
    for (const Variant& v : d.sc.variants) d.variants.push_back(v.name);
  } else {
    for (const std::string& n : spec.variants) d.variants.push_back(d.sc.variant(n).name);
  }
  for (const std::string& n : d.variants) check_variant(d.sc, d.sc.variant(n));
  if (!spec.compare.empty() && std::find(d.variants.begin(), d.variants.end(), spec.compare) == d.variants.end())
    throw model::ConfigError("--compare", "", "a variant the run simulates", model::quoted_input(spec.compare));
  // A parameter no run can feel is left out (studies/caller_path.h: another core type's figures,
  // a user-space caller's items without one): it would only cost runs.
  std::vector<std::string> core_types;
  std::vector<model::Profile> profiles;
  for (const std::string& n : d.variants) {
    profiles.push_back(d.sc.profile_for(d.sc.variant(n)));
    for (const cpu::CoreType& t : cpu::cpus_from_profile(profiles.back()))
      if (std::find(core_types.begin(), core_types.end(), t.name) == core_types.end()) core_types.push_back(t.name);
  }
  // What varies in each variant: its own profile's intervals, less what the scenario holds at a
  // plain value for it (--set is one of the scenario's overrides by now). A restatement
  // ({value, interval, provenance}) varies over the interval it gives (none: the profile has none).
  std::vector<std::map<std::string, UncertainParam>> own(profiles.size());
  for (std::size_t i = 0; i < profiles.size(); ++i)
    for (const UncertainParam& u : uncertain_params(profiles[i]))
      if (!d.sc.holds_plainly(d.sc.variant(d.variants[i]), u.name) &&
          param_can_matter(u.name, d.sc.workload, core_types))
        own[i].emplace(u.name, u);
  // The union, by name, with the shared profile's interval where it has one.
  const model::Profile shared = d.sc.shared_profile();
  std::map<std::string, UncertainParam> all;
  for (const UncertainParam& u : uncertain_params(shared))
    if (std::any_of(own.begin(), own.end(), [&u](const auto& o) { return o.count(u.name) > 0; }))
      all.emplace(u.name, u);
  for (const auto& o : own) all.insert(o.begin(), o.end());  // keeps the shared entry where there is one
  for (const auto& [name, u] : all) d.params.push_back(u);
  correlate(d.params, shared);
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    const Variant& v = d.sc.variant(d.variants[i]);
    std::vector<UncertainParam> mine;
    for (const UncertainParam& u : d.params) {
      const auto it = own[i].find(u.name);
      if (it == own[i].end()) continue;  // the variant holds it
      const nlohmann::json* restated = restated_interval(v, u.name);
      if (!restated) {
        mine.push_back(u);
        continue;
      }
      // Restated with an interval of its own: drawn from that, and out of the group it was in
      // (as the profile's restatement takes it out), so by a draw of its own, keyed by the
      // restated value and interval (not its wording): variants that restate it alike draw it
      // alike (--compare's pairs).
      UncertainParam r = it->second;
      if (!u.mix.empty()) r.mix = {{restated_key(r, *restated), 1.0}};
      mine.push_back(r);
    }
    correlate_restated(mine, v, profiles[i]);
    d.drawn.push_back(std::move(mine));
  }
  return d;
}

std::vector<std::string> variant_sets(const Scenario& sc, const Variant& v, std::vector<std::string> sets) {
  for (std::string& s : sets) {
    const std::string name = s.substr(0, s.find('='));
    if (restated_interval(v, name)) s = fmt::format("variants.{}.overrides.{}", sc.index_of(v), s);
  }
  return sets;
}

namespace {

// FNV-1a over everything that decides the runs: the analysis, the scenario, --set, the variants
// and every point's values.
std::string fingerprint(const UncertaintySpec& spec, const Design& d, std::size_t n_points, const PointAt& point_at,
                        const std::string& kind) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  auto add = [&h](const std::string& s) {
    for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    h = (h ^ 0xffu) * 0x100000001b3ull;  // a separator no text contains
  };
  add(kind);
  add(d.sc.name);
  for (const auto& s : spec.sets) add(s);
  for (const auto& v : d.variants) add(v);
  for (std::size_t p = 0; p < n_points; ++p)
    for (std::size_t v = 0; v < d.variants.size(); ++v)
      for (const auto& s : point_at(p, v)) add(s);
  return fmt::format("{:016x}", h);
}

// The union of N shard documents, checked: the same design, every shard once, every point there.
std::vector<std::vector<json>> merge_shards(const UncertaintySpec& spec, const std::string& fp, std::size_t n_points,
                                            const std::vector<std::string>& variants) {
  const std::size_t n_variants = variants.size();
  const auto& docs = spec.shard.merge;
  std::vector<std::vector<json>> out(n_points);
  ShardSet shards;
  for (std::size_t f = 0; f < docs.size(); ++f) {
    const std::string& file = spec.shard.merge_files[f];
    const json& doc = docs[f];
    const std::size_t index = check_shard_header(
        doc, file, "fingerprint", fp, "this command (same scenario, --set, variants, seed and size)", shards);
    const std::size_t count = shards.count;
    for (const auto& [key, runs] : doc["results"].items()) {
      std::size_t p = 0;
      try {
        p = std::stoul(key);
      } catch (const std::exception&) {
        p = n_points;
      }
      if (p >= n_points || p % count != index || !runs.is_array() || runs.size() != n_variants)
        throw model::ConfigError(file, "/results/" + key,
                                 fmt::format("a point of shard {} with {} runs", index, n_variants),
                                 model::describe_json(runs));
      // Each run as qcesim writes it: an error text, or results that read back.
      for (std::size_t v = 0; v < runs.size(); ++v)
        if (const std::string why = run_result_problem(runs[v], true, variants[v]); !why.empty())
          throw model::ConfigError(file, fmt::format("/results/{}/{}", key, v), "a run's results as qcesim writes them",
                                   why);
      out[p] = runs.get<std::vector<json>>();
    }
  }
  shards.check_complete();
  for (std::size_t p = 0; p < n_points; ++p)
    if (out[p].size() != n_variants)
      throw model::ConfigError("--merge", "", fmt::format("point {} in shard {}", p, p % shards.count), "nothing");
  return out;
}

}  // namespace

std::vector<std::vector<json>> run_points(const UncertaintySpec& spec, const Design& d, std::size_t n_points,
                                          const PointAt& point_at, std::ostream& progress, const std::string& kind) {
  const std::size_t nv = d.variants.size();
  // Only shards carry the fingerprint: it draws every point's values once more, as many draws as
  // the runs make themselves.
  const bool sharded = spec.shard.count != 0 || !spec.shard.merge.empty();
  const std::string fp = sharded ? fingerprint(spec, d, n_points, point_at, kind) : std::string();
  if (!spec.shard.merge.empty()) return merge_shards(spec, fp, n_points, d.variants);
  // The points this process runs: all, or this shard's.
  std::vector<std::size_t> mine;
  for (std::size_t p = 0; p < n_points; ++p)
    if (spec.shard.count == 0 || p % spec.shard.count == spec.shard.index) mine.push_back(p);
  const std::size_t n = mine.size() * nv;
  // Progress: each tenth of the runs (a second or more after the last line: validate's small
  // scenarios finish a tenth every few milliseconds, and their lines would only be noise), and at
  // least every 5 s, with the time left at the rate so far; the last run's line ends what earlier
  // lines began.
  std::size_t done = 0, next_report = std::max<std::size_t>(1, n / 10);
  bool reported = false;
  const auto t0 = std::chrono::steady_clock::now();
  auto last = t0;
  auto raw = fork_each(
      n, spec.jobs,
      [&](std::size_t k) {
        const Variant& v = d.sc.variant(d.variants[k % nv]);
        // The design's scenario (spec.sets applied) with this point's values; only this run's
        // variant is built (run_variant): design_for checked them all nominally.
        const Scenario sample = d.sc.with_sets(variant_sets(d.sc, v, point_at(mine[k / nv], k % nv)), false);
        json r = run_variant(sample, sample.variant(d.variants[k % nv]), true).to_json();
        r["profile"] = json::array();  // per function: no analysis of many runs reads it (memory)
        return r;
      },
      [&](std::size_t, const json&) {
        const auto now = std::chrono::steady_clock::now();
        ++done;
        const double quiet = std::chrono::duration<double>(now - last).count();
        if (((done >= next_report || done == n) && quiet >= 1) || quiet >= 5 || (done == n && reported)) {
          const double s = std::chrono::duration<double>(now - t0).count();
          progress << fmt::format("  {}/{} runs, {:.0f} s so far, about {:.0f} s to go\n", done, n, s,
                                  s / static_cast<double>(done) * static_cast<double>(n - done));
          progress.flush();
          next_report = done + std::max<std::size_t>(1, n / 10);
          last = now;
          reported = true;
        }
      });
  if (spec.shard.count) {
    json doc = {{"fingerprint", fp},      {"kind", kind},       {"scenario", d.sc.name},    {"shard", spec.shard.index},
                {"of", spec.shard.count}, {"points", n_points}, {"results", json::object()}};
    for (std::size_t k = 0; k < n; ++k) doc["results"][std::to_string(mine[k / nv])].push_back(raw[k]);
    if (spec.shard.written) *spec.shard.written = std::move(doc);
    return {};
  }
  std::vector<std::vector<json>> out(n_points);
  for (std::size_t k = 0; k < n; ++k) out[k / nv].push_back(std::move(raw[k]));
  return out;
}

std::map<std::string, double> quantities_of(const VariantResult& r) {
  return {{"wall_s", r.wall_s},
          {"cpu_s", r.cpu_s},
          {"hardirq_s", r.hardirq_s},
          {"softirq_s", r.softirq_s},
          {"task_s", r.task_s},
          {"p50_us", r.lat_p50_us},
          {"p99_us", r.lat_p99_us},
          {"mb_per_s", r.wall_s > 0 ? static_cast<double>(r.bytes) / r.wall_s / 1e6 : 0.0},
          {kIrqsPerRequest, r.requests ? static_cast<double>(r.irqs) / static_cast<double>(r.requests) : 0.0}};
}

namespace {

// Sample by sample, each variant's quantities minus the compared variant's; a sample where either
// run failed is left out.
std::vector<VariantDiffs> paired_differences(const std::vector<std::vector<json>>& raw,
                                             const std::vector<std::string>& names, const std::string& base) {
  const std::size_t b = static_cast<std::size_t>(std::find(names.begin(), names.end(), base) - names.begin());
  std::vector<std::map<std::string, double>> base_q(raw.size());
  std::vector<bool> base_ok(raw.size(), false);
  for (std::size_t s = 0; s < raw.size(); ++s) {
    if (raw[s][b].contains("error")) continue;
    base_q[s] = quantities_of(VariantResult::from_json(raw[s][b]));
    base_ok[s] = true;
  }
  std::vector<VariantDiffs> out;
  for (std::size_t v = 0; v < names.size(); ++v) {
    if (v == b) continue;
    VariantDiffs vd;
    vd.name = names[v];
    std::map<std::string, std::vector<double>> d;
    std::map<std::string, double> nominal;
    for (std::size_t s = 0; s < raw.size(); ++s) {
      if (!base_ok[s] || raw[s][v].contains("error")) continue;
      for (const auto& [k, x] : quantities_of(VariantResult::from_json(raw[s][v]))) {
        if (s == 0) {
          nominal[k] = x - base_q[s][k];
        } else {
          d[k].push_back(x - base_q[s][k]);
        }
      }
    }
    for (const auto& [k, heading] : band_quantities()) {
      DiffBand db;
      db.nominal = nominal[k];
      const std::vector<double>& x = d[k];
      db.n = x.size();
      if (!x.empty()) {
        db.p05 = quantile(x, 0.05);
        db.median = quantile(x, 0.5);
        db.p95 = quantile(x, 0.95);
        db.lower = static_cast<double>(std::count_if(x.begin(), x.end(), [](double a) { return a < 0; })) /
                   static_cast<double>(x.size());
      }
      vd.quantity[k] = db;
    }
    out.push_back(std::move(vd));
  }
  return out;
}

}  // namespace

UncertaintyResult run_uncertainty(const UncertaintySpec& spec, std::ostream& progress) {
  if (spec.samples < 2)
    throw model::ConfigError("--uncertainty", "", "at least 2 samples", std::to_string(spec.samples));
  const Design d = design_for(spec);
  UncertaintyResult res;
  res.scenario = d.sc.name;
  res.params = d.params;
  // Point 0: the nominal profile; point i: sample i - 1.
  const std::size_t n_points = spec.samples + 1;
  const PointAt point_at = [&d, &spec](std::size_t p, std::size_t v) {
    return p == 0 ? std::vector<std::string>{} : sample_sets(d.drawn[v], spec.seed, p - 1);
  };
  progress << fmt::format(
      "qcesim: {} ({} x {} B), {} variant(s) x ({} samples + nominal) = {} runs, {} parameters "
      "sampled ({} of them jointly), seed {}, timing only\n",
      d.sc.name, d.sc.workload.messages, d.sc.workload.message_bytes, d.variants.size(), spec.samples,
      n_points * d.variants.size(), res.params.size(),
      std::count_if(res.params.begin(), res.params.end(), [](const UncertainParam& u) { return !u.mix.empty(); }),
      spec.seed);
  for (std::size_t v = 0; v < d.variants.size(); ++v) {
    const std::size_t own = static_cast<std::size_t>(
        std::count_if(d.drawn[v].begin(), d.drawn[v].end(), [](const UncertainParam& u) { return u.variant_group; }));
    if (own > 0)
      progress << fmt::format("qcesim: {} draws {} of its restated parameters jointly (its own correlations)\n",
                              d.variants[v], own);
  }
  progress.flush();
  const auto raw = run_points(spec, d, n_points, point_at, progress, "uncertainty");
  if (raw.empty()) return res;  // a shard: its document is the result
  const std::size_t runs_per_variant = n_points;
  std::vector<std::string> names = d.variants;
  for (std::size_t v = 0; v < names.size(); ++v) {
    VariantBands vb;
    vb.name = names[v];
    for (const UncertainParam& u : d.params)
      if (std::none_of(d.drawn[v].begin(), d.drawn[v].end(),
                       [&u](const UncertainParam& w) { return w.name == u.name; }))
        vb.fixed.push_back(u.name);
    for (const UncertainParam& u : d.drawn[v])
      if (u.variant_group) vb.joint.push_back(u);
    std::map<std::string, std::vector<double>> samples;
    std::map<std::string, double> nominal, measured;
    for (std::size_t s = 0; s < runs_per_variant; ++s) {
      const json& j = raw[s][v];
      if (j.contains("error")) {
        if (s == 0)
          throw model::ConfigError(spec.scenario, "", "a nominal run that completes", j["error"].get<std::string>());
        ++res.failed;
        continue;
      }
      const VariantResult r = VariantResult::from_json(j);
      const auto q = quantities_of(r);
      if (s == 0) {
        nominal = q;
        measured = r.measured;
      } else {
        for (const auto& [k, x] : q) samples[k].push_back(x);
      }
    }
    for (const auto& [k, heading] : quantities_in(measured)) {
      Band b;
      b.nominal = nominal[k];
      b.p05 = quantile(samples[k], 0.05);
      b.median = quantile(samples[k], 0.5);
      b.p95 = quantile(samples[k], 0.95);
      if (auto it = measured.find(k); it != measured.end()) b.measured = it->second;
      vb.quantity[k] = b;
    }
    res.variants.push_back(std::move(vb));
  }
  if (!spec.compare.empty()) res.diffs = paired_differences(raw, names, spec.compare), res.compare = spec.compare;
  return res;
}

bool inside(const Band& b, const std::string& quantity) {
  const double slack = quantity == kIrqsPerRequest ? kIrqsSlack : 0.0;
  return b.measured >= b.p05 - slack && b.measured <= b.p95 + slack;
}

std::string uncertainty_table(const UncertaintyResult& r) {
  std::string s = fmt::format("{:<22} {:<18} {:>12} {:>25} {:>12} {:>8}\n", "variant", "quantity", "nominal",
                              "90 % interval", "measured", "inside");
  for (const VariantBands& v : r.variants) {
    for (const auto& [k, heading] : quantities_in(v.quantity)) {
      const Band& b = v.quantity.at(k);
      const std::string meas = b.measured < 0 ? "-" : fmt::format("{:.4g}", b.measured);
      const std::string in = b.measured < 0 ? "" : inside(b, k) ? "yes" : "no";
      s += fmt::format("{:<22} {:<18} {:>12.4g} {:>25} {:>12} {:>8}\n", v.name, heading, b.nominal,
                       fmt::format("[{:.4g}, {:.4g}]", b.p05, b.p95), meas, in);
    }
  }
  for (const VariantBands& v : r.variants)
    if (!v.fixed.empty()) {
      std::string names;
      for (const std::string& n : v.fixed) names += (names.empty() ? "" : ", ") + n;
      s += fmt::format("{} holds {} of the {} sampled parameters at fixed values: {}\n", v.name, v.fixed.size(),
                       r.params.size(), names);
    }
  for (const VariantBands& v : r.variants)
    if (!v.joint.empty()) {
      std::string names;
      for (const UncertainParam& u : v.joint) names += (names.empty() ? "" : ", ") + u.name;
      s += fmt::format("{} draws {} of its restated parameters jointly, with its own correlations: {}\n", v.name,
                       v.joint.size(), names);
    }
  if (r.failed) s += fmt::format("{} sample run(s) failed and are left out of the intervals\n", r.failed);
  if (!r.diffs.empty()) {
    s += fmt::format(
        "\ndifference to {}, sample by sample (both runs draw the same parameter values); lower in: the share of "
        "samples where the variant's value is below {}'s\n",
        r.compare, r.compare);
    std::size_t w = 22;
    for (const VariantDiffs& v : r.diffs) w = std::max(w, v.name.size() + 1);
    s += fmt::format("{:<{}} {:<18} {:>12} {:>25} {:>9}\n", "variant", w, "quantity", "nominal", "90 % interval",
                     "lower in");
    for (const VariantDiffs& v : r.diffs)
      for (const auto& [k, heading] : band_quantities()) {
        const DiffBand& b = v.quantity.at(k);
        if (b.n == 0) {  // every sample run of one of the two failed
          s += fmt::format("{:<{}} {:<18} {:>+12.4g} {:>25} {:>9}\n", v.name, w, heading, b.nominal, "n/a", "n/a");
          continue;
        }
        s += fmt::format("{:<{}} {:<18} {:>+12.4g} {:>25} {:>8.0f}%\n", v.name, w, heading, b.nominal,
                         fmt::format("[{:+.4g}, {:+.4g}]", b.p05, b.p95), 100 * b.lower);
      }
  }
  return s;
}

namespace {

// A sampled parameter as the JSON lists it: its interval and, drawn jointly, the draws it mixes.
json drawn_json(const UncertainParam& u) {
  json pj = {{"name", u.name}, {"interval", {u.lo, u.hi}}};
  for (const auto& [name, w] : u.mix) pj["drawn_with"].push_back({{"name", name}, {"weight", w}});
  return pj;
}

}  // namespace

json uncertainty_json(const UncertaintyResult& r, const UncertaintySpec& spec) {
  json j = {{"scenario", r.scenario},     {"samples", spec.samples},     {"seed", spec.seed},
            {"failed_samples", r.failed}, {"parameters", json::array()}, {"variants", json::array()}};
  for (const UncertainParam& u : r.params) j["parameters"].push_back(drawn_json(u));
  for (const VariantBands& v : r.variants) {
    json q = json::object();
    for (const auto& [k, b] : v.quantity) {
      q[k] = {{"nominal", b.nominal}, {"p05", b.p05}, {"median", b.median}, {"p95", b.p95}};
      if (b.measured >= 0) q[k]["measured"] = b.measured;
    }
    json vj = {{"name", v.name}, {"quantities", q}};
    if (!v.fixed.empty()) vj["fixed"] = v.fixed;
    for (const UncertainParam& u : v.joint) vj["drawn_jointly"].push_back(drawn_json(u));
    j["variants"].push_back(vj);
  }
  if (!r.diffs.empty()) {
    json c = {{"variant", r.compare}, {"variants", json::array()}};
    for (const VariantDiffs& v : r.diffs) {
      json q = json::object();
      for (const auto& [k, b] : v.quantity)
        q[k] = {{"nominal", b.nominal}, {"p05", b.p05},     {"median", b.median},
                {"p95", b.p95},         {"lower", b.lower}, {"samples", b.n}};
      c["variants"].push_back({{"name", v.name}, {"quantities", q}});
    }
    j["compare"] = c;
  }
  return j;
}

MeanSd mean_sd(const std::vector<double>& x) {
  double mean = 0;
  for (double a : x) mean += a;
  mean /= static_cast<double>(x.size());
  double var = 0;
  for (double a : x) var += (a - mean) * (a - mean);
  return {mean, x.size() > 1 ? std::sqrt(var / static_cast<double>(x.size() - 1)) : 0.0};
}

double student_t975(std::size_t df) {
  static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                             2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                             2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  return df >= 1 && df <= 30 ? t[df - 1] : 1.96;
}

const std::vector<std::pair<std::string, std::string>>& seed_quantities() {
  static const std::vector<std::pair<std::string, std::string>> q = [] {
    auto v = band_quantities();
    v.push_back({"irqs", "interrupts"});
    v.push_back({"digest_mismatches", "wrong outputs"});
    v.push_back({"failed_requests", "failed requests"});
    return v;
  }();
  return q;
}

SeedsResult run_seeds(const UncertaintySpec& spec, std::size_t seeds, std::ostream& progress) {
  if (seeds < 2) throw model::ConfigError("--seeds", "", "at least 2 seeds", std::to_string(seeds));
  for (const std::string& s : spec.sets)
    if (s.rfind("sim.seed=", 0) == 0)
      throw model::ConfigError("--set", "", "no sim.seed with --seeds (it sets 1..N)", s);
  const Design d = design_for(spec);
  SeedsResult res;
  res.scenario = d.sc.name;
  res.seeds = seeds;
  const model::Profile prof = d.sc.profile_for(d.sc.variant(d.variants.front()));
  res.cv = prof.num("cpu.cost_cv");
  const PointAt point_at = [](std::size_t p, std::size_t) {
    return std::vector<std::string>{fmt::format("sim.seed={}", p + 1)};
  };
  progress << fmt::format(
      "qcesim: {} ({} x {} B), {} variant(s) x {} seeds = {} runs, every CPU charge varying with "
      "cv {:.2g}, timing only\n",
      d.sc.name, d.sc.workload.messages, d.sc.workload.message_bytes, d.variants.size(), seeds,
      seeds * d.variants.size(), res.cv);
  progress.flush();
  const auto raw = run_points(spec, d, seeds, point_at, progress, "seeds");
  if (raw.empty()) return res;  // a shard
  for (std::size_t v = 0; v < d.variants.size(); ++v) {
    std::map<std::string, std::vector<double>> xs;
    std::map<std::string, double> measured;
    for (std::size_t s = 0; s < seeds; ++s) {
      const json& j = raw[s][v];
      if (j.contains("error"))
        throw model::ConfigError(spec.scenario, "", "runs that complete", j["error"].get<std::string>());
      const VariantResult r = VariantResult::from_json(j);
      auto q = quantities_of(r);
      q["irqs"] = static_cast<double>(r.irqs);
      q["digest_mismatches"] = static_cast<double>(r.digest_mismatches);
      q["failed_requests"] = static_cast<double>(r.failed_requests);
      for (const auto& [k, x] : q) xs[k].push_back(x);
      measured = r.measured;
    }
    std::map<std::string, SeedStats> stats;
    // A quantity a board measured (task_s, irqs_per_request) gets its row too, as in --uncertainty.
    for (const auto& [k, heading] : quantities_in(measured, seed_quantities())) {
      const auto& x = xs[k];
      const MeanSd m = mean_sd(x);
      const double half = student_t975(x.size() - 1) * m.sd / std::sqrt(static_cast<double>(x.size()));
      SeedStats st{m.mean, m.mean - half, m.mean + half, -1};
      if (auto it = measured.find(k); it != measured.end()) st.measured = it->second;
      stats[k] = st;
    }
    res.variants.emplace_back(d.variants[v], std::move(stats));
  }
  return res;
}

std::string seeds_table(const SeedsResult& r) {
  std::string s = fmt::format("{:<22} {:<18} {:>12} {:>27} {:>12}\n", "variant", "quantity", "mean",
                              "95 % CI of the mean", "measured");
  for (const auto& [variant, stats] : r.variants) {
    for (const auto& [k, heading] : quantities_in(stats, seed_quantities())) {
      const SeedStats& st = stats.at(k);
      s += fmt::format("{:<22} {:<18} {:>12.5g} {:>27} {:>12}\n", variant, heading, st.mean,
                       fmt::format("[{:.5g}, {:.5g}]", st.lo, st.hi),
                       st.measured < 0 ? "-" : fmt::format("{:.4g}", st.measured));
    }
  }
  s += fmt::format("{} seeds; every CPU charge log-normal with mean 1 and cv {:.2g} (cpu.cost_cv)\n", r.seeds, r.cv);
  return s;
}

json seeds_json(const SeedsResult& r) {
  json j = {{"scenario", r.scenario}, {"seeds", r.seeds}, {"cost_cv", r.cv}, {"variants", json::array()}};
  for (const auto& [variant, stats] : r.variants) {
    json q = json::object();
    for (const auto& [k, st] : stats) {
      q[k] = {{"mean", st.mean}, {"ci95", {st.lo, st.hi}}};
      if (st.measured >= 0) q[k]["measured"] = st.measured;
    }
    j["variants"].push_back({{"name", variant}, {"quantities", q}});
  }
  return j;
}

}  // namespace qcesim::studies
