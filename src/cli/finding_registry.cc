// all_finding_docs: each source's table, in one list.
#include "cli/finding_registry.h"

#include "cluster/join_finding_docs.h"
#include "comm/finding_docs.h"
#include "launch/failure_report.h"
#include "logs/analyze.h"
#include "nccl/info_line.h"
#include "rules/rule.h"

namespace dd::cli {

std::vector<report::FindingDoc> all_finding_docs() {
  std::vector<report::FindingDoc> docs = rules::all_rule_docs();
  for (const auto* table :
       {&cluster::join_finding_docs(), &comm::comm_finding_docs(), &launch::launch_finding_docs(),
        &logs::logs_finding_docs(), &nccl::info_line_docs()})
    docs.insert(docs.end(), table->begin(), table->end());
  return docs;
}

}  // namespace dd::cli
