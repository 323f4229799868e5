// The rule table: pure functions from facts to findings, each with the finding ids it may emit and their
// docs.
#pragma once
#include <string>
#include <vector>

#include "probe/facts.h"
#include "report/finding.h"
#include "report/finding_doc.h"

namespace dd::rules {

// What the user asked for, beyond the facts (flags of `check`).
struct CheckOptions {
  int nproc_per_node = 0;           // processes the job will start on this node; 0 = not given
  int nnodes = 0;                   // nodes in the check (cluster runs set it); 0 or 1 = this node alone
  bool collective_pass = false;     // a collective pass follows: its workers initialise CUDA themselves
  bool collectives_passed = false;  // that pass ran and passed (its result outranks predictions)
};

using FindingDoc = report::FindingDoc;  // each rule's ids with their long form

using NodeRuleFn = std::vector<report::Finding> (*)(const probe::NodeFacts& facts, const CheckOptions& opt);

struct NodeRule {
  const char* name;  // "gpu.busy"
  NodeRuleFn fn;
  std::vector<FindingDoc> docs;  // every id fn can emit
};

// All single-node rules, in report order.
const std::vector<NodeRule>& node_rules();

// Runs every node rule; findings are tagged with the node's hostname.
std::vector<report::Finding> run_node_rules(const probe::NodeFacts& facts, const CheckOptions& opt);

// Docs of every finding id the rules emit (node and cluster); `explain` adds those of comm and logs.
std::vector<FindingDoc> all_rule_docs();
std::vector<FindingDoc> cluster_rule_docs();  // cluster_rule_table.cc

}  // namespace dd::rules
