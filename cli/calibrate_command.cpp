#include "cli/calibrate_command.h"

#include <ctime>
#include <ostream>

#include "cli/output_file.h"
#include "studies/calibrate.h"

namespace qcesim::cli {

namespace {

std::string today() {
  char date[16];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  return date;
}

}  // namespace

int run_calibrate(const CalibrateOptions& opt, std::ostream& out, std::ostream& err) {
  const studies::CalibrationProblem problem = studies::calibration_problem(opt.spec);
  if (!opt.report.empty()) check_output("--report", opt.report);
  if (!opt.write_profile.empty()) check_output("--write-profile", opt.write_profile);
  const studies::Calibration fit = studies::calibrate(problem, err);
  const std::string report = studies::calibration_report(fit);
  out << report;
  if (!opt.report.empty()) write_output("--report", opt.report, report);
  if (!opt.write_profile.empty())
    write_output("--write-profile", opt.write_profile,
                 model::json_output(studies::calibrated_profile(fit, today()), 1) + "\n");
  return 0;
}

}  // namespace qcesim::cli
