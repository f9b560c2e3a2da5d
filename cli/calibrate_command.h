// `qcesim calibrate SCENARIO --fit P1,P2,...`: fits the named profile parameters to the measured
// values of the scenario's variants by least squares on log ratios, with log-normal priors
// centred on the profile's values, inside each parameter's range. Reports residuals, the fit's
// degrees of freedom and which parameters the data cannot pin down; optionally writes the
// calibrated profile and a Markdown report.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "studies/calibrate.h"

namespace qcesim::cli {

// The fit as the options give it (studies::CalibrationSpec: its defaults are the options'), and
// where its results go.
struct CalibrateOptions {
  studies::CalibrationSpec spec;
  std::string write_profile;
  std::string report;
};

int run_calibrate(const CalibrateOptions& opt, std::ostream& out, std::ostream& err);

}  // namespace qcesim::cli
