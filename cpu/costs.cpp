#include "cpu/costs.h"

#include <cstring>
#include <spdlog/fmt/fmt.h>

#include "model/profile.h"

namespace qcesim::cpu {

Charge cycles_charge(const char* fn, double cycles, double hz) {
  return {fn, hz > 0 ? sc_core::sc_time(cycles / hz, sc_core::SC_SEC) : sc_core::SC_ZERO_TIME, true};
}

std::string cost_profile_key(Cost c) { return std::string("cost.") + cost_item(c).field; }

const CostItem* cost_item_for_key(const std::string& key) {
  for (const CostItem& c : kCostItems)
    if (key == cost_profile_key(c.id)) return &c;
  return nullptr;
}

const CostItem* cost_item_for_label(const std::string& label) {
  for (const CostItem& c : kCostItems)
    if (label == c.label) return &c;
  return nullptr;
}

std::string cost_param_doc(const std::string& param) {
  const CostItem* c = cost_item_for_key(param);
  return c ? fmt::format("`{}`: {}.", c->label, c->doc) : "";
}

namespace {

std::string item_names() {
  std::string s;
  for (const CostItem& c : kCostItems) s += (s.empty() ? "" : ", ") + std::string(c.field);
  return s;
}

}  // namespace

Costs costs_from_profile(const model::Profile& p) {
  for (const auto& [name, prm] : p.params()) {
    const bool cost = name.rfind("cost.", 0) == 0, lines = name.rfind("lines.", 0) == 0;
    if (!cost && !lines) continue;
    const std::string field = name.substr(cost ? 5 : 6);
    bool known = false;
    for (const CostItem& c : kCostItems) known = known || field == c.field;
    if (!known)
      throw model::ConfigError(p.file(), "/parameters/" + name, "a cost item of cpu/costs.h (" + item_names() + ")",
                               model::quoted_input(name));
    if (lines && prm.unit != "lines")
      throw model::ConfigError(prm.origin_file, "/parameters/" + name + "/unit",
                               "lines (cache lines per call, an average)", model::quoted_input(prm.unit));
  }
  Costs k;
  k.cpus = cpus_from_profile(p);
  k.task_cpu = task_cpu_from_profile(p);
  for (const CostItem& c : kCostItems) {
    const std::string key = cost_profile_key(c.id);
    if (!p.has(key))
      throw model::ConfigError(p.file(), "/parameters/" + key,
                               fmt::format("the cost item {} (charged as {}; cpu/costs.h) with its cost", key, c.label),
                               "nothing");
    const model::Param& prm = p.param(key);
    // A share in a common factor (the profile checked it names a ratio parameter).
    const double shared = prm.shared.empty() ? 1.0 : p.num(prm.shared);
    CostDef& d = k[c.id];
    if (const std::string lines = std::string("lines.") + c.field; p.has(lines)) d.lines = p.num(lines);
    if (prm.unit == "instructions") {
      d.work = true;
      d.instructions = prm.value * shared;
    } else if (prm.unit == "cycles") {
      d.work = true;  // stretches with the clock
      d.cycles = prm.value * shared;
    } else if (model::Profile::unit_to_seconds(prm.unit) > 0) {
      d.wait = p.time(key) * shared;
    } else {
      throw model::ConfigError(
          prm.origin_file, "/parameters/" + key + "/unit",
          "instructions (CPU work, run at the core's IPC and clock), cycles (serialising events, at "
          "the core's clock) or a time unit (a wait)",
          model::quoted_input(prm.unit));
    }
  }
  // Lines moved between cores cost only where a profile counts them and times a transfer.
  if (p.has("cpu.line_transfer")) k.line_transfer = p.time("cpu.line_transfer");
  k.cores_differ = k.task_cpu != irq_cpu_from_profile(p);
  k.gic_latency = p.time("gic.latency");
  k.sync_quantum = p.time("cpu.sync_quantum");
  k.power = cpu_power_from_profile(p);
  k.iommu = iommu_config_from_profile(p);
  k.cost_cv = p.num("cpu.cost_cv");
  k.seed = static_cast<std::uint64_t>(p.num("sim.seed"));
  return k;
}

CpuPower core_power(const Costs& k, const CoreType& t) {
  CpuPower p = k.power;
  p.freq_max = t.freq_max;
  p.freq_min = t.freq_min;
  p.opps = t.opps;
  return p;
}

ItemTimes item_times(const Costs& k, const CoreType& t) {
  ItemTimes it;
  it.time.resize(kNumCosts);
  it.scales.resize(kNumCosts);
  it.moved.resize(kNumCosts);
  for (const CostItem& c : kCostItems) {
    const auto i = static_cast<std::size_t>(c.id);
    it.time[i] = k.on(c.id, t);
    it.scales[i] = k[c.id].work;
    it.moved[i] = k.moved(c.id);
  }
  return it;
}

}  // namespace qcesim::cpu
