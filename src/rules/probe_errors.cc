// Rule: what the probes could not read becomes info findings, so the report says what was not checked.
#include "rules/node_rules.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

std::vector<Finding> check_probe_errors(const probe::NodeFacts& f, const CheckOptions&) {
  std::vector<Finding> out;
  for (const auto& e : f.probe_errors) out.push_back({"probe.error", Severity::info, "Not read: " + e, {e}});
  return out;
}

}  // namespace

NodeRule probe_errors_rule() {
  return {"probe.errors",
          check_probe_errors,
          {{"probe.error", "A probe could not read something",
            "A probe failed (permission, missing file, library absent); the rules that need its facts were "
            "skipped or "
            "ran on defaults. Run as a user with access (or root) for a complete report."}}};
}

}  // namespace dd::rules
