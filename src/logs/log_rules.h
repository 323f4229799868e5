// The cross-rank rules over what the logs say, one concept per file: init (init_rules.cc), network and
// versions (log_rules.cc), collective counts (coll_rules.cc), collective hangs (hang_rules.cc), framework
// failures (framework_rules.cc), per-rank progress (rank_rules.cc). Each appends findings to `out`;
// cross_rank_findings (analyze.h) runs them in this order.
#pragma once
#include <string>
#include <vector>

#include "logs/analyze.h"

namespace dd::logs {

void init_rules(const LogsResult& r, std::vector<report::Finding>& out);
void net_rules(const LogsResult& r, std::vector<report::Finding>& out);
void coll_rules(const LogsResult& r, std::vector<report::Finding>& out);
void framework_rules(const LogsResult& r, std::vector<report::Finding>& out);
void hang_rules(const LogsResult& r, std::vector<report::Finding>& out);  // hang_rules.cc: who caused a hang
void gpu_rules(const LogsResult& r, std::vector<report::Finding>& out);   // gpu_rules.cc: two ranks, one GPU
void rank_rules(const LogsResult& r, std::vector<report::Finding>& out);  // rank_rules.cc: who stopped first

// A logs-area finding with empty evidence.
report::Finding logs_finding(const char* id, report::Severity sev, std::string title, std::string fix);

// Groups processes by value(p); when not all agree, appends one finding (minority groups listed first).
void add_disagreement(const LogsResult& r, std::vector<report::Finding>& out, const char* id,
                      report::Severity sev, const char* what, std::string (*value)(const ProcessFacts&),
                      const char* fix);

}  // namespace dd::logs
