// JSON renderer: {"verdict", "findings", "facts"} as documented for --json (written by output_json, which
// redacts secrets).
#include "report/report.h"

namespace dd::report {

nlohmann::json render_json(const Report& r) {
  nlohmann::json j;
  j["verdict"] = verdict_name(r.verdict());
  j["findings"] = r.findings;
  j["facts"] = r.facts;
  if (!r.notes.empty()) j["notes"] = r.notes;
  if (!r.measurements.is_null()) j["measurements"] = r.measurements;
  return j;
}

}  // namespace dd::report
