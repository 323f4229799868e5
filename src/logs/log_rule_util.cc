// Helpers shared by the cross-rank log rules: a logs-area finding, and "ranks disagree on X".
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "logs/log_rules.h"

namespace dd::logs {

using report::Finding;
using report::Severity;

Finding logs_finding(const char* id, Severity sev, std::string title, std::string fix) {
  Finding f;
  f.id = id;
  f.severity = sev;
  f.title = std::move(title);
  f.fix = std::move(fix);
  f.area = "logs";
  return f;
}

void add_disagreement(const LogsResult& r, std::vector<Finding>& out, const char* id, Severity sev,
                      const char* what, std::string (*value)(const ProcessFacts&), const char* fix) {
  std::map<std::string, std::vector<const ProcessFacts*>> groups;
  for (const auto& p : r.processes) {
    std::string v = value(p);
    if (!v.empty()) groups[v].push_back(&p);
  }
  if (groups.size() < 2) return;
  std::vector<std::pair<std::string, std::vector<const ProcessFacts*>>> g(groups.begin(), groups.end());
  std::sort(g.begin(), g.end(), [](auto& a, auto& b) { return a.second.size() < b.second.size(); });
  Finding f = logs_finding(id, sev, fmt::format("Ranks disagree on {}: {}", what, g.front().first), fix);
  for (const auto& [v, ps] : g) {
    std::string who;
    for (size_t i = 0; i < ps.size() && i < 8; ++i) who += (i ? ", " : "") + ps[i]->label();
    if (ps.size() > 8) who += fmt::format(", … ({} in all)", ps.size());
    f.evidence.push_back(fmt::format("{} = {}: {}", what, v, who));
  }
  if (g.front().second.size() == 1) f.rank = g.front().second[0]->rank;
  out.push_back(std::move(f));
}

}  // namespace dd::logs
