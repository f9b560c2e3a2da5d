#include "cpu/core_type.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>
#include <exception>

#include "model/profile.h"

namespace qcesim::cpu {

namespace {

// "a,b,c" -> {"a", "b", "c"}; every name a valid parameter-name part (it becomes part of a key).
std::vector<std::string> split_cpus(const model::Param& prm) {
  std::vector<std::string> names;
  std::string cur;
  auto bad = [&](const std::string& why) {
    return model::ConfigError(prm.origin_file, prm.origin_path,
                              "core types by CPU number, comma separated (" + why + ")", model::quoted_input(prm.text));
  };
  for (std::size_t i = 0; i <= prm.text.size(); ++i) {
    if (i == prm.text.size() || prm.text[i] == ',') {
      if (cur.empty() || !model::valid_name(cur) || cur.find('.') != std::string::npos)
        throw bad("each a name of letters, digits, - and _");
      names.push_back(cur);
      cur.clear();
    } else {
      cur += prm.text[i];
    }
  }
  if (names.size() > 64) throw bad("at most 64 CPUs");
  return names;
}

// "0.048,0.2,0.5,0.716": at most 64 frequencies in GHz, ascending, within [freq_min, freq_max].
std::vector<double> parse_opps(const model::Param& prm, double freq_min, double freq_max) {
  auto bad = [&](const std::string& why) {
    return model::ConfigError(prm.origin_file, prm.origin_path,
                              "frequencies in GHz, comma separated, ascending (" + why + ")",
                              model::quoted_input(prm.text));
  };
  std::vector<double> opps;
  std::size_t at = 0;
  while (at <= prm.text.size()) {
    const std::size_t comma = std::min(prm.text.find(',', at), prm.text.size());
    const std::string item = prm.text.substr(at, comma - at);
    double f = 0;
    std::size_t used = 0;
    try {
      f = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || !std::isfinite(f)) throw bad("each a number");
    if (f < freq_min * (1 - 1e-9) || f > freq_max * (1 + 1e-9))
      throw bad(fmt::format("each within the core's {} to {} GHz", freq_min, freq_max));
    if (!opps.empty() && f <= opps.back()) throw bad("each above the one before");
    opps.push_back(f);
    if (opps.size() > 64) throw bad("at most 64");
    at = comma + 1;
  }
  return opps;
}

unsigned cpu_index(const model::Profile& p, const std::string& key, std::size_t n) {
  const model::Param& prm = p.param(key);
  if (prm.value < 0 || prm.value >= static_cast<double>(n))
    throw model::ConfigError(prm.origin_file, prm.origin_path, fmt::format("a CPU of cpu.cpus (0..{})", n - 1),
                             fmt::format("{}", prm.value));
  return static_cast<unsigned>(prm.value);
}

}  // namespace

std::vector<CoreType> cpus_from_profile(const model::Profile& p) {
  std::vector<CoreType> cpus;
  const model::Param& list = p.param("cpu.cpus");
  for (const std::string& name : split_cpus(list)) {
    CoreType t;
    t.name = name;
    const std::string k = "cpu." + name + ".";
    for (const char* field : {"freq", "freq_min", "kernel_ipc", "copy_bandwidth"})
      if (!p.has(k + field))
        throw model::ConfigError(list.origin_file, list.origin_path,
                                 "core types the profile describes (cpu.<type>.freq, .freq_min, .kernel_ipc and "
                                 ".copy_bandwidth)",
                                 fmt::format("{}, with no {}{} in {}", model::quoted_input(name), k, field, p.file()));
    t.freq_max = p.num(k + "freq");
    t.freq_min = std::min(p.num(k + "freq_min"), t.freq_max);
    t.kernel_ipc = p.num(k + "kernel_ipc");
    t.copy_bandwidth = p.num(k + "copy_bandwidth");
    if (p.has(k + "opps")) t.opps = parse_opps(p.param(k + "opps"), t.freq_min, t.freq_max);
    cpus.push_back(t);
  }
  return cpus;
}

unsigned task_cpu_from_profile(const model::Profile& p) {
  return cpu_index(p, "cpu.task_cpu", cpus_from_profile(p).size());
}

unsigned irq_cpu_from_profile(const model::Profile& p) {
  return cpu_index(p, "cpu.irq_cpu", cpus_from_profile(p).size());
}

CoreType task_core_type(const model::Profile& p) { return cpus_from_profile(p).at(task_cpu_from_profile(p)); }

}  // namespace qcesim::cpu
