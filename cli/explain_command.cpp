#include "cli/explain_command.h"

#include <algorithm>
#include <ostream>
#include <spdlog/fmt/fmt.h>

#include "cli/run_command.h"
#include "model/config_error.h"
#include "studies/explain.h"
#include "studies/replay.h"
#include "studies/scenario.h"
#include "model/trace.h"

namespace qcesim::cli {

int run_explain(const ExplainOptions& opt, std::ostream& out, std::ostream& err) {
  if (opt.request < 0) throw model::ConfigError("--request", "", "a request number >= 0", std::to_string(opt.request));
  studies::Scenario full = studies::Scenario::load(opt.scenario, opt.sets);
  if (static_cast<std::uint64_t>(opt.request) >= full.workload.messages)
    throw model::ConfigError("--request", "",
                             fmt::format("a request below workload.messages ({})", full.workload.messages),
                             std::to_string(opt.request));
  std::vector<std::string> sets = opt.sets;
  sets.push_back(fmt::format("workload.messages={}", studies::messages_to_explain(full.workload, opt.request)));
  const studies::Scenario sc = studies::Scenario::load(opt.scenario, sets);
  const studies::Variant* v = nullptr;
  if (!opt.variant.empty()) {
    v = &sc.variant(opt.variant);
  } else {
    for (const auto& c : sc.variants)
      if (!v && c.engine == studies::VariantEngine::qce) v = &c;
    if (!v) v = &sc.variants.front();
    std::string others;
    for (const auto& c : sc.variants)
      if (&c != v) others += (others.empty() ? "" : ", ") + c.name;
    if (!others.empty()) err << "qcesim explain: " << v->name << " (others: --variant " << others << ")\n";
  }
  model::Tracer tracer(opt.request, opt.request + 2);
  const studies::VariantResult r = studies::run_variant(sc, *v, opt.timing_only, studies::spare_core_per_run(1, 1));
  out << studies::narrate(tracer, opt.request, sc, *v, r);
  return 0;
}

}  // namespace qcesim::cli
