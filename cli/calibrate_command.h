// `qcesim calibrate SCENARIO --fit P1,P2,...`: fits the named profile parameters to the measured
// values of the scenario's variants by least squares on log ratios, with log-normal priors
// centred on the profile's values, inside each parameter's range. Reports residuals, the fit's
// degrees of freedom and which parameters the data cannot pin down; optionally writes the
// calibrated profile and a Markdown report.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace qcesim::cli {

struct CalibrateOptions {
  std::string scenario;
  std::vector<std::string> fit;
  std::vector<std::string> sets;
  std::uint64_t messages = 200;  // per evaluation; measured values are scaled to it
  double prior_factor = 3.0;     // one prior standard deviation = a factor of 3
  unsigned iterations = 60;      // pattern-search sweeps at most
  unsigned jobs = 0;
  std::string write_profile;
  std::string report;
  bool underdetermined = false;  // allow fewer measured numbers than parameters (the priors decide the rest)
  bool weighted = false;         // fit with the posterior's weights (studies::CalibrationSpec::weighted)
  std::string evidence;          // a board's per-function table (qcesim ingest): priors for the items it times
  double evidence_factor = 1.5;
};

int run_calibrate(const CalibrateOptions& opt, std::ostream& out, std::ostream& err);

}  // namespace qcesim::cli
