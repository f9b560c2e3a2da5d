#include "studies/sensitivity.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <ostream>
#include <spdlog/fmt/fmt.h>

#include "model/counter_rng.h"
#include "studies/replay.h"
#include "studies/uncertainty.h"

namespace qcesim::studies {

using nlohmann::json;

namespace {

constexpr double kDelta = 2.0 / 3.0;  // Morris's jump for a 4-level grid

// A grid level in [0, 1] to the parameter's value.
double value_at(const UncertainParam& u, double level) {
  double v = u.lo > 0 ? u.lo * std::pow(u.hi / u.lo, level) : u.lo + (u.hi - u.lo) * level;
  v = std::clamp(v, u.min, u.max);
  return u.integer ? std::round(v) : v;
}

std::string set_of(const UncertainParam& u, double level) {
  return fmt::format("{}={:.10g}", u.name, value_at(u, level));
}

// The value a "name=value" set gives (the direction of a step is the sign of the values'
// difference: value_at rises with the level).
double value_of(const std::string& set) { return std::stod(set.substr(set.find('=') + 1)); }

}  // namespace

MorrisDesign::MorrisDesign(const std::vector<UncertainParam>& ps, std::size_t trajectories, std::uint64_t seed)
    : m_ps(ps) {
  std::uint64_t state = seed * 0xA24BAED4963EE407ull + 0x5851F42D4C957F2Dull;
  for (std::size_t t = 0; t < trajectories; ++t) {
    const std::uint64_t trajectory = model::splitmix64(state);
    // Each parameter's start (0 or 1/3 going up, 2/3 or 1 going down) and its place in the
    // trajectory's order, from the trajectory and its own name: a parameter added to the profile
    // (or pinned by a scenario) takes its own step somewhere and leaves every other one's start,
    // direction and relative order, so their elementary effects, as they were.
    std::vector<double> level(ps.size());
    std::vector<double> step(ps.size());
    std::vector<std::uint64_t> rank(ps.size());
    for (std::size_t i = 0; i < ps.size(); ++i) {
      std::uint64_t own = trajectory ^ name_key(ps[i].name);
      const std::uint64_t r = model::splitmix64(own);
      const bool up = (r & 1) != 0;
      const double base = (r >> 1 & 1) != 0 ? 1.0 / 3.0 : 0.0;
      level[i] = up ? base : 1.0 - base;
      step[i] = up ? kDelta : -kDelta;
      rank[i] = model::splitmix64(own);
    }
    std::vector<std::size_t> order(ps.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return rank[a] != rank[b] ? rank[a] < rank[b] : ps[a].name < ps[b].name;
    });
    m_start.push_back(std::move(level));
    m_step.push_back(std::move(step));
    m_order.push_back(std::move(order));
  }
}

std::vector<std::string> MorrisDesign::point(std::size_t p) const { return point(p, m_ps); }

std::vector<std::string> MorrisDesign::point(std::size_t p, const std::vector<UncertainParam>& own) const {
  const std::size_t k = m_ps.size(), t = p / (k + 1), moves = p % (k + 1);
  std::vector<double> level = m_start[t];
  for (std::size_t m = 0; m < moves; ++m) level[m_order[t][m]] += m_step[t][m_order[t][m]];
  std::vector<std::string> sets;
  for (std::size_t i = 0, j = 0; i < k && j < own.size(); ++i)
    if (own[j].name == m_ps[i].name) sets.push_back(set_of(own[j++], level[i]));
  return sets;
}

std::vector<std::vector<std::string>> morris_points(const std::vector<UncertainParam>& ps, std::size_t trajectories,
                                                    std::uint64_t seed) {
  const MorrisDesign design(ps, trajectories, seed);
  std::vector<std::vector<std::string>> points;
  for (std::size_t p = 0; p < design.size(); ++p) points.push_back(design.point(p));
  return points;
}

SensitivityResult run_sensitivity(const SensitivitySpec& spec, std::ostream& progress) {
  if (spec.trajectories < 2)
    throw model::ConfigError("--trajectories", "", "at least 2 trajectories", std::to_string(spec.trajectories));
  const Design d = design_for(spec.base);
  if (!spec.base.compare.empty() && d.variants.size() < 2)
    throw model::ConfigError("--compare", "",
                             "another variant to compare with " + model::quoted_input(spec.base.compare),
                             "only " + model::quoted_input(spec.base.compare));
  const std::size_t k = d.params.size();
  if (k == 0) throw model::ConfigError(spec.base.scenario, "", "parameters with an interval to vary", "none");
  // Point 0: nominal, for the relative effects; point 1 + q: the design's point q.
  const MorrisDesign design(d.params, spec.trajectories, spec.base.seed);
  const std::size_t n_points = 1 + design.size();
  // Each variant's runs move what that variant draws, over its own intervals (studies/uncertainty.h).
  const PointAt point_at = [&design, &d](std::size_t p, std::size_t v) {
    return p == 0 ? std::vector<std::string>{} : design.point(p - 1, d.drawn[v]);
  };
  progress << fmt::format(
      "qcesim sensitivity: {} ({} x {} B), {} parameters, {} trajectories, {} variant(s): {} runs\n", d.sc.name,
      d.sc.workload.messages, d.sc.workload.message_bytes, k, spec.trajectories, d.variants.size(),
      n_points * d.variants.size());
  progress.flush();
  const auto raw =
      run_points(spec.base, d, n_points, point_at, progress, fmt::format("sensitivity {}", spec.trajectories));
  SensitivityResult res;
  res.scenario = d.sc.name;
  res.params = k;
  res.runs = n_points * d.variants.size();
  if (raw.empty()) return res;  // a shard
  // Each run's quantities, computed once: [point][variant], empty when the run failed.
  std::vector<std::vector<std::map<std::string, double>>> q(raw.size());
  for (std::size_t p = 0; p < raw.size(); ++p)
    for (const json& j : raw[p])
      q[p].push_back(j.contains("error") ? std::map<std::string, double>{}
                                         : quantities_of(VariantResult::from_json(j)));
  for (std::size_t v = 0; v < d.variants.size(); ++v)
    if (raw[0][v].contains("error"))
      throw model::ConfigError(spec.base.scenario, "", "a nominal run that completes",
                               raw[0][v]["error"].get<std::string>());
  // The elementary effects on `at(point)` (empty: no value), relative to `scale` per quantity.
  const auto effects_of = [&](const std::function<std::map<std::string, double>(std::size_t)>& at,
                              const std::map<std::string, double>& scale) {
    std::map<std::string, std::vector<std::vector<double>>> effects;  // quantity -> param -> EEs
    for (const auto& [qn, _] : band_quantities()) effects[qn].assign(k, {});
    for (std::size_t t = 0; t < spec.trajectories; ++t) {
      const std::size_t first = 1 + t * (k + 1);
      std::vector<std::string> pb = design.point(t * (k + 1));  // each step's second point is the next one's first
      for (std::size_t st = 0; st < k; ++st) {
        const std::vector<std::string> pa = std::move(pb);
        pb = design.point(t * (k + 1) + st + 1);
        const auto qa = at(first + st), qb = at(first + st + 1);
        if (qa.empty() || qb.empty()) continue;
        // The parameter that moved between the two points.
        std::size_t moved = 0;
        while (moved < k && pa[moved] == pb[moved]) ++moved;
        if (moved == k) continue;  // a clipped or rounded step that changed nothing
        const bool up = value_of(pb[moved]) > value_of(pa[moved]);
        for (const auto& [qn, _] : band_quantities()) {
          const double sc = scale.at(qn) != 0 ? scale.at(qn) : 1.0;
          effects[qn][moved].push_back((qb.at(qn) - qa.at(qn)) / sc / kDelta * (up ? 1 : -1));
        }
      }
    }
    std::map<std::string, std::vector<Effect>> by_q;
    for (auto& [qn, per_param] : effects) {
      std::vector<Effect> list;
      for (std::size_t i = 0; i < k; ++i) {
        const auto& e = per_param[i];
        if (e.empty()) continue;
        double abs_sum = 0;
        for (double x : e) abs_sum += std::fabs(x);
        const MeanSd m = mean_sd(e);
        list.push_back({d.params[i].name, abs_sum / static_cast<double>(e.size()), m.mean, m.sd});
      }
      std::stable_sort(list.begin(), list.end(),
                       [](const Effect& a, const Effect& b) { return a.mu_star > b.mu_star; });
      by_q[qn] = std::move(list);
    }
    return by_q;
  };
  const std::string& base = spec.base.compare;
  res.compare = base;
  if (base.empty()) {
    for (std::size_t v = 0; v < d.variants.size(); ++v)
      res.variants.emplace_back(d.variants[v], effects_of([&](std::size_t p) { return q[p][v]; }, q[0][v]));
    return res;
  }
  // --compare: the effects on each variant's difference to the compared one, sample by sample,
  // relative to the compared variant's nominal value.
  const std::size_t b =
      static_cast<std::size_t>(std::find(d.variants.begin(), d.variants.end(), base) - d.variants.begin());
  for (std::size_t v = 0; v < d.variants.size(); ++v) {
    if (v == b) continue;
    const auto diff = [&](std::size_t p) {
      std::map<std::string, double> out;
      if (q[p][v].empty() || q[p][b].empty()) return out;
      for (const auto& [qn, x] : q[p][v]) out[qn] = x - q[p][b].at(qn);
      return out;
    };
    res.variants.emplace_back(d.variants[v] + " - " + base, effects_of(diff, q[0][b]));
  }
  return res;
}

std::string sensitivity_table(const SensitivityResult& r, std::size_t top) {
  std::size_t w = 20;  // as wide as the longest variant (or "variant - compared") name
  for (const auto& [variant, by_q] : r.variants) w = std::max(w, variant.size());
  std::string s = fmt::format("{:<{}} {:<18} {:>4}  {:<36} {:>8} {:>8}\n", "variant", w, "quantity", "rank",
                              "parameter", "mu*", "sigma");
  for (const auto& [variant, by_q] : r.variants) {
    for (const auto& [q, heading] : band_quantities()) {
      const auto& list = by_q.at(q);
      for (std::size_t i = 0; i < std::min(top, list.size()); ++i) {
        if (list[i].mu_star == 0) break;
        s += fmt::format("{:<{}} {:<18} {:>4}  {:<36} {:>8.3f} {:>8.3f}\n", variant, w, heading, i + 1, list[i].param,
                         list[i].mu_star, list[i].sigma);
      }
    }
  }
  s += fmt::format(
      "mu*, sigma: the output's change relative to the nominal run when a parameter moves across its 90 % "
      "interval ({} parameters, {} runs)\n",
      r.params, r.runs);
  if (!r.compare.empty())
    s += fmt::format(
        "\"X - {0}\": the change of X's difference to {0}, relative to {0}'s nominal value; mu's sign (JSON) says "
        "which way the difference moves\n",
        r.compare);
  return s;
}

json sensitivity_json(const SensitivityResult& r) {
  json j = {{"scenario", r.scenario}, {"parameters", r.params}, {"runs", r.runs}, {"variants", json::array()}};
  if (!r.compare.empty()) j["compare"] = r.compare;  // the variants are then "X - compare": effects on the difference
  for (const auto& [variant, by_q] : r.variants) {
    json q = json::object();
    for (const auto& [name, list] : by_q) {
      q[name] = json::array();
      for (const Effect& e : list)
        q[name].push_back({{"parameter", e.param}, {"mu_star", e.mu_star}, {"mu", e.mu}, {"sigma", e.sigma}});
    }
    j["variants"].push_back({{"name", variant}, {"quantities", q}});
  }
  return j;
}

}  // namespace qcesim::studies
