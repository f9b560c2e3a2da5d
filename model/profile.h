// A platform profile: every model parameter with its value, unit, allowed range, provenance
// (measured / derived / datasheet / estimate, and from what) and a line of documentation.
// Loaded from scenarios/<platform>.json; overrides from a scenario or the command line are
// checked against the same unit and range.
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/config_error.h"

namespace sc_core {
class sc_time;  // <systemc>: only the blocks that read durations need it, not a scenario parse
}  // namespace sc_core

namespace qcesim::model {

struct Param {
  std::string name;
  double value = 0;
  std::string text;  // for parameters whose value is a word (a core type)
  std::string unit;
  double min = 0, max = 0;  // the values the model accepts
  // The 90 % interval independent sources give (uncertainty runs sample it); without one the
  // parameter is held at its value (lo = hi = value).
  double lo = 0, hi = 0;
  bool has_interval = false;
  std::string provenance;  // "measured: ...", "derived: ...", "datasheet: ...", "counted: ...", "estimate: ..."
  // A cost item's share in a common uncertainty: the ratio parameter it is multiplied by (its
  // error and the other sharers' move together when that factor is sampled); "" none.
  std::string shared;
  std::string doc;
  // Where the value in force came from (the profile, a scenario's overrides, --set), for errors
  // that only a combination of parameters reveals.
  std::string origin_file, origin_path;
  bool restated = false;  // the value in force is a scenario's {value, interval, provenance}
  // A word (a core type, a governor) or a list of numbers written as text (an OPP table in GHz).
  bool is_text() const { return unit == "name" || unit == "GHz list"; }
  bool is_integer() const { return unit == "count" || unit == "bytes" || unit == "year"; }
};

// Parameters whose errors move together: a fit's posterior correlation of log(value) (calibrate
// writes it for the parameters it fitted, which the data pin down only in combination: the
// caller's time and the engine's finish both make up mainline's wall). Each parameter keeps its
// own 90 % interval; uncertainty runs draw the group jointly, a log-normal with these
// correlations, instead of each parameter on its own.
struct Correlation {
  std::vector<std::string> names;
  std::vector<std::vector<double>> matrix;  // in the order of `names`; unit diagonal
  std::string provenance;
};

class Profile {
 public:
  static Profile load(const std::string& file);

  const std::string& name() const { return m_name; }
  const std::string& file() const { return m_file; }
  bool has(const std::string& name) const { return m_params.count(name) != 0; }
  const Param& param(const std::string& name) const;
  const std::map<std::string, Param>& params() const { return m_params; }
  // The profile's correlated groups ("correlations"), less the parameters a scenario restated,
  // then the scenario's own groups (add_correlations).
  const std::vector<Correlation>& correlations() const { return m_correlations; }

  double num(const std::string& name) const;
  const std::string& text(const std::string& name) const;
  // A duration parameter (unit ns, us, ms or s) as simulated time.
  sc_core::sc_time time(const std::string& name) const;

  // Changes a value, checked against the parameter's kind and range. `origin` names where the
  // override came from (a file and JSON path, or "--set") for the error message.
  void set(const std::string& name, double value, const std::string& origin_file, const std::string& origin_path);
  void set_text(const std::string& name, const std::string& value, const std::string& origin_file,
                const std::string& origin_path);

  // A scenario restating a numeric parameter for its own setting: an object with `value`,
  // `provenance` and optionally `interval` (what the scenario knows of it; an interval lets
  // uncertainty runs sample it where a plain override pins it). The range stays the profile's.
  // A restated parameter leaves its correlated group: what the scenario says of it is its own.
  void restate(const std::string& name, const nlohmann::json& j, const std::string& origin_file,
               const std::string& origin_path);

  // A scenario's own correlated groups (`correlations`, shaped as a profile's) at `path` of
  // `file`: each member one that the same level restated with an interval, its overrides at
  // `restated_under` (a hypothesis' fit, restated with the correlations of its posterior). A
  // member an edit holds at a plain value there (`edited(origin path)`: a --set, an uncertainty
  // sample's value) is pinned and leaves its group.
  void add_correlations(const nlohmann::json& groups, const std::string& file, const std::string& path,
                        const std::string& restated_under, const std::function<bool(const std::string&)>& edited = {});

  static Profile parse(const nlohmann::json& j, const std::string& file);
  static double unit_to_seconds(const std::string& unit);  // 0 when not a time unit

  // The parameter table as Markdown: name, value, unit, range, provenance, meaning. `meaning`
  // gives the last column for parameters documented elsewhere (the cost items); "" uses the doc.
  std::string markdown(const std::function<std::string(const Param&)>& meaning = {}) const;

 private:
  // The parameter an override names, or an error at the override's origin.
  Param& overridden(const std::string& name, const std::string& origin_file, const std::string& origin_path);

  std::string m_name, m_file;
  std::map<std::string, Param> m_params;
  std::vector<Correlation> m_correlations;
};

// A name-valued parameter read through `parse` (which throws std::invalid_argument listing the
// choices); a name that is none of them is refused at the parameter's origin.
template <class F>
auto parse_named(const Param& p, const std::string& what, F&& parse) -> decltype(parse(p.text)) {
  try {
    return parse(p.text);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(p.origin_file, p.origin_path, what + ": " + e.what(), quoted_input(p.text));
  }
}

}  // namespace qcesim::model
