#include "studies/result_fields.h"

#include <spdlog/fmt/fmt.h>

namespace qcesim::studies {

namespace {

#define QCESIM_RF_NONE(...)
#define QCESIM_RF_ROW(member, key, kind, flags, label, doc) ResultField{key, ResultKind::kind, flags, label, doc},

const char* unit_of(ResultKind k) {
  switch (k) {
    case ResultKind::seconds:
    case ResultKind::host_seconds:
      return "s";
    case ResultKind::micros:
      return "us";
    case ResultKind::count:
      break;
  }
  return "count";
}

// A table cell: the text with its pipes escaped.
std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

}  // namespace

const std::vector<ResultField>& result_fields() {
  static const std::vector<ResultField> rows = {
      QCESIM_RESULT_FIELDS(QCESIM_RF_ROW, QCESIM_RF_NONE, QCESIM_RF_NONE, QCESIM_RF_NONE)};
  return rows;
}

const std::vector<SweepMetric>& sweep_metrics_table() {
  static const std::vector<SweepMetric> rows = [] {
    std::vector<SweepMetric> v;
    const auto& fields = result_fields();
    std::size_t next = 0;  // the stored rows in table order
    const auto stored = [&](const char*) {
      const ResultField& f = fields[next++];
      if (f.flags & kMetric) v.push_back({f.key, f.label, f.doc, &f});
    };
    const auto derived = [&](const char* name, const char* base, Derive d, const char* label, const char* doc) {
      v.push_back({name, label, doc, nullptr, base, d});
    };
    const auto tz = [&](const char* name, const char* label, const char* doc) {
      v.push_back({std::string("tz.") + name, label, doc});
    };
#define QCESIM_RF_STORED(member, key, ...) stored(key);
#define QCESIM_RF_DERIVED(name, base, derive, label, doc) derived(#name, base, Derive::derive, label, doc);
#define QCESIM_RF_TZ(name, label, doc) tz(#name, label, doc);
    QCESIM_RESULT_FIELDS(QCESIM_RF_STORED, QCESIM_RF_DERIVED, QCESIM_RF_TZ, QCESIM_RF_NONE)
#undef QCESIM_RF_STORED
#undef QCESIM_RF_DERIVED
#undef QCESIM_RF_TZ
    return v;
  }();
  return rows;
}

const nlohmann::json* find_result_key(const nlohmann::json& j, const std::string& key) {
  const auto dot = key.find('.');
  const std::string head = key.substr(0, dot);
  if (!j.is_object() || !j.contains(head)) return nullptr;
  if (dot == std::string::npos) return &j[head];
  const nlohmann::json& inner = j[head];
  const std::string tail = key.substr(dot + 1);
  return inner.is_object() && inner.contains(tail) ? &inner[tail] : nullptr;
}

nlohmann::json& result_key_slot(nlohmann::json& j, const std::string& key) {
  const auto dot = key.find('.');
  return dot == std::string::npos ? j[key] : j[key.substr(0, dot)][key.substr(dot + 1)];
}

std::string result_fields_markdown() {
  std::string md = "| key | unit | meaning |\n|---|---|---|\n";
  const auto& fields = result_fields();
  std::size_t next = 0;
  const auto stored = [&](const char*) {
    const ResultField& f = fields[next++];
    md += fmt::format("| `{}` | {} | {} |\n", f.key, unit_of(f.kind), cell(f.doc));
  };
  const auto other = [&](const char* key, const char* doc) { md += fmt::format("| `{}` | | {} |\n", key, cell(doc)); };
#define QCESIM_RF_STORED(member, key, ...) stored(key);
#define QCESIM_RF_OTHER(key, doc) other(key, doc);
  QCESIM_RESULT_FIELDS(QCESIM_RF_STORED, QCESIM_RF_NONE, QCESIM_RF_NONE, QCESIM_RF_OTHER)
#undef QCESIM_RF_STORED
#undef QCESIM_RF_OTHER
  return md;
}

std::string sweep_metrics_markdown() {
  std::string md = "| metric | axis label | meaning |\n|---|---|---|\n";
  for (const SweepMetric& m : sweep_metrics_table())
    md += fmt::format("| `{}` | {} | {} |\n", m.name, cell(m.label), cell(m.doc));
  return md;
}

}  // namespace qcesim::studies
