// The cross-rank rules over what the logs say, one concept per file: init (init_rules.cc), network and
// versions (log_rules.cc), collective counts (coll_rules.cc), collective hangs (hang_rules.cc), framework
// failures (framework_rules.cc), per-rank progress (rank_rules.cc), per-rank settings (identity_rules.cc).
// Each appends findings to `out`; cross_rank_findings (analyze.h) runs them in this order, except that a
// setting of one rank leads when no rule named a culprit from stronger evidence.
#pragma once
#include <string>
#include <vector>

#include "logs/analyze.h"

namespace dd::logs {

struct RankState;  // rank_state.h

void init_rules(const LogsResult& r, std::vector<report::Finding>& out);
void net_rules(const LogsResult& r, std::vector<report::Finding>& out);
void coll_rules(const LogsResult& r, std::vector<report::Finding>& out);
void framework_rules(const LogsResult& r, std::vector<report::Finding>& out);
void hang_rules(const LogsResult& r, std::vector<report::Finding>& out);  // hang_rules.cc: who caused a hang
void gpu_rules(const LogsResult& r, std::vector<report::Finding>& out);   // gpu_rules.cc: two ranks, one GPU
void rank_rules(const LogsResult& r, std::vector<report::Finding>& out);  // rank_rules.cc: who stopped first
// late_init_rule.cc: the rank that never started NCCL init while the others waited in it (rank_rules runs
// it).
void late_init_rule(const LogsResult& r, const std::vector<RankState>& st, std::vector<report::Finding>& out);
// identity_rules.cc: the rank with an NCCL setting or library of its own (logs.rank.env_differs).
void identity_rules(const LogsResult& r, std::vector<report::Finding>& out);

// What logs.hang.same_place says when the watchdog lines cannot tell the ranks apart (log_rules.cc lowers it
// to info when another rule told them apart by their settings).
inline constexpr const char* kSamePlaceCannotTell = "the log cannot tell which rank is different";

// Whether a finding names the rank that caused a failure from its own evidence (a hang's odd, late, ahead or
// missing rank, the rank that stopped first or fell behind): a stronger culprit than a setting that differs.
bool names_culprit(const report::Finding& f);

// A logs-area finding with empty evidence.
report::Finding logs_finding(const char* id, report::Severity sev, std::string title, std::string fix);

// Groups processes by value(p); when not all agree, appends one finding (minority groups listed first).
void add_disagreement(const LogsResult& r, std::vector<report::Finding>& out, const char* id,
                      report::Severity sev, const char* what, std::string (*value)(const ProcessFacts&),
                      const char* fix);

}  // namespace dd::logs
