#include "ingest/board_archive.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <type_traits>

#include "ingest/text_lines.h"
#include "model/config_error.h"

namespace qcesim::ingest {

using model::ConfigError;

namespace {

constexpr std::size_t kMaxArchiveBytes = 64u << 20;

// A member's lines, each checked for length; `where(n)` names line n.
struct Text {
  const std::string& file;
  std::string member;
  std::vector<std::string> lines;

  Text(const std::string& f, std::string m, const std::string& bytes)
      : file(f), member(std::move(m)), lines(split_lines(bytes, f, member)) {}
  std::string where(std::size_t i) const { return fmt::format("{} line {}", member, i + 1); }
  [[noreturn]] void fail(std::size_t i, const std::string& expected, const std::string& found) const {
    throw ConfigError(file, where(i), expected, found);
  }
};

template <class T>
T whole(const Text& t, std::size_t i, const std::string& s, const std::string& what, T hi) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(whole<std::uint64_t>(t, i, s, what, static_cast<std::uint64_t>(hi)));
  } else {
    T v{};
    const int base = s.rfind("0x", 0) == 0 ? 16 : 10;
    const char* b = s.data() + (base == 16 ? 2 : 0);
    const char* e = s.data() + s.size();
    auto [p, ec] = std::from_chars(b, e, v, base);
    if (ec != std::errc() || p != e || b == e || v > hi)
      t.fail(i, fmt::format("{}: a whole number up to {}", what, hi), model::quoted_input(s));
    return v;
  }
}

// Printable ASCII: no control character, nothing from 0x7f up (so every output is valid UTF-8
// and no terminal sequence gets through).
bool ascii_printable(const std::string& s) {
  return std::none_of(s.begin(), s.end(),
                      [](char c) { return model::is_control(c) || static_cast<unsigned char>(c) >= 0x7f; });
}

// A name that reaches an output (a driver's name, a governor): non-empty, at most 128.
std::string printable_word(const Text& t, std::size_t i, const std::string& s, const std::string& what) {
  if (s.empty() || s.size() > 128 || !ascii_printable(s))
    t.fail(i, what + ": printable ASCII of at most 128 characters", model::quoted_input(s));
  return s;
}

// Free text that reaches an output (the manifest's notes, uname, the command line).
std::string ascii_text(const Text& t, std::size_t i, const std::string& s, const std::string& what) {
  if (s.size() > 1024 || !ascii_printable(s))
    t.fail(i, what + ": printable ASCII of at most 1024 characters", model::quoted_input(s));
  return s;
}

const std::string* member(const TarMembers& m, const std::string& name) {
  const auto it = m.find(name);
  return it == m.end() ? nullptr : &it->second;
}

void parse_manifest(const TarMembers& m, const std::string& file, BoardArchive& a) {
  const std::string* bytes = member(m, "manifest.txt");
  if (!bytes)
    throw ConfigError(file, "manifest.txt", "the kit's manifest (a qcesim-measure archive)", "no such member");
  const Text t(file, "manifest.txt", *bytes);
  const std::string want = fmt::format("qcesim-board-archive {}", kArchiveFormat);
  if (t.lines.empty() || t.lines[0] != want)
    t.fail(0, "'" + want + "'", t.lines.empty() ? "an empty file" : model::quoted_input(t.lines[0]));
  for (std::size_t i = 1; i < t.lines.size(); ++i) {
    const std::vector<std::string> w = words(t.lines[i], 3);
    if (w.empty()) continue;
    const std::string r = ascii_text(t, i, rest(t.lines[i], 1), "the manifest's text");
    if (w[0] == "kit")
      a.kit = r;
    else if (w[0] == "started")
      a.started = r;
    else if (w[0] == "finished")
      a.finished = r;
    else if (w[0] == "options")
      a.options = r;
    else if (w[0] == "item") {
      if (w.size() < 3) t.fail(i, "item PATH STATUS [NOTE]", model::quoted_input(t.lines[i]));
      a.items.push_back({printable_word(t, i, w[1], "an item"), printable_word(t, i, w[2], "a status"),
                         ascii_text(t, i, rest(t.lines[i], 3), "an item's note")});
    }
  }
}

void parse_cpuinfo(const Text& t, BoardArchive& a) {
  CpuId cur;
  bool in_cpu = false;
  for (std::size_t i = 0; i < t.lines.size(); ++i) {
    const std::string& l = t.lines[i];
    const std::size_t colon = l.find(':');
    if (colon == std::string::npos) continue;
    std::string key = l.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    const std::string v = rest(l.substr(colon + 1), 0);
    if (key == "processor") {
      if (in_cpu) a.cpus.push_back(cur);
      cur = {};
      in_cpu = true;
      if (a.cpus.size() >= 1024) t.fail(i, "at most 1024 processors", "more");
    } else if (key == "CPU implementer") {
      cur.implementer = whole<unsigned>(t, i, v, "CPU implementer", 0xff);
    } else if (key == "CPU part") {
      cur.part = whole<unsigned>(t, i, v, "CPU part", 0xfff);
    }
  }
  if (in_cpu) a.cpus.push_back(cur);
}

void parse_crypto(const Text& t, BoardArchive& a) {
  CryptoDriver d;
  const auto flush = [&] {
    if (!d.driver.empty()) a.drivers.push_back(d);
    d = {};
  };
  for (std::size_t i = 0; i < t.lines.size(); ++i) {
    const std::string& l = t.lines[i];
    if (l.empty()) {
      flush();
      continue;
    }
    const std::size_t colon = l.find(':');
    if (colon == std::string::npos) continue;
    std::string key = l.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    const std::string v = rest(l.substr(colon + 1), 0);
    if (key == "name") d.name = printable_word(t, i, v, "an algorithm name");
    if (key == "driver") d.driver = printable_word(t, i, v, "a driver name");
    if (key == "module") d.module = printable_word(t, i, v, "a module name");
    if (key == "priority") d.priority = whole<long>(t, i, v, "priority", 1000000);
    if (a.drivers.size() > 10000) t.fail(i, "at most 10000 algorithms", "more");
  }
  flush();
}

void parse_config(const Text& t, BoardArchive& a) {
  a.has_config = true;
  for (std::size_t i = 0; i < t.lines.size(); ++i) {
    const std::string& l = t.lines[i];
    if (l.rfind("CONFIG_", 0) != 0) continue;
    const std::size_t eq = l.find('=');
    if (eq == std::string::npos) continue;
    a.config[l.substr(0, eq)] = l.substr(eq + 1);
  }
}

std::vector<unsigned> cpu_list(const Text& t, std::size_t i, const std::string& s) {
  std::vector<unsigned> cpus;
  for (const std::string& w : words(s, 1024)) {
    const std::size_t dash = w.find('-');
    const unsigned lo = whole<unsigned>(t, i, w.substr(0, dash), "a CPU number", 1023);
    const unsigned hi =
        dash == std::string::npos ? lo : whole<unsigned>(t, i, w.substr(dash + 1), "a CPU number", 1023);
    for (unsigned c = lo; c <= hi && cpus.size() < 1024; ++c) cpus.push_back(c);
  }
  return cpus;
}

void parse_cpufreq(const Text& t, BoardArchive& a) {
  for (std::size_t i = 0; i < t.lines.size(); ++i) {
    const std::vector<std::string> w = words(t.lines[i], 3);
    if (w.size() < 3) continue;
    const std::string name = printable_word(t, i, w[0], "a policy");
    auto it = std::find_if(a.cpufreq.begin(), a.cpufreq.end(), [&](const CpufreqPolicy& p) { return p.name == name; });
    if (it == a.cpufreq.end()) {
      if (a.cpufreq.size() >= 64) t.fail(i, "at most 64 cpufreq policies", "more");
      a.cpufreq.push_back({name, "", "", {}, 0, 0, {}});
      it = a.cpufreq.end() - 1;
    }
    const std::string v = rest(t.lines[i], 2);
    if (w[1] == "related_cpus") it->cpus = cpu_list(t, i, v);
    if (w[1] == "scaling_governor") it->governor = printable_word(t, i, w[2], "a governor");
    if (w[1] == "scaling_driver") it->driver = printable_word(t, i, w[2], "a cpufreq driver");
    if (w[1] == "cpuinfo_max_freq") it->max_khz = whole<double>(t, i, w[2], "kHz", 1e8);
    if (w[1] == "cpuinfo_min_freq") it->min_khz = whole<double>(t, i, w[2], "kHz", 1e8);
    if (w[1] == "scaling_available_frequencies") {
      it->available_khz.clear();
      for (const std::string& f : words(v, 65)) {
        if (it->available_khz.size() == 64) t.fail(i, "at most 64 available frequencies", "more");
        it->available_khz.push_back(whole<double>(t, i, f, "kHz", 1e8));
      }
      std::sort(it->available_khz.begin(), it->available_khz.end());
      it->available_khz.erase(std::unique(it->available_khz.begin(), it->available_khz.end()), it->available_khz.end());
    }
  }
}

void parse_cpuidle(const Text& t, BoardArchive& a) {
  std::map<std::pair<unsigned, std::string>, std::size_t> index;
  for (std::size_t i = 0; i < t.lines.size(); ++i) {
    const std::vector<std::string> w = words(t.lines[i], 4);
    if (w.size() >= 3 && w[0] == "cpuidle" && w[1] == "current_driver")
      a.cpuidle_driver = printable_word(t, i, w[2], "a cpuidle driver");
    if (w.size() < 4 || w[0].rfind("cpu", 0) != 0 || w[0] == "cpuidle") continue;
    const unsigned cpu = whole<unsigned>(t, i, w[0].substr(3), "a CPU number", 1023);
    const std::string state = printable_word(t, i, w[1], "an idle state");
    auto found = index.find({cpu, state});
    if (found == index.end()) {
      if (a.idle.size() >= 4096) t.fail(i, "at most 4096 idle states", "more");
      a.idle.push_back({cpu, state, "", 0, 0, false});
      found = index.emplace(std::make_pair(cpu, state), a.idle.size() - 1).first;
    }
    IdleState* it = &a.idle[found->second];
    if (w[2] == "name") it->name = printable_word(t, i, w[3], "an idle state's name");
    if (w[2] == "latency") it->latency_us = whole<double>(t, i, w[3], "us", 1e9);
    if (w[2] == "residency") it->residency_us = whole<double>(t, i, w[3], "us", 1e9);
    if (w[2] == "disable") it->disabled = whole<unsigned>(t, i, w[3], "0 or 1", 1) == 1;
  }
}

void parse_iommu(const Text& t, BoardArchive& a) {
  for (std::size_t i = 0; i < t.lines.size(); ++i) {
    const std::vector<std::string> w = words(t.lines[i], 5);
    if (w.size() != 4 || w[0] != "group") t.fail(i, "group N TYPE DEVICE", model::quoted_input(t.lines[i]));
    if (a.iommu.size() >= 4096) t.fail(i, "at most 4096 IOMMU devices", "more");
    a.iommu.push_back({whole<unsigned>(t, i, w[1], "a group number", 1000000),
                       printable_word(t, i, w[2], "a domain type"), printable_word(t, i, w[3], "a device")});
  }
}

// /sys/module/qcrypto/parameters as "name value" lines; only aes_sw_max_len is read (a uint
// module parameter): the others, whatever their values, are listed by name.
void parse_qce_parameters(const Text& t, BoardArchive& a) {
  for (std::size_t i = 0; i < t.lines.size(); ++i) {
    const std::vector<std::string> w = words(t.lines[i], 3);
    if (w.empty()) continue;
    if (a.qce_parameters.size() >= 64) t.fail(i, "at most 64 module parameters", "more");
    const std::string name = printable_word(t, i, w[0], "a module parameter's name");
    if (name == "aes_sw_max_len") {
      if (w.size() != 2) t.fail(i, "aes_sw_max_len VALUE", model::quoted_input(t.lines[i]));
      a.aes_sw_max_len = whole<std::uint64_t>(t, i, w[1], "aes_sw_max_len", 0xffffffffull);
    }
    a.qce_parameters.push_back(name);
  }
}

// A list of kernel function names, one per line with an optional "[module]" after it (the kit's
// system/kallsyms-crypto; ftrace's set_ftrace_filter as ftrace/functions prints it). A
// compiler's clone suffix is taken off (".constprop.0", ".isra.0", ".part.0", ".cold"): the
// function is the same.
std::set<std::string> parse_function_names(const Text& t, std::size_t most) {
  std::set<std::string> names;
  std::size_t lines = 0;  // the names' lines: blank ones do not count
  for (std::size_t i = 0; i < t.lines.size(); ++i) {
    const std::vector<std::string> w = words(t.lines[i], 3);
    if (w.empty()) continue;
    if (++lines > most) t.fail(i, fmt::format("at most {} function names", most), "more");
    const std::string name = printable_word(t, i, w[0], "a kernel function's name");
    if (name[0] != '.') names.insert(kernel_function_base(name));
  }
  return names;
}

// The "cpu" line of /proc/stat: user nice system idle iowait irq softirq ..., in clock ticks.
std::vector<std::uint64_t> stat_ticks(const Text& t, std::size_t i, const std::string& s) {
  const std::vector<std::string> w = words(s, 16);
  if (w.size() < 8 || w[0] != "cpu") t.fail(i, "the cpu line of /proc/stat", model::quoted_input(s));
  std::vector<std::uint64_t> v;
  for (std::size_t k = 1; k < w.size(); ++k) v.push_back(whole<std::uint64_t>(t, i, w[k], "clock ticks", 1ull << 60));
  return v;
}

BenchRun parse_run(const Text& t) {
  BenchRun r;
  r.member = t.member;
  bool header = false;
  std::vector<std::uint64_t> before, after;
  std::size_t before_line = 0;
  double clk_tck = 0, wall_ns = -1, utime_us = -1, stime_us = -1;
  for (std::size_t i = 0; i < t.lines.size(); ++i) {
    const std::vector<std::string> w = words(t.lines[i], 4);
    if (w.empty()) continue;
    const std::string& k = w[0];
    if (k == "qcesim-afalg") {
      if (w.size() != 2 || w[1] != "1") t.fail(i, "qcesim-afalg 1", model::quoted_input(t.lines[i]));
      header = true;
      continue;
    }
    if (k == "check" && w.size() >= 2) r.check = printable_word(t, i, w[1], "a check result");
    if (w.size() < 2) continue;
    const std::string& v = w[1];
    if (k == "type") r.type = printable_word(t, i, v, "a type");
    if (k == "alg") r.alg = printable_word(t, i, v, "an algorithm");
    if (k == "driver") r.driver = printable_word(t, i, v, "a driver name");
    if (k == "status") r.status = printable_word(t, i, v, "a status");
    if (k == "send") {
      if (v != "whole" && v != "more") t.fail(i, "send whole or send more", model::quoted_input(t.lines[i]));
      r.send = v;
    }
    if (k == "bytes") r.bytes = whole<std::uint64_t>(t, i, v, "bytes", 1u << 20);
    if (k == "messages") r.messages = whole<std::uint64_t>(t, i, v, "messages", 100000000000ull);
    if (k == "requested") r.requested = whole<std::uint64_t>(t, i, v, "messages", 100000000000ull);
    if (k == "key_bytes") r.key_bytes = whole<std::uint64_t>(t, i, v, "key bytes", 64);
    if (k == "wall_ns") wall_ns = whole<double>(t, i, v, "nanoseconds", 1e16);
    if (k == "utime_us") utime_us = whole<double>(t, i, v, "microseconds", 1e13);
    if (k == "stime_us") stime_us = whole<double>(t, i, v, "microseconds", 1e13);
    if (k == "clk_tck") clk_tck = whole<double>(t, i, v, "ticks per second", 100000);
    // sched_getcpu's answer: a CPU number, or -1 where it has none.
    auto cpu_number = [&] { return v == "-1" ? -1 : static_cast<int>(whole<unsigned>(t, i, v, "a CPU number", 1023)); };
    if (k == "cpu_start") r.cpu = cpu_number();
    if (k == "cpu_end") r.cpu_end = cpu_number();
    if (k == "stat_before") before = stat_ticks(t, i, rest(t.lines[i], 1)), before_line = i;
    if (k == "stat_after") after = stat_ticks(t, i, rest(t.lines[i], 1));
    if (k == "cpuidle") {
      // cpuidle CPU STATE ENTRIES US NAME
      const std::vector<std::string> c = words(t.lines[i], 7);
      if (c.size() != 6) t.fail(i, "cpuidle CPU STATE ENTRIES MICROSECONDS NAME", model::quoted_input(t.lines[i]));
      if (r.idle.size() >= 1024) t.fail(i, "at most 1024 cpuidle rows", "more");
      r.idle.push_back(
          {whole<unsigned>(t, i, c[1], "a CPU number", 1023), whole<unsigned>(t, i, c[2], "an idle state number", 63),
           whole<std::uint64_t>(t, i, c[3], "idle state entries", 1ull << 60),
           whole<double>(t, i, c[4], "microseconds", 1e16), printable_word(t, i, c[5], "an idle state name")});
      // afalg-bench prints only the states entered during the loop.
      if (r.idle.back().entries == 0) t.fail(i, "idle state entries: at least 1", model::quoted_input(c[3]));
    }
    if (k == "irq" && w.size() >= 3) {
      if (r.irqs.size() >= 512) t.fail(i, "at most 512 interrupt rows", "more");
      r.irqs.push_back({printable_word(t, i, w[1], "an interrupt label"),
                        rest(t.lines[i], 3).empty() ? "" : printable_word(t, i, rest(t.lines[i], 3), "a name"),
                        whole<std::uint64_t>(t, i, w[2], "an interrupt count", 1ull << 60)});
    }
    // irq_cpu LABEL CPU COUNT, after its row's irq line: where most of that row's interrupts went.
    if (k == "irq_cpu") {
      const std::vector<std::string> c = words(t.lines[i], 5);
      if (c.size() != 4) t.fail(i, "irq_cpu LABEL CPU COUNT", model::quoted_input(t.lines[i]));
      if (r.irqs.empty() || r.irqs.back().label != c[1])
        t.fail(i, "irq_cpu right after the irq line of its label", model::quoted_input(t.lines[i]));
      IrqDelta& d = r.irqs.back();
      const int cpu = static_cast<int>(whole<unsigned>(t, i, c[2], "a CPU number", 1023));
      const std::uint64_t n = whole<std::uint64_t>(t, i, c[3], "an interrupt count", 1ull << 60);
      // More than the row's own count cannot be where its interrupts went: not said.
      if (n <= d.count) d.cpu = cpu, d.cpu_count = n;
    }
  }
  if (!header) t.fail(0, "an afalg-bench report ('qcesim-afalg 1')", "none");
  if (r.type != "hash" && r.type != "skcipher") t.fail(0, "type hash or skcipher", model::quoted_input(r.type));
  if (r.type != "hash" && r.send != "whole") t.fail(0, "send more only for a hash", "type " + r.type);
  if (r.driver.empty() || r.bytes == 0 || r.messages == 0 || wall_ns <= 0 || utime_us < 0 || stime_us < 0 ||
      clk_tck <= 0)
    t.fail(0, "driver, bytes, messages, wall_ns, utime_us, stime_us and clk_tck", "some missing or zero");
  if (before.size() != after.size() || before.size() < 7)
    t.fail(before_line, "stat_before and stat_after with the same columns", "other");
  for (std::size_t k = 0; k < before.size(); ++k)
    if (after[k] < before[k]) t.fail(before_line, "stat_after at or above stat_before", "a counter that went back");
  r.wall_s = wall_ns / 1e9;
  r.task_cpu_s = (utime_us + stime_us) / 1e6;
  // /proc/stat's columns, system-wide, as the seed measurement: irq (6th) and softirq (7th), and
  // the busy time of every core, user + nice + system + irq + softirq, which is what the seed's
  // CPU number and the model's cpu_s are (the kworker's and the interrupts' time with the
  // caller's; the process's own utime + stime has neither).
  const auto ticks = [&](std::size_t k) { return static_cast<double>(after[k] - before[k]); };
  r.hardirq_s = ticks(5) / clk_tck;
  r.softirq_s = ticks(6) / clk_tck;
  r.cpu_s = (ticks(0) + ticks(1) + ticks(2) + ticks(5) + ticks(6)) / clk_tck;
  return r;
}

// tcrypt's async hash speed lines; a result that the kernel log put on its own line (pr_cont
// after another CPU's message) is joined to its test line.
void add_tcrypt_row(const Text& t, std::size_t i, const TcryptRow& row, BoardArchive& a) {
  if (a.tcrypt.size() >= 4096) t.fail(i, "at most 4096 tcrypt rows", "more");
  // A second run of the same test (busybox loads tcrypt twice) adds nothing: the first counts.
  const bool seen = std::any_of(a.tcrypt.begin(), a.tcrypt.end(), [&](const TcryptRow& o) {
    return o.driver == row.driver && o.direction == row.direction && o.key_bits == row.key_bits &&
           o.block_bytes == row.block_bytes && o.update_bytes == row.update_bytes;
  });
  if (row.ops_per_s > 0 && !seen) a.tcrypt.push_back(row);
}

void parse_tcrypt(const Text& t, const std::string& driver, BoardArchive& a) {
  std::string direction;
  const auto joined_with_result = [&](std::size_t& i, const char* result) {
    std::string l = t.lines[i];
    if (l.find(result) == std::string::npos && i + 1 < t.lines.size() &&
        t.lines[i + 1].find(result) != std::string::npos && t.lines[i + 1].find("test ") == std::string::npos) {
      std::string next = t.lines[++i];
      if (!next.empty() && next[0] == '[') next.erase(0, std::min(next.size(), next.find(']') + 1));  // timestamp
      l += " " + next;
    }
    return l;
  };
  bool ours = true;  // the rows under a header naming this driver ("testing speed of async X (DRIVER)")
  for (std::size_t i = 0; i < t.lines.size(); ++i) {
    std::string l = t.lines[i];
    if (l.find("testing speed of") != std::string::npos) {
      direction = l.find("decryption") != std::string::npos   ? "decryption"
                  : l.find("encryption") != std::string::npos ? "encryption"
                                                              : "";
      ours = l.find("(" + driver + ")") != std::string::npos;
    }
    if (!ours) continue;
    const std::size_t test = l.find("test ");
    if (test == std::string::npos || l.find("byte blocks") == std::string::npos) continue;
    if (l.find("bit key") != std::string::npos) {
      // "test N (K bit key, B byte blocks): X operations in S seconds (Y bytes)"
      l = joined_with_result(i, "operations in");
      std::string s;
      for (char c : l.substr(l.find("test "))) s += (c == '(' || c == ')' || c == ',' || c == ':') ? ' ' : c;
      const std::vector<std::string> w = words(s, 20);
      if (w.size() < 13 || w[3] != "bit" || w[6] != "byte" || w[9] != "operations" || w[10] != "in") continue;
      TcryptRow row;
      row.driver = driver;
      row.direction = direction.empty() ? "encryption" : direction;
      row.key_bits = whole<std::uint64_t>(t, i, w[2], "key bits", 512);
      row.block_bytes = whole<std::uint64_t>(t, i, w[5], "bytes", 1u << 30);
      row.updates = 1;
      const double ops = whole<double>(t, i, w[8], "operations", 1e12);
      const double secs = whole<double>(t, i, w[11], "seconds", 3600);
      row.ops_per_s = secs > 0 ? ops / secs : 0;
      add_tcrypt_row(t, i, row, a);
      continue;
    }
    l = joined_with_result(i, "opers/sec");
    // "test N ( B byte blocks, P bytes per update, U updates): X opers/sec, Y bytes/sec"
    std::string s;
    for (char c : l.substr(test)) s += (c == '(' || c == ')' || c == ',' || c == ':') ? ' ' : c;
    const std::vector<std::string> w = words(s, 20);
    if (w.size() < 15 || w[3] != "byte" || w[6] != "bytes" || w[10] != "updates" || w[12] != "opers/sec") continue;
    TcryptRow row;
    row.driver = driver;
    row.block_bytes = whole<std::uint64_t>(t, i, w[2], "bytes", 1u << 30);
    row.update_bytes = whole<std::uint64_t>(t, i, w[5], "bytes", 1u << 30);
    row.updates = whole<std::uint64_t>(t, i, w[9], "updates", 1u << 30);
    row.ops_per_s = whole<double>(t, i, w[11], "operations per second", 1e12);
    add_tcrypt_row(t, i, row, a);
  }
}

}  // namespace

const ManifestItem* BoardArchive::item(const std::string& path) const {
  for (const ManifestItem& i : items)
    if (i.path == path) return &i;
  return nullptr;
}

BoardArchive parse_board_archive(const TarMembers& m, const std::string& file) {
  BoardArchive a;
  a.file = file;
  parse_manifest(m, file, a);
  const auto text = [&](const std::string& name) -> const std::string* { return member(m, name); };
  if (const std::string* s = text("system/uname")) {
    const Text t(file, "system/uname", *s);
    if (!t.lines.empty()) {
      a.uname = ascii_text(t, 0, t.lines[0], "uname");
      const std::vector<std::string> w = words(a.uname, 3);
      if (w.size() >= 2) a.release = printable_word(t, 0, w[1], "a kernel release");
    }
  }
  if (const std::string* s = text("system/cmdline")) {
    const Text t(file, "system/cmdline", *s);
    if (!t.lines.empty()) a.cmdline = ascii_text(t, 0, t.lines[0], "the kernel command line");
  }
  if (const std::string* s = text("system/cpuinfo")) parse_cpuinfo(Text(file, "system/cpuinfo", *s), a);
  if (const std::string* s = text("system/crypto")) parse_crypto(Text(file, "system/crypto", *s), a);
  if (const std::string* s = text("system/config")) parse_config(Text(file, "system/config", *s), a);
  if (const std::string* s = text("system/cpufreq")) parse_cpufreq(Text(file, "system/cpufreq", *s), a);
  if (const std::string* s = text("system/cpuidle")) parse_cpuidle(Text(file, "system/cpuidle", *s), a);
  if (const std::string* s = text("system/iommu")) parse_iommu(Text(file, "system/iommu", *s), a);
  if (const std::string* s = text("system/qce-parameters"))
    parse_qce_parameters(Text(file, "system/qce-parameters", *s), a);
  if (const std::string* s = text("system/kallsyms-crypto")) {
    a.kernel_symbols = parse_function_names(Text(file, "system/kallsyms-crypto", *s), 4000);
    a.has_kernel_symbols = true;
  }
  if (const std::string* s = text("ftrace/functions"))
    a.ftrace_traceable = parse_function_names(Text(file, "ftrace/functions", *s), 2000);
  if (const std::string* s = text("system/fdt")) {
    a.fdt = read_fdt(*s, file, "system/fdt");
    a.has_fdt = true;
  }
  for (const auto& [name, bytes] : m) {
    if (name.rfind("runs/", 0) == 0 && name.find('/', 5) == std::string::npos && name.size() > 4 &&
        name.compare(name.size() - 4, 4, ".err") != 0) {
      // A run the kit says failed (or did not finish) is listed, not read as a measurement.
      const ManifestItem* it = a.item(name);
      if (!it || (it->status != "collected" && it->status != "partial")) {
        a.failed_runs.push_back({name, it ? it->status : "not in the manifest", it ? it->note : ""});
        continue;
      }
      BenchRun r = parse_run(Text(file, name, bytes));
      if (r.status == "failed") {
        a.failed_runs.push_back({name, "failed", "afalg-bench reported a failed request"});
        continue;
      }
      a.runs.push_back(std::move(r));
    }
    if (name.rfind("tcrypt/", 0) == 0 && name.size() > 7 && name.find('/', 7) == std::string::npos) {
      const Text t(file, name, bytes);
      parse_tcrypt(t, printable_word(t, 0, name.substr(7), "a driver name"), a);
    }
  }
  if (const std::string* s = text("ftrace/graph")) a.ftrace = parse_function_graph(*s, file, "ftrace/graph");
  if (const std::string* s = text("ftrace/profile")) a.ftrace = parse_function_profile(*s, file, "ftrace/profile");
  return a;
}

BoardArchive parse_board_archive(std::string bytes, const std::string& file) {
  if (is_gzip(bytes)) bytes = gunzip(bytes, file, kMaxArchiveBytes);
  return parse_board_archive(read_tar(bytes, file), file);
}

BoardArchive read_board_archive(const std::string& file) {
  return parse_board_archive(model::read_input_file(file, "board archive", model::InputKind::regular, kMaxArchiveBytes),
                             file);
}

}  // namespace qcesim::ingest
