// The cross-rank rules over what the logs say, as rows of one table (log_rules(), log_rules.cc), like the
// node rules (rules/rule.h): each row is a function from the merged facts to findings and the docs of every
// id it emits. One concept per file: per-rank settings (identity_rules.cc), init (init_rules.cc), network and
// versions (net_rules.cc), collective counts (coll_rules.cc), collective hangs (hang_rules.cc), framework
// failures (framework_rules.cc), two ranks on one GPU (gpu_rules.cc), per-rank progress (rank_rules.cc),
// Flight Recorder dumps (fr/fr_rules.cc). cross_rank_findings (analyze.h) runs them in table order.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "logs/analyze.h"
#include "report/finding_doc.h"

namespace dd::logs {

struct RankState;  // rank_state.h

// Appends the rule's findings to `out`.
using LogRuleFn = void (*)(const LogsResult& r, std::vector<report::Finding>& out);

struct LogRule {
  const char* name;  // "hang"
  LogRuleFn fn;
  std::vector<report::FindingDoc> docs;  // every id fn can emit
  // The ids (of docs) that name the rank that caused a failure from its own evidence (a hang's odd, late,
  // ahead or missing rank, the rank that stopped first or fell behind): a stronger culprit than a setting
  // that differs (names_culprit).
  std::vector<std::string_view> culprit_ids = {};
  // A weaker culprit: the row's findings stand at its place in the table unless another row's finding names a
  // culprit; then they go last, behind the culprit's findings (the per-rank settings).
  bool yields_to_culprit = false;
  // Run over every row's findings when this row emitted one (the settings told the ranks apart: the hang
  // rule's "cannot tell" is lowered).
  void (*with_others)(std::vector<report::Finding>& all) = nullptr;
};

// Every cross-rank rule, in report order (log_rules.cc).
const std::vector<LogRule>& log_rules();

// The rows, one per file.
LogRule identity_log_rule();   // identity_rules.cc: the rank with an NCCL setting or library of its own
LogRule init_log_rule();       // init_rules.cc: init incomplete, partial or complete
LogRule net_log_rule();        // net_rules.cc: ranks that disagree on the network or versions
LogRule coll_log_rule();       // coll_rules.cc: collective counts that differ
LogRule hang_log_rule();       // hang_rules.cc: who caused a hang
LogRule framework_log_rule();  // framework_rules.cc: PyTorch's watchdog, torchrun's summary
LogRule gpu_log_rule();        // gpu_rules.cc: two ranks, one GPU
LogRule rank_log_rule();       // rank_rules.cc: who stopped first
LogRule fr_log_rule();         // fr/fr_rules.cc: Flight Recorder dumps among the inputs

// late_init_rule.cc: the rank that never started NCCL init while the others waited in it (rank_rules runs
// it), and the doc of its id.
void late_init_rule(const LogsResult& r, const std::vector<RankState>& st, std::vector<report::Finding>& out);
report::FindingDoc late_init_doc();

// What logs.hang.same_place says when the watchdog lines cannot tell the ranks apart (identity_rules.cc
// lowers it to info when the settings told them apart).
inline constexpr const char* kSamePlaceCannotTell = "the log cannot tell which rank is different";

// Docs of the ids logs_findings.cc emits itself: inputs, unexplained NCCL WARNs (logs_finding_docs.cc).
const std::vector<report::FindingDoc>& logs_input_docs();

// Whether a finding's id is one of a row's culprit_ids.
bool names_culprit(const report::Finding& f);

// A logs-area finding with empty evidence.
report::Finding logs_finding(const char* id, report::Severity sev, std::string title, std::string fix);

// Groups processes by value(p); when not all agree, appends one finding (minority groups listed first).
void add_disagreement(const LogsResult& r, std::vector<report::Finding>& out, const char* id,
                      report::Severity sev, const char* what, std::string (*value)(const ProcessFacts&),
                      const char* fix);

}  // namespace dd::logs
