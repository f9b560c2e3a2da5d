#include "cpu/core_type.h"

#include <spdlog/fmt/fmt.h>

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
