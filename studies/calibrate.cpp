#include "studies/calibrate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <spdlog/fmt/fmt.h>
#include <sstream>

#include "cpu/core_type.h"
#include "model/cholesky.h"
#include "model/counter_rng.h"
#include "studies/processes.h"
#include "studies/replay.h"

namespace qcesim::studies {

using model::Matrix;
using nlohmann::json;

namespace {

// Solves A x = b for a small symmetric positive definite A (Gaussian elimination, pivoting).
std::vector<double> solve(Matrix a, std::vector<double> b) {
  const std::size_t n = b.size();
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t piv = c;
    for (std::size_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[piv][c])) piv = r;
    std::swap(a[c], a[piv]);
    std::swap(b[c], b[piv]);
    for (std::size_t r = c + 1; r < n; ++r) {
      const double f = a[r][c] / a[c][c];
      for (std::size_t k = c; k < n; ++k) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> x(n);
  for (std::size_t i = n; i-- > 0;) {
    double s = b[i];
    for (std::size_t k = i + 1; k < n; ++k) s -= a[i][k] * x[k];
    x[i] = s / a[i][i];
  }
  return x;
}

Matrix inverse(const Matrix& a) {
  const std::size_t n = a.size();
  Matrix inv(n, std::vector<double>(n));
  for (std::size_t c = 0; c < n; ++c) {
    std::vector<double> e(n, 0.0);
    e[c] = 1;
    const auto col = solve(a, e);
    for (std::size_t r = 0; r < n; ++r) inv[r][c] = col[r];
  }
  return inv;
}

}  // namespace

std::map<std::string, double> residual_variance(const CalibrationProblem& p, const std::vector<double>& r) {
  const std::size_t k = p.params.size(), n = r.size();
  std::map<std::string, std::pair<double, double>> kind;  // key -> (RSS, residuals)
  for (std::size_t t = 0; t < n; ++t) {
    kind[p.targets[t].key].first += r[t] * r[t];
    kind[p.targets[t].key].second += 1;
  }
  std::map<std::string, double> var;
  if (n <= k) {  // no degree of freedom left: no estimate
    for (const auto& [key, sums] : kind) var[key] = 1.0;
    return var;
  }
  double rss = 0;
  for (double x : r) rss += x * x;
  const double dof = static_cast<double>(n - k), pooled = rss / dof;
  // A kind has a degree of freedom or two (P1: 2-3 residuals each), too few to trust its own
  // estimate alone: it is pulled towards the pooled one, which counts as one more degree of
  // freedom of every kind (an inverse-gamma prior of one degree of freedom centred on the pooled
  // variance, as empirical Bayes shrinks per-group variances).
  constexpr double kPooledDof = 1.0;
  for (const auto& [key, sums] : kind) {
    const double own_dof = sums.second * dof / static_cast<double>(n);
    var[key] = std::max((sums.first + kPooledDof * pooled) / (own_dof + kPooledDof), 1e-4);
  }
  return var;
}

namespace {

double sim_value(const studies::VariantResult& r, const std::string& key) {
  if (key == "wall_s") return r.wall_s;
  if (key == "cpu_s") return r.cpu_s;
  if (key == "hardirq_s") return r.hardirq_s;
  if (key == "task_s") return r.task_s;
  return r.softirq_s;
}

// The fit in log space: parameter vectors theta = log(value), residuals and the cost.
class Fit {
 public:
  explicit Fit(const CalibrationProblem& p) : m_p(p) {}

  std::size_t k() const { return m_p.params.size(); }
  double sigma(std::size_t q) const { return m_p.sigma[q]; }
  std::vector<double> start() const {
    std::vector<double> th(k());
    for (std::size_t q = 0; q < k(); ++q) th[q] = std::log(m_p.centre[q]);  // the evidence's, where there is some
    return th;
  }
  // One step of parameter q, kept inside its range.
  double clamp_log(std::size_t q, double th) const {
    return std::clamp(th, std::log(m_p.params[q].min), std::log(m_p.params[q].max));
  }
  // log(simulated / measured) per target, every variant run at each theta (one process each).
  std::vector<std::vector<double>> residuals(const std::vector<std::vector<double>>& thetas) const {
    const auto results = evaluate(thetas);
    std::vector<std::vector<double>> out;
    for (const auto& rs : results) {
      std::vector<double> r(m_p.targets.size());
      for (std::size_t t = 0; t < r.size(); ++t) {
        const CalibrationTarget& tg = m_p.targets[t];
        std::size_t v = 0;
        while (m_p.scenario.variants[v].name != tg.variant) ++v;
        r[t] = std::log(std::max(sim_value(rs[v], tg.key), 1e-12) / tg.measured);
      }
      out.push_back(std::move(r));
    }
    return out;
  }
  // The residuals' weights: none (each 1), or the posterior's (1 / its kind's variance).
  void weigh(std::vector<double> w) { m_w = std::move(w); }
  // Weighted squared residuals plus the log-normal priors.
  double cost(const std::vector<double>& r, const std::vector<double>& th) const {
    double c = 0;
    for (std::size_t t = 0; t < r.size(); ++t) c += r[t] * r[t] * (m_w.empty() ? 1.0 : m_w[t]);
    for (std::size_t q = 0; q < k(); ++q) c += std::pow((th[q] - std::log(m_p.centre[q])) / m_p.sigma[q], 2);
    return c;
  }

 private:
  std::vector<double> values(const std::vector<double>& th) const {
    std::vector<double> p(k());
    for (std::size_t q = 0; q < k(); ++q) p[q] = std::clamp(std::exp(th[q]), m_p.params[q].min, m_p.params[q].max);
    return p;
  }
  std::vector<std::vector<studies::VariantResult>> evaluate(const std::vector<std::vector<double>>& thetas) const {
    const studies::Scenario& sc = m_p.scenario;
    std::vector<std::pair<std::size_t, std::size_t>> work;  // (point, variant)
    for (std::size_t pt = 0; pt < thetas.size(); ++pt)
      for (std::size_t v = 0; v < sc.variants.size(); ++v) work.emplace_back(pt, v);
    const auto raw = fork_each(
        work.size(), m_p.spec.jobs,
        [&](std::size_t i) {
          const std::vector<double> p = values(thetas[work[i].first]);
          studies::Variant var = sc.variants[work[i].second];
          for (std::size_t q = 0; q < k(); ++q) var.overrides[m_p.params[q].name] = p[q];
          studies::Scenario s2 = sc;
          s2.variants[work[i].second] = var;
          return studies::run_variant(s2, var, true).to_json();
        },
        [](std::size_t, const json&) {});
    std::vector<std::vector<studies::VariantResult>> res(thetas.size(),
                                                         std::vector<studies::VariantResult>(sc.variants.size()));
    for (std::size_t i = 0; i < work.size(); ++i) {
      if (raw[i].contains("error"))
        throw std::runtime_error("evaluation failed: " + raw[i]["error"].get<std::string>());
      res[work[i].first][work[i].second] = studies::VariantResult::from_json(raw[i]);
    }
    return res;
  }

  const CalibrationProblem& m_p;
  std::vector<double> m_w;
};

// Pattern search: every parameter up and down by a factor, all candidates simulated at once,
// keep the best; halve the factor when nothing improves.
void pattern_search(const Fit& fit, unsigned iterations, std::vector<double>& theta, std::vector<double>& r,
                    std::ostream& progress) {
  double c = fit.cost(r, theta);
  double step = std::log(2.0);
  for (unsigned it = 0; it < iterations && step > std::log(1.02); ++it) {
    std::vector<std::vector<double>> cands;
    for (std::size_t q = 0; q < fit.k(); ++q)
      for (double dir : {-1.0, 1.0}) {
        auto th = theta;
        th[q] = fit.clamp_log(q, th[q] + dir * step);
        if (th[q] != theta[q]) cands.push_back(th);
      }
    const auto rs = fit.residuals(cands);
    std::size_t best = cands.size();
    double best_c = c;
    for (std::size_t i = 0; i < cands.size(); ++i) {
      const double ci = fit.cost(rs[i], cands[i]);
      if (ci < best_c) {
        best_c = ci;
        best = i;
      }
    }
    if (best == cands.size()) {
      step /= 2;
    } else {
      theta = cands[best];
      r = rs[best];
      c = best_c;
    }
    progress << fmt::format("  sweep {}: cost {:.5f}, step x{:.3f}\n", it + 1, c, std::exp(step));
    progress.flush();
  }
}

// Posterior covariance in log space from the Jacobian at the optimum: data that constrain a
// parameter shrink it below the prior's. Each residual is weighted by the variance of its own
// kind of quantity (residual_variance: RSS / (n - k), the usual nonlinear least-squares
// estimate, per kind and pulled towards the pooled one, floored at a 1 % residual so that an
// exact fit claims no certainty). The model's error is not the same for every quantity (P1's
// walls within 6 %, its hardirq and softirq within 40 %): one pooled variance would let the
// hardirq's misfit widen what the walls pin down. With no degree of freedom left there is no
// estimate and each residual counts as one log unit.
Matrix posterior_covariance(const Fit& fit, const CalibrationProblem& p, const std::vector<double>& theta,
                            const std::vector<double>& r) {
  const double h = 0.15;
  const std::size_t k = fit.k(), n = r.size();
  const std::map<std::string, double> kinds = residual_variance(p, r);
  std::vector<double> var(n);
  for (std::size_t t = 0; t < n; ++t) var[t] = kinds.at(p.targets[t].key);
  std::vector<std::vector<double>> pts;
  for (std::size_t q = 0; q < k; ++q) {
    auto th = theta;
    th[q] += h;
    pts.push_back(th);
  }
  const auto rs = fit.residuals(pts);
  Matrix jac(n, std::vector<double>(k));
  for (std::size_t q = 0; q < k; ++q)
    for (std::size_t t = 0; t < n; ++t) jac[t][q] = (rs[q][t] - r[t]) / h;
  Matrix a(k, std::vector<double>(k, 0.0));
  for (std::size_t i = 0; i < k; ++i) {
    for (std::size_t j = 0; j < k; ++j)
      for (std::size_t t = 0; t < n; ++t) a[i][j] += jac[t][i] * jac[t][j] / var[t];
    a[i][i] += 1.0 / (fit.sigma(i) * fit.sigma(i));
  }
  Matrix cov = inverse(a);
  for (std::size_t i = 0; i < k; ++i)  // symmetric to the last bit, whatever the elimination's rounding
    for (std::size_t j = 0; j < i; ++j) cov[i][j] = cov[j][i] = 0.5 * (cov[i][j] + cov[j][i]);
  return cov;
}

}  // namespace

namespace {

// The fitted parameters with a board's direct evidence (each one measured number).
std::size_t evidenced(const CalibrationProblem& p) {
  return static_cast<std::size_t>(
      std::count_if(p.evidence.begin(), p.evidence.end(), [](const std::string& e) { return !e.empty(); }));
}

// The board's per-function table as priors: each fitted cost item a traced function maps onto
// (its "item") gets the function's mean own time per call, in the item's unit on the core the
// calls ran on (instructions = time x kernel_ipc x clock; cycles = time x clock; a wait as is),
// divided by the item's shared factor, as cpu/costs charges it back.
void apply_evidence(CalibrationProblem& p, const model::Profile& base) {
  const std::string& file = p.spec.evidence;
  const json t = model::read_json_file(file, "per-function table (qcesim ingest's BOARD-functions.json)");
  if (!t.is_object() || !t.contains("functions") || !t["functions"].is_array())
    throw model::ConfigError(file, "/functions", "an array of per-function rows", model::describe_json(t));
  if (!(p.spec.evidence_factor > 1.0) || p.spec.evidence_factor > 100)
    throw model::ConfigError("--evidence-factor", "", "a factor above 1 and at most 100",
                             fmt::format("{}", p.spec.evidence_factor));
  const std::vector<cpu::CoreType> cores = cpu::cpus_from_profile(base);
  const unsigned task = cpu::task_cpu_from_profile(base);
  // The table's rows, read and checked once: the item each is evidence for, with its calls, own
  // time per call, CPU and function.
  struct Row {
    std::string item, function;
    double calls = 0, self_us = 0;
    std::size_t cpu = 0;
  };
  std::vector<Row> rows;
  for (std::size_t i = 0; i < t["functions"].size(); ++i) {
    const json& row = t["functions"][i];
    const model::JsonObject o(row, file, fmt::format("/functions/{}", i),
                              {"function", "calls", "mean_us", "self_mean_us", "max_us", "item", "cpu"});
    if (!row.contains("item") || !row["item"].is_string()) continue;
    Row r{row["item"].get<std::string>(), "", 0, 0, task};
    r.calls = static_cast<double>(o.whole("calls", 0, 1, 1ull << 50));
    r.self_us = o.number("self_mean_us", 0, 0, 1e9, "us");
    if (o.has("cpu") && !o.at("cpu").is_null()) r.cpu = static_cast<std::size_t>(o.whole("cpu", 0, 0, 1023));
    r.function = o.text("function");
    rows.push_back(std::move(r));
  }
  for (std::size_t q = 0; q < p.params.size(); ++q) {
    const model::Param& prm = p.params[q];
    double sum_us = 0, calls = 0;
    std::string functions;
    std::size_t cpu = task;
    for (const Row& r : rows) {
      if (r.item != prm.name) continue;
      sum_us += r.calls * r.self_us;
      calls += r.calls;
      cpu = r.cpu;
      functions += (functions.empty() ? "" : ", ") + r.function;
    }
    if (calls == 0) continue;
    if (cpu >= cores.size()) cpu = task;
    const cpu::CoreType& core = cores[cpu];
    const double shared = prm.shared.empty() ? 1.0 : base.num(prm.shared);
    const double seconds = sum_us / calls * 1e-6;
    double value = 0;
    if (prm.unit == "instructions")
      value = seconds * core.freq_max * 1e9 * core.kernel_ipc / shared;
    else if (prm.unit == "cycles")
      value = seconds * core.freq_max * 1e9 / shared;
    else if (model::Profile::unit_to_seconds(prm.unit) > 0)
      value = seconds / model::Profile::unit_to_seconds(prm.unit) / shared;
    if (!(value > 0)) continue;
    // The conversion divides by the shared factor's value now: fitting that factor too would
    // move the evidence's meaning under the fit.
    if (!prm.shared.empty() && std::find(p.spec.fit.begin(), p.spec.fit.end(), prm.shared) != p.spec.fit.end())
      throw model::ConfigError("--evidence", "", "evidence for items whose shared factor is not fitted with them",
                               prm.name + " shares " + prm.shared + ", which --fit names");
    p.centre[q] = std::clamp(value, prm.min, prm.max);
    p.sigma[q] = std::log(p.spec.evidence_factor);
    p.evidence[q] = fmt::format("{:.4g} {} from {} ({:.0f} calls, {:.3f} us each on cpu{} {}){}", p.centre[q], prm.unit,
                                functions, calls, sum_us / calls, cpu, core.name,
                                p.centre[q] != value ? fmt::format("; measured {:.4g}, outside the range", value) : "");
  }
}

}  // namespace

CalibrationProblem calibration_problem(const CalibrationSpec& spec) {
  if (spec.fit.empty()) throw model::ConfigError("--fit", "", "at least one profile parameter to fit", "none");
  std::vector<std::string> sets = spec.sets;
  sets.push_back("workload.messages=" + std::to_string(spec.messages));
  studies::Scenario sc = studies::Scenario::load(spec.scenario, sets);
  model::Profile base = model::Profile::load(sc.profile_file);
  CalibrationProblem p{spec, sc, base, {}, {}, {}, {}, {}};
  for (const auto& name : spec.fit) {
    const model::Param& prm = base.param(name);
    if (prm.is_text() || prm.value <= 0 || prm.min <= 0)
      throw model::ConfigError(base.file(), "/parameters/" + name, "a positive numeric parameter with a positive range",
                               prm.is_text() ? "a word" : fmt::format("{} in [{}, {}]", prm.value, prm.min, prm.max));
    for (const model::Param& earlier : p.params)
      if (earlier.name == name)
        throw model::ConfigError("--fit", "", "each parameter named once", model::quoted_input(name) + " twice");
    p.params.push_back(prm);
  }
  for (const model::Param& prm : p.params) {
    // A --set of a fitted parameter (checked against its range by the load) starts the search
    // there and centres its prior: a hypothesis' own starting point.
    const auto set = sc.overrides.find(prm.name);
    p.centre.push_back(set != sc.overrides.end() && set->is_number() ? set->get<double>() : prm.value);
    p.sigma.push_back(std::log(spec.prior_factor));
    p.evidence.emplace_back();
  }
  if (!spec.evidence.empty()) apply_evidence(p, base);
  // Targets: every measured time above rounding noise (the four headline kinds, and a board's
  // task time) (an interrupt count is a check, not a target: a count moves in steps, not along a
  // gradient).
  for (const studies::Variant& v : sc.variants)
    for (const auto& [key, value] : studies::measured_for(v, sc.workload))
      if (value > 0 && key != kIrqsPerRequest) p.targets.push_back({v.name, key, value});
  // A parameter with direct evidence is one measured number more.
  const std::size_t n = p.targets.size() + evidenced(p), k = p.params.size();
  // Nothing measured is nothing to fit; fewer numbers than parameters leaves directions only the
  // priors decide, which a user asks for knowingly (--underdetermined).
  if (n == 0 || (n < k && !spec.underdetermined))
    throw model::ConfigError(
        spec.scenario, "/variants",
        fmt::format("measured values of this message size, at least as many as the {} fitted parameters "
                    "(degrees of freedom >= 0; with --underdetermined at least one)",
                    k),
        fmt::format("{} above zero", n));
  return p;
}

Calibration calibrate(const CalibrationProblem& problem, std::ostream& progress) {
  Fit fit(problem);
  std::vector<double> theta = fit.start();
  std::vector<double> r = fit.residuals({theta})[0];
  progress << fmt::format(
      "calibrate: {} parameters, {} measured targets, {} messages per evaluation; start cost {:.5f}\n", fit.k(),
      problem.targets.size(), problem.spec.messages, fit.cost(r, theta));
  pattern_search(fit, problem.spec.iterations, theta, r, progress);
  // --weighted: the posterior weighs each residual by its kind's variance; the fit weighed the
  // same way ends at the posterior's mode. The variances move with the fit, so refit until a
  // round leaves the parameters where they were (a few rounds at most).
  unsigned rounds = 0;
  bool settled = false;
  for (constexpr unsigned kMaxRounds = 5; problem.spec.weighted && r.size() > fit.k() && rounds < kMaxRounds;) {
    const std::map<std::string, double> var = residual_variance(problem, r);
    std::vector<double> w(r.size());
    for (std::size_t t = 0; t < r.size(); ++t) w[t] = 1.0 / var.at(problem.targets[t].key);
    fit.weigh(std::move(w));
    ++rounds;
    progress << fmt::format("  weighted round {}\n", rounds);
    const std::vector<double> before = theta;
    pattern_search(fit, problem.spec.iterations, theta, r, progress);
    if (theta == before) {
      settled = true;
      break;
    }
  }
  Calibration c{problem, {}, {}, r, posterior_covariance(fit, problem, theta, r), rounds, settled};
  for (double th : theta) c.fitted.push_back(std::exp(th));
  for (std::size_t q = 0; q < fit.k(); ++q) c.spread.push_back(std::sqrt(c.covariance[q][q]) / fit.sigma(q));
  return c;
}

std::string calibration_report(const Calibration& c) {
  const CalibrationProblem& p = c.problem;
  const std::size_t k = p.params.size(), n = p.targets.size();
  std::ostringstream rep;
  rep << fmt::format("# Calibration of {} against {}\n\n", p.base.name(), p.scenario.name);
  rep << fmt::format(
      "Fitted {} parameters to {} measured numbers ({}least squares on log(sim/measured), log-normal "
      "priors of one factor {} around the profile's values or a board's direct evidence, inside the ranges); {} "
      "degrees of freedom "
      "left. Each evaluation replays {} messages per variant.\n\n",
      k, n,
      c.weighted_rounds ? fmt::format("weighted by each kind's residual variance as the posterior weighs it, refitted "
                                      "{} time(s) {}: ",
                                      c.weighted_rounds,
                                      c.weights_settled ? "until the weights settled" : "and the weights still moving")
                        : "",
      p.spec.prior_factor, static_cast<long>(n + evidenced(p)) - static_cast<long>(k), p.spec.messages);
  rep << "| parameter | unit | prior | fitted | range | posterior / prior spread | one sigma, a factor | "
         "pinned down by the data? |\n";
  rep << "|---|---|---|---|---|---|---|---|\n";
  std::string evidence;
  for (std::size_t q = 0; q < k; ++q) {
    const model::Param& prm = p.params[q];
    const double v = c.fitted[q];
    const bool at_bound = v <= prm.min * 1.0001 || v >= prm.max * 0.9999;
    if (!p.evidence[q].empty())
      evidence +=
          fmt::format("- `{}`: prior {} (a factor {} either side)\n", prm.name, p.evidence[q], p.spec.evidence_factor);
    // The posterior's one standard deviation in log space, as the factor either side of the value.
    const double one_sigma = std::exp(c.spread[q] * p.sigma[q]);
    rep << fmt::format("| `{}` | {} | {:.4g} | {:.4g} | [{}, {}] | {:.2f} | x{:.3g} | {} |\n", prm.name, prm.unit,
                       p.centre[q], v, prm.min, prm.max, c.spread[q], one_sigma,
                       at_bound                                      ? "at a range bound"
                       : c.spread[q] > 0.7 && !p.evidence[q].empty() ? "by the board's evidence, not these data"
                       : c.spread[q] > 0.7                           ? "no: the prior decides"
                                                                     : "yes");
  }
  if (!evidence.empty()) rep << "\nDirect evidence from " << p.spec.evidence << ":\n\n" << evidence;
  // The posterior's weights: how far the model misses each kind of quantity here.
  if (n > k) {
    rep << "\nThe posterior weighs each residual by its kind's scatter (one standard deviation, RSS over the "
           "kind's share of the degrees of freedom, pulled towards the pooled variance by one degree of freedom):";
    const char* sep = " ";
    for (const auto& [key, var] : residual_variance(p, c.residuals)) {
      rep << fmt::format("{}{} {:.1f} %", sep, key, (std::exp(std::sqrt(var)) - 1) * 100);
      sep = ", ";
    }
    rep << ".\n";
  }
  if (k > 1) {
    // What the data pin down only in combination: near -1, two parameters trade against each
    // other (a sum is measured, not its parts); uncertainty runs draw them together.
    std::vector<std::string> names;
    for (const model::Param& prm : p.params) names.push_back(prm.name);
    rep << "\nPosterior correlation of log(value) (written with --write-profile; uncertainty runs draw the "
           "parameters jointly):\n\n"
        << model::correlation_markdown(names, posterior_correlation(c));
  }
  rep << "\n| variant | quantity | measured | simulated | error |\n|---|---|---|---|---|\n";
  for (std::size_t t = 0; t < n; ++t) {
    const CalibrationTarget& tg = p.targets[t];
    const double sim = tg.measured * std::exp(c.residuals[t]);
    rep << fmt::format("| {} | {} | {:.4g} | {:.4g} | {:+.1f}% |\n", tg.variant, tg.key, tg.measured, sim,
                       (std::exp(c.residuals[t]) - 1) * 100);
  }
  return rep.str();
}

std::vector<std::vector<double>> posterior_correlation(const Calibration& c) {
  const std::size_t k = c.covariance.size();
  for (const auto& row : c.covariance)
    for (double x : row)
      if (!std::isfinite(x)) throw std::runtime_error("calibrate: the posterior covariance is not finite");
  Matrix r(k, std::vector<double>(k));
  // Finite correlations shrunk towards 0 reach the identity, which is positive definite.
  for (double shrink = 1.0;; shrink *= 0.99) {
    for (std::size_t i = 0; i < k; ++i)
      for (std::size_t j = 0; j < k; ++j) {
        const double x = c.covariance[i][j] / std::sqrt(c.covariance[i][i] * c.covariance[j][j]);
        r[i][j] = i == j ? 1.0 : std::round(std::clamp(x * shrink, -1.0, 1.0) * 1e4) / 1e4;
      }
    if (!model::cholesky(r).empty()) return r;
  }
}

json calibrated_profile(const Calibration& c, const std::string& date) {
  const CalibrationProblem& p = c.problem;
  json doc = model::read_json_file(p.scenario.profile_file, "profile file", model::InputKind::regular);
  std::vector<std::string> names;  // every fitted parameter
  std::vector<std::size_t> joint;  // those with an interval of some width: the new group
  for (std::size_t q = 0; q < p.params.size(); ++q) {
    json& pj = doc["parameters"][p.params[q].name];
    const double value = std::round(c.fitted[q] * 1e4) / 1e4;
    pj["value"] = value;
    // The posterior's 90 % interval around the fitted value, inside the range: narrowed on both
    // sides where one side would cross it, so that its geometric middle (where uncertainty runs
    // centre their draws) stays the fitted value.
    const double f = std::min({std::exp(model::kNormalP95 * std::sqrt(c.covariance[q][q])), value / p.params[q].min,
                               p.params[q].max / value});
    const double lo = std::max(std::round(value / f * 1e4) / 1e4, p.params[q].min),
                 hi = std::min(std::round(value * f * 1e4) / 1e4, p.params[q].max);
    pj["interval"] = {lo, hi};
    names.push_back(p.params[q].name);
    if (hi > lo && lo > 0) joint.push_back(q);  // a value at a range bound is held: no draw to correlate
    std::string prior = p.params[q].provenance;
    if (prior.rfind("calibrated:", 0) == 0) {
      const auto pos = prior.find("prior ");
      prior = pos == std::string::npos ? prior : prior.substr(pos + 6);
    }
    if (!p.evidence[q].empty()) prior = "measured on a board: " + p.evidence[q] + " (" + p.spec.evidence + ")";
    pj["provenance"] = fmt::format("calibrated: qcesim calibrate {}{} on {} ({}); prior {}", p.scenario.name,
                                   c.weighted_rounds ? " --weighted" : "", date, "docs/calibration.md", prior);
  }
  // The fitted parameters leave the groups they were in (their old fit's), which keep the rest.
  json groups = json::array();
  for (const model::Correlation& g : p.base.correlations()) {
    std::vector<std::size_t> keep;
    std::vector<std::string> members;
    for (std::size_t i = 0; i < g.names.size(); ++i)
      if (std::find(names.begin(), names.end(), g.names[i]) == names.end()) {
        keep.push_back(i);
        members.push_back(g.names[i]);
      }
    if (keep.size() > 1)
      groups.push_back({{"parameters", members},
                        {"correlation", model::principal_submatrix(g.matrix, keep)},
                        {"provenance", g.provenance}});
  }
  if (joint.size() > 1) {
    std::vector<std::string> members(joint.size());
    for (std::size_t a = 0; a < joint.size(); ++a) members[a] = names[joint[a]];
    groups.push_back({{"parameters", members},
                      {"correlation", model::principal_submatrix(posterior_correlation(c), joint)},
                      {"provenance", fmt::format("calibrated: the posterior of qcesim calibrate {} --fit {}{} on {} "
                                                 "(docs/calibration.md)",
                                                 p.scenario.name, fmt::join(names, ","),
                                                 c.weighted_rounds ? " --weighted" : "", date)}});
  }
  if (groups.empty())
    doc.erase("correlations");
  else
    doc["correlations"] = groups;
  return doc;
}

}  // namespace qcesim::studies
