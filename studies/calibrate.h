// Calibration: fits named profile parameters to the measured values of a scenario's variants by
// least squares on log(simulated / measured), with log-normal priors centred on the profile's
// values, inside each parameter's range. A pattern search in log space (interrupt coalescing
// makes the model step-wise in some parameters, which defeats pure gradients), then the
// Jacobian at the optimum for each parameter's posterior spread: a spread near the prior's
// means the data do not pin the parameter down. `qcesim calibrate` (cli/calibrate_command.h).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "studies/scenario.h"

namespace qcesim::studies {

struct CalibrationSpec {
  std::string scenario;
  std::vector<std::string> fit;   // profile parameters
  std::vector<std::string> sets;  // --set overrides of the scenario
  std::uint64_t messages = 200;   // per evaluation; measured values are scaled to it
  double prior_factor = 3.0;      // one prior standard deviation = a factor of 3
  unsigned iterations = 60;       // pattern-search sweeps at most
  unsigned jobs = 0;              // simulations at once (0: the usable cores)
  bool underdetermined = false;   // allow fewer measured numbers than parameters
  // Weigh each residual by its kind's variance in the fit too, as the posterior does, refitting
  // until the weights settle: the posterior's mode instead of the unweighted optimum.
  bool weighted = false;
  // Direct evidence: a board's per-function table (qcesim ingest's BOARD-functions.json). A
  // fitted cost item a traced kernel function maps onto gets its prior centred on the measured
  // per-call time, converted to the item's unit on the core it ran on, one prior standard
  // deviation = evidence_factor (the tracer's overhead and the item's scope are not the call's).
  std::string evidence;
  double evidence_factor = 1.5;
};

struct CalibrationTarget {
  std::string variant, key;  // key: wall_s, cpu_s, hardirq_s, softirq_s or a board's task_s
  double measured;           // scaled to the evaluation's messages
};

// A checked calibration problem: the scenario, the parameters with their priors, the targets.
struct CalibrationProblem {
  CalibrationSpec spec;
  studies::Scenario scenario;
  model::Profile base;
  std::vector<model::Param> params;  // as the profile has them: the priors' centres and ranges
  std::vector<CalibrationTarget> targets;
  // Per parameter: the prior's centre (the profile's value, or the evidence's) and its log
  // standard deviation, and where the centre came from ("" for the profile).
  std::vector<double> centre, sigma;
  std::vector<std::string> evidence;
};

struct Calibration {
  CalibrationProblem problem;
  std::vector<double> fitted;     // one value per parameter
  std::vector<double> spread;     // posterior / prior spread in log space, per parameter
  std::vector<double> residuals;  // log(simulated / measured), per target
  // The posterior covariance of log(value) (the fitted parameters in order): its diagonal gives
  // `spread`, its correlations what the data pin down only in combination.
  std::vector<std::vector<double>> covariance;
  unsigned weighted_rounds = 0;  // refits with the posterior's weights (spec.weighted), 0 without
  bool weights_settled = false;  // the last of them left the parameters where they were
};

// The residuals' variance in log space per kind of quantity (wall_s, cpu_s, hardirq_s, softirq_s,
// task_s): each kind's RSS over its share of the n - k degrees of freedom, pulled towards the
// pooled variance by one degree of freedom, floored at a 1 % residual (1 each with no degree of
// freedom left): the posterior's weights.
std::map<std::string, double> residual_variance(const CalibrationProblem& p, const std::vector<double>& r);

// The posterior's correlations, rounded to 4 decimals as a profile stores them (and still
// positive definite: pulled towards 0 until they are).
std::vector<std::vector<double>> posterior_correlation(const Calibration& c);

// Everything calibrate would refuse, checked without simulating (ConfigError: exit 2).
CalibrationProblem calibration_problem(const CalibrationSpec& spec);
// The fit; progress lines on `progress`.
Calibration calibrate(const CalibrationProblem& problem, std::ostream& progress);
// The Markdown report: parameters (prior, fitted, spread, pinned down or not) and residuals.
std::string calibration_report(const Calibration& c);
// The profile file with the fitted values and their provenance ("calibrated: ... on `date`"),
// each value's posterior 90 % interval, and (two or more fitted) the posterior's correlations as
// a correlated group, which takes the fitted parameters out of any group they were in.
nlohmann::json calibrated_profile(const Calibration& c, const std::string& date);

}  // namespace qcesim::studies
