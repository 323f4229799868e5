// The table of cross-rank log rules (log_rules.h) and cross_rank_findings, which runs them in table order.
// Adding a log finding: one row (or one more doc in a row) here; a new rule is one file with its row.
#include "logs/log_rules.h"

#include <algorithm>
#include <set>

namespace dd::logs {

using report::Finding;

const std::vector<LogRule>& log_rules() {
  static const std::vector<LogRule> table = {
      identity_log_rule(),  // first unless a stronger culprit is named (yields_to_culprit)
      init_log_rule(),      net_log_rule(), coll_log_rule(), hang_log_rule(),
      framework_log_rule(), gpu_log_rule(), rank_log_rule(), fr_log_rule(),
  };
  return table;
}

bool names_culprit(const Finding& f) {
  static const std::set<std::string, std::less<>> culprits = [] {
    std::set<std::string, std::less<>> s;
    for (const auto& row : log_rules()) s.insert(row.culprit_ids.begin(), row.culprit_ids.end());
    return s;
  }();
  return culprits.count(f.id) > 0;
}

std::vector<Finding> cross_rank_findings(const LogsResult& r) {
  std::vector<Finding> out;
  std::vector<bool> yields;  // per finding of out: its row yields to a culprit
  std::vector<const LogRule*> emitted;
  for (const auto& row : log_rules()) {
    const size_t before = out.size();
    row.fn(r, out);
    yields.resize(out.size(), row.yields_to_culprit);
    if (out.size() > before) emitted.push_back(&row);
  }
  for (const LogRule* row : emitted)
    if (row->with_others) row->with_others(out);
  bool culprit = false;
  for (size_t i = 0; i < out.size(); ++i) culprit = culprit || (!yields[i] && names_culprit(out[i]));
  if (!culprit) return out;
  std::vector<Finding> first, last;  // the culprit's findings, then the rows that yield to it
  for (size_t i = 0; i < out.size(); ++i) (yields[i] ? last : first).push_back(std::move(out[i]));
  for (auto& f : last) first.push_back(std::move(f));
  return first;
}

const std::vector<report::FindingDoc>& logs_finding_docs() {
  static const std::vector<report::FindingDoc> all = [] {
    std::vector<report::FindingDoc> v = logs_input_docs();
    for (const auto& row : log_rules()) v.insert(v.end(), row.docs.begin(), row.docs.end());
    return v;
  }();
  return all;
}

}  // namespace dd::logs
