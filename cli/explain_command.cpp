#include "cli/explain_command.h"

#include <algorithm>
#include <ostream>
#include <stdexcept>
#include <spdlog/fmt/fmt.h>

#include "cli/run_command.h"
#include "model/config_error.h"
#include "studies/explain.h"
#include "studies/processes.h"
#include "studies/replay.h"
#include "studies/scenario.h"
#include "model/trace.h"

namespace qcesim::cli {

namespace {

// The variant named, else the scenario's first QCE variant, else its first.
const studies::Variant& chosen_variant(const studies::Scenario& sc, const std::string& name) {
  if (!name.empty()) return sc.variant(name);
  for (const auto& c : sc.variants)
    if (c.engine == studies::VariantEngine::qce) return c;
  return sc.variants.front();
}

// The first request of the variant's steady state, from a probe replay (untraced, timing only)
// in a child process of its own: one elaboration per process.
std::int64_t probe_steady_request(const ExplainOptions& opt, const studies::Scenario& full, const std::string& variant,
                                  std::ostream& err) {
  const std::uint64_t probed = studies::messages_to_find_steady_state(full.workload);
  std::vector<std::string> sets = opt.sets;
  sets.push_back(fmt::format("workload.messages={}", probed));
  const studies::Scenario sc = studies::Scenario::load(opt.scenario, sets);
  const auto res = studies::fork_each(
      1, 1, [&](std::size_t) { return studies::run_variant(sc, sc.variant(variant), true, false).to_json(); },
      [](std::size_t, const nlohmann::json&) {});
  if (res.front().contains("error"))
    throw std::runtime_error("a run failed: " + res.front()["error"].get<std::string>());
  const studies::FastForwardInfo ff = studies::VariantResult::from_json(res.front()).fast_forward;
  const std::int64_t request =
      studies::steady_request(ff, full.workload.messages, studies::traced_batch(full.variant(variant)));
  err << "qcesim explain: " << studies::steady_request_note(ff, request, probed) << " (--request N for another)\n";
  return request;
}

}  // namespace

int run_explain(const ExplainOptions& opt, std::ostream& out, std::ostream& err) {
  if (opt.request < -1) throw model::ConfigError("--request", "", "a request number >= 0", std::to_string(opt.request));
  const studies::Scenario full = studies::Scenario::load(opt.scenario, opt.sets);
  if (opt.request >= 0 && static_cast<std::uint64_t>(opt.request) >= full.workload.messages)
    throw model::ConfigError("--request", "",
                             fmt::format("a request below workload.messages ({})", full.workload.messages),
                             std::to_string(opt.request));
  const std::string variant = chosen_variant(full, opt.variant).name;
  studies::check_variant(full, full.variant(variant));
  if (opt.variant.empty()) {
    std::string others;
    for (const auto& c : full.variants)
      if (c.name != variant) others += (others.empty() ? "" : ", ") + c.name;
    if (!others.empty()) err << "qcesim explain: " << variant << " (others: --variant " << others << ")\n";
  }
  const std::int64_t request = opt.request >= 0 ? opt.request : probe_steady_request(opt, full, variant, err);
  std::vector<std::string> sets = opt.sets;
  sets.push_back(fmt::format("workload.messages={}", studies::messages_to_explain(full.workload, request)));
  const studies::Scenario sc = studies::Scenario::load(opt.scenario, sets);
  const studies::Variant& v = sc.variant(variant);
  model::Tracer tracer(request, request + 2);
  const studies::VariantResult r = studies::run_variant(sc, v, opt.timing_only, studies::spare_core_per_run(1, 1));
  out << studies::narrate(tracer, request, sc, v, r);
  return 0;
}

}  // namespace qcesim::cli
