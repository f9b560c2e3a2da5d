#include "cli/compare_table.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace qcesim::cli {

namespace {

struct Column {
  const char* name;
  double studies::VariantResult::*seconds;
};

constexpr std::array kMechanisms = {
#define QCESIM_MECHANISM_COLUMN(A, name, ...) Column{#name, &studies::VariantResult::mech_##name##_s},
    QCESIM_MECHANISMS(QCESIM_MECHANISM_COLUMN, _)
#undef QCESIM_MECHANISM_COLUMN
};

double per_request_us(double seconds, std::uint64_t requests) {
  return requests ? seconds * 1e6 / static_cast<double>(requests) : 0.0;
}

double per_request(std::uint64_t n, std::uint64_t requests) {
  return requests ? static_cast<double>(n) / static_cast<double>(requests) : 0.0;
}

std::string signed_cell(double v, std::size_t w) {
  if (std::fabs(v) < 0.05) return fmt::format("{:>{}}", "0", w);
  return fmt::format("{:>+{}.1f}", v, w);
}

}  // namespace

std::string format_compare(const std::vector<studies::VariantResult>& results, const std::string& base) {
  const auto b = std::find_if(results.begin(), results.end(), [&](const auto& r) { return r.name == base; });
  if (b == results.end()) return fmt::format("\n(no comparison: variant {} did not finish)\n", base);
  // The mechanisms any variant spends time in, in the table's order.
  std::vector<const Column*> cols;
  for (const Column& c : kMechanisms)
    if (std::any_of(results.begin(), results.end(), [&](const auto& r) { return r.*c.seconds > 0; }))
      cols.push_back(&c);
  std::size_t w = 20;
  for (const auto& r : results) w = std::max(w, r.name.size());
  std::string s = fmt::format(
      "\nper request, difference to {} [us]: wall, CPU, and the CPU difference by mechanism (run.md#compare); "
      "interrupts, BAM descriptors and lock pairs per request\n",
      base);
  s += fmt::format("{:<{}} | {:>8} {:>8} |", "variant", w, "wall", "CPU");
  for (const Column* c : cols)
    s += fmt::format(" {:>{}}", c->name, std::max<std::size_t>(7, std::string(c->name).size()));
  s += fmt::format(" | {:>5} {:>6} {:>5}\n", "irqs", "descs", "locks");
  const auto& r0 = *b;
  for (const auto& r : results) {
    s += fmt::format("{:<{}} | {} {} |", r.name, w,
                     signed_cell(per_request_us(r.wall_s, r.requests) - per_request_us(r0.wall_s, r0.requests), 8),
                     signed_cell(per_request_us(r.cpu_s, r.requests) - per_request_us(r0.cpu_s, r0.requests), 8));
    for (const Column* c : cols)
      s += " " + signed_cell(per_request_us(r.*c->seconds, r.requests) - per_request_us(r0.*c->seconds, r0.requests),
                             std::max<std::size_t>(7, std::string(c->name).size()));
    s += fmt::format(" | {:>5.2f} {:>6.2f} {:>5.2f}\n", per_request(r.irqs, r.requests),
                     per_request(r.bam_descriptors, r.requests), per_request(r.lock_pairs, r.requests));
  }
  return s;
}

}  // namespace qcesim::cli
