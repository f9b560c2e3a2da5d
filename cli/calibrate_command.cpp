#include "cli/calibrate_command.h"

#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <spdlog/fmt/fmt.h>
#include <sstream>

#include "cli/output_file.h"
#include "cli/run_command.h"
#include "model/config_error.h"

namespace qcesim::cli {

using nlohmann::json;

namespace {

struct Target {
  std::string variant, key;
  double measured;  // scaled to the evaluation's messages
};

// Solves A x = b for a small symmetric positive definite A (Gaussian elimination, pivoting).
std::vector<double> solve(std::vector<std::vector<double>> a, std::vector<double> b) {
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

std::vector<std::vector<double>> inverse(const std::vector<std::vector<double>>& a) {
  const std::size_t n = a.size();
  std::vector<std::vector<double>> inv(n, std::vector<double>(n));
  for (std::size_t c = 0; c < n; ++c) {
    std::vector<double> e(n, 0.0);
    e[c] = 1;
    const auto col = solve(a, e);
    for (std::size_t r = 0; r < n; ++r) inv[r][c] = col[r];
  }
  return inv;
}

}  // namespace

int run_calibrate(const CalibrateOptions& opt, std::ostream& out, std::ostream& err) {
  if (opt.fit.empty()) throw model::ConfigError("--fit", "", "at least one profile parameter to fit", "none");
  std::vector<std::string> sets = opt.sets;
  sets.push_back("workload.messages=" + std::to_string(opt.messages));
  const model::Scenario sc = model::Scenario::load(opt.scenario, sets);
  const model::Profile base = model::Profile::load(sc.profile_file);
  std::vector<const model::Param*> params;
  for (const auto& name : opt.fit) {
    const model::Param& p = base.param(name);
    if (p.is_text() || p.value <= 0 || p.min <= 0)
      throw model::ConfigError(base.file(), "/parameters/" + name, "a positive numeric parameter with a positive range",
                               p.is_text() ? "a word" : fmt::format("{} in [{}, {}]", p.value, p.min, p.max));
    for (const model::Param* earlier : params)
      if (earlier->name == name) throw model::ConfigError("--fit", "", "each parameter named once", model::quoted_input(name) + " twice");
    params.push_back(&p);
  }
  const std::size_t k = params.size();
  if (!opt.report.empty()) check_output("--report", opt.report);
  if (!opt.write_profile.empty()) check_output("--write-profile", opt.write_profile);
  const double sigma = std::log(opt.prior_factor);

  // One evaluation: every variant with the given parameter values, each variant a process.
  auto evaluate = [&](const std::vector<std::vector<double>>& points) {
    std::vector<std::pair<std::size_t, std::size_t>> work;  // (point, variant)
    for (std::size_t pt = 0; pt < points.size(); ++pt)
      for (std::size_t v = 0; v < sc.variants.size(); ++v) work.emplace_back(pt, v);
    const auto raw = fork_each(
        work.size(), opt.jobs,
        [&](std::size_t i) {
          model::Variant var = sc.variants[work[i].second];
          for (std::size_t q = 0; q < k; ++q) var.overrides[params[q]->name] = points[work[i].first][q];
          model::Scenario s2 = sc;
          s2.variants[work[i].second] = var;
          return model::run_variant(s2, var, true).to_json();
        },
        [](std::size_t, const json&) {});
    std::vector<std::vector<model::VariantResult>> res(points.size(), std::vector<model::VariantResult>(sc.variants.size()));
    for (std::size_t i = 0; i < work.size(); ++i) {
      if (raw[i].contains("error")) throw std::runtime_error("evaluation failed: " + raw[i]["error"].get<std::string>());
      res[work[i].first][work[i].second] = model::VariantResult::from_json(raw[i]);
    }
    return res;
  };
  // Targets: every measured value of the four headline kinds that is above rounding noise.
  std::vector<Target> targets;
  const auto sim_value = [](const model::VariantResult& r, const std::string& key) {
    if (key == "wall_s") return r.wall_s;
    if (key == "cpu_s") return r.cpu_s;
    if (key == "hardirq_s") return r.hardirq_s;
    return r.softirq_s;
  };
  std::vector<double> theta(k);  // log values
  for (std::size_t q = 0; q < k; ++q) theta[q] = std::log(params[q]->value);
  auto point = [&](const std::vector<double>& th) {
    std::vector<double> p(k);
    for (std::size_t q = 0; q < k; ++q) p[q] = std::clamp(std::exp(th[q]), params[q]->min, params[q]->max);
    return p;
  };
  for (const model::Variant& v : sc.variants)
    for (const auto& [key, value] : model::measured_for(v, sc.workload))
      if (value > 0) targets.push_back({v.name, key, value});
  const std::size_t n = targets.size();
  // Nothing measured is nothing to fit; fewer numbers than parameters leaves directions only the
  // priors decide, which a user asks for knowingly (--underdetermined).
  if (n == 0 || (n < k && !opt.underdetermined))
    throw model::ConfigError(opt.scenario, "/variants",
                             fmt::format("measured values of this message size, at least as many as the {} fitted parameters "
                                         "(degrees of freedom >= 0; with --underdetermined at least one)",
                                         k),
                             fmt::format("{} above zero", n));
  auto initial = evaluate({point(theta)});
  auto residuals = [&](const std::vector<model::VariantResult>& rs) {
    std::vector<double> r(n);
    for (std::size_t t = 0; t < n; ++t) {
      std::size_t v = 0;
      while (sc.variants[v].name != targets[t].variant) ++v;
      r[t] = std::log(std::max(sim_value(rs[v], targets[t].key), 1e-12) / targets[t].measured);
    }
    return r;
  };
  auto cost = [&](const std::vector<double>& r, const std::vector<double>& th) {
    double c = 0;
    for (double x : r) c += x * x;
    for (std::size_t q = 0; q < k; ++q) c += std::pow((th[q] - std::log(params[q]->value)) / sigma, 2);
    return c;
  };
  std::vector<double> r = residuals(initial[0]);
  double c = cost(r, theta);
  err << fmt::format("calibrate: {} parameters, {} measured targets, {} messages per evaluation; start cost {:.5f}\n",
                     k, n, opt.messages, c);
  // Pattern search in log space: try every parameter up and down by a factor, all candidates
  // simulated at once, keep the best; shrink the factor when nothing improves. Interrupt
  // coalescing makes the model step-wise in some parameters, which defeats pure gradients.
  double step = std::log(2.0);
  for (unsigned it = 0; it < opt.iterations && step > std::log(1.02); ++it) {
    std::vector<std::vector<double>> cands;
    for (std::size_t q = 0; q < k; ++q)
      for (double dir : {-1.0, 1.0}) {
        auto th = theta;
        th[q] = std::clamp(th[q] + dir * step, std::log(params[q]->min), std::log(params[q]->max));
        if (th[q] != theta[q]) cands.push_back(th);
      }
    std::vector<std::vector<double>> pts;
    for (const auto& th : cands) pts.push_back(point(th));
    const auto rs = evaluate(pts);
    std::size_t best = cands.size();
    double best_c = c;
    std::vector<double> best_r;
    for (std::size_t i = 0; i < cands.size(); ++i) {
      const auto ri = residuals(rs[i]);
      const double ci = cost(ri, cands[i]);
      if (ci < best_c) {
        best_c = ci;
        best = i;
        best_r = ri;
      }
    }
    if (best == cands.size()) {
      step /= 2;
    } else {
      theta = cands[best];
      r = best_r;
      c = best_c;
    }
    err << fmt::format("  sweep {}: cost {:.5f}, step x{:.3f}\n", it + 1, c, std::exp(step));
    err.flush();
  }
  // The Jacobian at the optimum, for the posterior spread.
  const double lo_step = 0.15;
  std::vector<std::vector<double>> jac(n, std::vector<double>(k));
  {
    std::vector<std::vector<double>> pts;
    for (std::size_t q = 0; q < k; ++q) {
      auto th = theta;
      th[q] += lo_step;
      pts.push_back(point(th));
    }
    const auto rs = evaluate(pts);
    for (std::size_t q = 0; q < k; ++q) {
      const auto rq = residuals(rs[q]);
      for (std::size_t t = 0; t < n; ++t) jac[t][q] = (rq[t] - r[t]) / lo_step;
    }
  }

  // Posterior spread in log space: data that constrain a parameter shrink it below the prior's.
  std::vector<std::vector<double>> a(k, std::vector<double>(k, 0.0));
  for (std::size_t i = 0; i < k; ++i) {
    for (std::size_t j = 0; j < k; ++j)
      for (std::size_t t = 0; t < n; ++t) a[i][j] += jac[t][i] * jac[t][j];
    a[i][i] += 1.0 / (sigma * sigma);
  }
  const auto cov = inverse(a);

  std::ostringstream rep;
  rep << fmt::format("# Calibration of {} against {}\n\n", base.name(), sc.name);
  rep << fmt::format("Fitted {} parameters to {} measured numbers (least squares on log(sim/measured), log-normal "
                     "priors of one factor {} around the profile's values, inside the ranges); {} degrees of freedom "
                     "left. Each evaluation replays {} messages per variant.\n\n",
                     k, n, opt.prior_factor, static_cast<long>(n) - static_cast<long>(k), opt.messages);
  rep << "| parameter | unit | prior | fitted | range | posterior / prior spread | pinned down by the data? |\n";
  rep << "|---|---|---|---|---|---|---|\n";
  for (std::size_t q = 0; q < k; ++q) {
    const double shrink = std::sqrt(cov[q][q]) / sigma;
    const double v = std::exp(theta[q]);
    const bool at_bound = v <= params[q]->min * 1.0001 || v >= params[q]->max * 0.9999;
    rep << fmt::format("| `{}` | {} | {:.4g} | {:.4g} | [{}, {}] | {:.2f} | {} |\n", params[q]->name, params[q]->unit,
                       params[q]->value, v, params[q]->min, params[q]->max, shrink,
                       at_bound ? "at a range bound" : shrink > 0.7 ? "no: the prior decides" : "yes");
  }
  rep << "\n| variant | quantity | measured | simulated | error |\n|---|---|---|---|---|\n";
  for (std::size_t t = 0; t < n; ++t) {
    const double sim = targets[t].measured * std::exp(r[t]);
    rep << fmt::format("| {} | {} | {:.4g} | {:.4g} | {:+.1f}% |\n", targets[t].variant, targets[t].key,
                       targets[t].measured, sim, (std::exp(r[t]) - 1) * 100);
  }
  out << rep.str();

  if (!opt.report.empty()) write_output("--report", opt.report, rep.str());
  if (!opt.write_profile.empty()) {
    json doc = model::read_json_file(sc.profile_file, "profile file");
    char date[16];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    for (std::size_t q = 0; q < k; ++q) {
      json& pj = doc["parameters"][params[q]->name];
      const double v = std::exp(theta[q]);
      pj["value"] = std::round(v * 1e4) / 1e4;
      std::string prior = params[q]->provenance;
      if (prior.rfind("calibrated:", 0) == 0) {
        const auto pos = prior.find("prior ");
        prior = pos == std::string::npos ? prior : prior.substr(pos + 6);
      }
      pj["provenance"] = fmt::format("calibrated: qcesim calibrate {} on {} ({}); prior {}", sc.name, date,
                                     "docs/calibration.md", prior);
    }
    write_output("--write-profile", opt.write_profile, doc.dump(1) + "\n");
  }
  return 0;
}

}  // namespace qcesim::cli
