// Which parameters drive which output: Morris elementary-effects screening over each varying
// parameter's 90 % interval (studies/uncertainty.h's parameters). Each parameter's interval is
// mapped to [0, 1] (logarithmically when it is positive), on a 4-level grid; a trajectory starts
// at a random grid point and moves one parameter at a time by 2/3 in a random order, so r
// trajectories cost r x (k + 1) runs per variant for k parameters. For each output and parameter:
// mu* = mean |elementary effect| (how much it matters), mu = mean signed effect (which way),
// sigma = spread of the effects (how much it interacts or is non-linear), all relative to the
// nominal run's output.
// Morris, "Factorial sampling plans for preliminary computational experiments", Technometrics
// 33(2), 1991; mu* as in Campolongo, Cariboni and Saltelli, 2007.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "studies/uncertainty.h"

namespace qcesim::studies {

struct SensitivitySpec {
  UncertaintySpec base;  // scenario, sets, variants, seed, jobs (samples unused)
  std::size_t trajectories = 10;
  std::size_t top = 5;  // parameters listed per output
};

struct Effect {
  std::string param;
  double mu_star = 0;  // mean |elementary effect|
  double mu = 0;       // mean signed effect: its sign says which way the output moves
  double sigma = 0;    // the effects' standard deviation
};

struct SensitivityResult {
  std::string scenario;
  std::string compare;  // with --compare: the variants are "NAME - compared", effects on the difference
  std::size_t params = 0, runs = 0;
  // [variant][quantity] -> effects, largest mu* first
  std::vector<std::pair<std::string, std::map<std::string, std::vector<Effect>>>> variants;
};

// The design: per trajectory a start level and direction per parameter and the order in which
// they move (k + 1 points each), reproducible from the seed; point(p) makes point p's --set list
// on demand (p = trajectory x (k + 1) + step), so 500 trajectories of 84 parameters take a few
// hundred kilobytes, not their 3.6 million texts.
class MorrisDesign {
 public:
  MorrisDesign(const std::vector<UncertainParam>& ps, std::size_t trajectories, std::uint64_t seed);
  std::size_t size() const { return m_start.size() * (m_ps.size() + 1); }
  std::vector<std::string> point(std::size_t p) const;
  // Point p for a variant: the parameters it draws (`own`: some of the design's, in the design's
  // order, as Design::drawn has them), each at the design's level over its own interval.
  std::vector<std::string> point(std::size_t p, const std::vector<UncertainParam>& own) const;

 private:
  std::vector<UncertainParam> m_ps;
  std::vector<std::vector<double>> m_start, m_step;
  std::vector<std::vector<std::size_t>> m_order;
};
// Every point of the design, as text (tests; small designs).
std::vector<std::vector<std::string>> morris_points(const std::vector<UncertainParam>& ps, std::size_t trajectories,
                                                    std::uint64_t seed);
SensitivityResult run_sensitivity(const SensitivitySpec& spec, std::ostream& progress);
std::string sensitivity_table(const SensitivityResult& r, std::size_t top);
nlohmann::json sensitivity_json(const SensitivityResult& r);

}  // namespace qcesim::studies
