// A sweep's results as users read them: one row per (point, variant) in point order, the CSV,
// and the JSON document (rows without the per-function profiles, the analysis, completeness).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "studies/sweep.h"

namespace qcesim::studies {

// Rows of the finished runs (`done`, by sweep_job_id): point, values, variant, metrics, result.
std::vector<nlohmann::json> sweep_rows(const studies::Sweep& s, const std::map<std::string, nlohmann::json>& done);
std::string sweep_csv(const studies::Sweep& s, const std::vector<nlohmann::json>& rows);
// The analysis the sweep asks for (break-even, LogCA), {} when none.
nlohmann::json sweep_analysis(const studies::Sweep& s, const std::vector<nlohmann::json>& rows);
nlohmann::json sweep_document(const studies::Sweep& s, const std::vector<nlohmann::json>& rows,
                              const nlohmann::json& analysis);

}  // namespace qcesim::studies
