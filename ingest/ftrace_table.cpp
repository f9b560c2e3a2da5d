#include "ingest/ftrace_table.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <utility>

#include "ingest/text_lines.h"
#include "model/config_error.h"

namespace qcesim::ingest {

using model::ConfigError;

namespace {

constexpr std::size_t kMaxFunctions = 20000;
constexpr std::size_t kMaxDepth = 256;

bool function_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

// A kernel symbol: letters, digits, '_' and '.' (GCC's .isra.0/.constprop.0 suffixes), at most 128.
bool valid_function(const std::string& s) {
  return !s.empty() && s.size() <= 128 && std::all_of(s.begin(), s.end(), function_char);
}

bool parse_double(const std::string& s, double& out) {
  const char* b = s.data();
  const char* e = b + s.size();
  auto [p, ec] = std::from_chars(b, e, out);
  return ec == std::errc() && p == e && out >= 0 && out < 1e12;
}

struct Accumulator {
  std::map<std::string, FunctionStat> by_name;
  std::map<std::string, std::map<unsigned, std::uint64_t>> by_cpu;
  const std::string& file;
  const std::string& member;

  FunctionStat& at(const std::string& name, std::size_t line) {
    auto it = by_name.find(name);
    if (it != by_name.end()) return it->second;
    if (by_name.size() >= kMaxFunctions)
      throw ConfigError(file, fmt::format("{} line {}", member, line),
                        fmt::format("at most {} functions", kMaxFunctions), "more");
    FunctionStat& f = by_name[name];
    f.function = name;
    return f;
  }
  std::vector<FunctionStat> list() const {
    std::vector<FunctionStat> v;
    for (const auto& [n, f] : by_name) {
      v.push_back(f);
      const auto it = by_cpu.find(n);
      if (it == by_cpu.end()) continue;
      std::uint64_t most = 0;
      for (const auto& [cpu, calls] : it->second)
        if (calls > most) most = calls, v.back().cpu = static_cast<int>(cpu);
    }
    return v;
  }
};

std::string trim(const std::string& s) {
  const std::size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

}  // namespace

// function_graph lines: "CPU) [marker] DURATION us |  name [module]() {", "...|  name();" (a leaf
// with its duration) and "CPU) DURATION us |  }" (a close). Interrupt and context-switch
// markers and comments are skipped; the open calls are a stack per CPU.
FtraceTable parse_function_graph(const std::string& text, const std::string& file, const std::string& member) {
  Accumulator acc{{}, {}, file, member};
  struct Open {
    std::string name;
    double children = 0;
  };
  std::map<unsigned, std::vector<Open>> stacks;
  const std::vector<std::string> lines = split_lines(text, file, member);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const std::size_t ln = i + 1;
    const auto where = [&] { return fmt::format("{} line {}", member, ln); };
    if (l.empty() || l[0] == '#') continue;
    const std::size_t paren = l.find(')');
    const std::size_t bar = l.find('|');
    if (paren == std::string::npos || bar == std::string::npos || paren > bar) continue;  // markers, ---- lines
    unsigned cpu = 0;
    const std::string cpu_text = trim(l.substr(0, paren));
    if (std::from_chars(cpu_text.data(), cpu_text.data() + cpu_text.size(), cpu).ec != std::errc() || cpu > 4095)
      continue;
    // The duration column: optional marker (+ ! # * @ $), a number, "us".
    std::string dur = trim(l.substr(paren + 1, bar - paren - 1));
    if (!dur.empty() && std::string("+!#*@$").find(dur[0]) != std::string::npos) dur = trim(dur.substr(1));
    double us = -1;
    if (!dur.empty()) {
      const std::size_t u = dur.find(" us");
      if (u == std::string::npos || !parse_double(dur.substr(0, u), us))
        throw ConfigError(file, where(), "a duration in us", model::quoted_input(dur));
    }
    std::string call = trim(l.substr(bar + 1));
    std::vector<Open>& st = stacks[cpu];
    if (call == "}" || call.rfind("} /*", 0) == 0) {
      if (st.empty() || us < 0) continue;  // the trace began inside this call
      Open o = st.back();
      st.pop_back();
      FunctionStat& f = acc.at(o.name, ln);
      ++acc.by_cpu[o.name][cpu];
      f.calls += 1;
      f.total_us += us;
      f.self_us += std::max(0.0, us - o.children);
      f.max_us = std::max(f.max_us, us);
      if (!st.empty()) st.back().children += us;
      continue;
    }
    const bool opens = call.size() >= 4 && call.compare(call.size() - 4, 4, "() {") == 0;
    const bool leaf = call.size() >= 3 && call.compare(call.size() - 3, 3, "();") == 0;
    if (!opens && !leaf) continue;  // "/* comment */", irq markers
    std::string name = call.substr(0, call.size() - (opens ? 4 : 3));
    const std::size_t module = name.find(" [");
    if (module != std::string::npos) name.erase(module);
    if (!valid_function(name)) throw ConfigError(file, where(), "a kernel function name", model::quoted_input(name));
    if (opens) {
      if (st.size() >= kMaxDepth)
        throw ConfigError(file, where(), fmt::format("calls nested at most {} deep", kMaxDepth), "deeper");
      st.push_back({name, 0});
    } else if (us >= 0) {
      FunctionStat& f = acc.at(name, ln);
      ++acc.by_cpu[name][cpu];
      f.calls += 1;
      f.total_us += us;
      f.self_us += us;
      f.max_us = std::max(f.max_us, us);
      if (!st.empty()) st.back().children += us;
    }
  }
  return {"graph", acc.list()};
}

// trace_stat/functionN: "  name   HITS   TIME us   AVG us   S^2 us" rows under a header; the
// kit concatenates every CPU's table.
FtraceTable parse_function_profile(const std::string& text, const std::string& file, const std::string& member) {
  Accumulator acc{{}, {}, file, member};
  const std::vector<std::string> lines = split_lines(text, file, member);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const std::vector<std::string> w = words(l, 16);
    if (w.size() < 4 || w[0] == "Function" || w[0].rfind("--", 0) == 0) continue;
    std::uint64_t hits = 0;
    double t = 0;
    if (std::from_chars(w[1].data(), w[1].data() + w[1].size(), hits).ec != std::errc() || w[3] != "us" ||
        !parse_double(w[2], t))
      throw ConfigError(file, fmt::format("{} line {}", member, i + 1), "Function Hit Time(us) Avg s^2 columns",
                        model::quoted_input(l));
    if (!valid_function(w[0]))
      throw ConfigError(file, fmt::format("{} line {}", member, i + 1), "a kernel function name",
                        model::quoted_input(w[0]));
    FunctionStat& f = acc.at(w[0], i + 1);
    f.calls += hits;
    f.total_us += t;
    f.self_us += t;
    if (hits) f.max_us = std::max(f.max_us, t / static_cast<double>(hits));
  }
  return {"profile", acc.list()};
}

std::string kernel_function_item(const std::string& function, const std::vector<std::string>& cost_items) {
  // The kernel's names where the cost item is named after the operation rather than the symbol.
  static const std::map<std::string, std::string> aliases = {
      {"iommu_dma_map_sg", "dma_map_sg"},
      {"iommu_dma_unmap_sg", "dma_unmap_sg"},
      {"__arm_lpae_map", "arm_lpae_map_pages"},
      {"__arm_lpae_unmap", "arm_lpae_unmap_pages"},
      {"arm_smmu_tlb_inv_range_s1", "arm_smmu_tlb_inv"},
      {"arm_smmu_tlb_inv_range_domain", "arm_smmu_tlb_inv"},
      {"arm_smmu_tlb_sync_context", "arm_smmu_tlb_sync"},
      {"bam_dma_terminate_all", "bam_terminate_all"},
      {"__kmalloc", "kmalloc"},
      {"kmalloc_trace", "kmalloc"},
      {"tasklet_action_common", "tasklet_action"},
      {"__tasklet_schedule", "tasklet_schedule"},
      {"queue_work_on", "queue_work"},
  };
  std::string name = kernel_function_base(function);  // foo.isra.0 is foo
  const auto a = aliases.find(name);
  if (a != aliases.end()) name = a->second;
  const std::string item = "cost." + name;
  return std::find(cost_items.begin(), cost_items.end(), item) != cost_items.end() ? item : "";
}

}  // namespace qcesim::ingest
