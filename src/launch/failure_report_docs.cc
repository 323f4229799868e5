// Long forms of the launch.* finding ids (for `distdoctor explain`): the rows' docs (failure_report_rows.h),
// the convention's own, and the ids the nodes' join gives (launch_join.cc), which are no part of the report.
#include "launch/failure_report.h"
#include "launch/failure_report_rows.h"
#include "launch/launcher_convention.h"
#include "launch/report_parts.h"

namespace dd::launch {

namespace {

const std::vector<report::FindingDoc>& join_docs() {
  static const std::vector<report::FindingDoc> docs = {
      {"launch.join.failed", "This node could not meet the other nodes",
       "The node reached no agreement with the others before --join-timeout: the store on node rank 0 was "
       "not there or went away, or the other nodes never started. The evidence gives the store's last "
       "error."},
      {"launch.join.rank_taken", "Two nodes claimed the same node rank",
       "Every node of a by-hand launch needs its own --node-rank, 0 .. nnodes-1; a second claim is refused."},
      {"launch.join.nnodes_differ", "Nodes of one job were started with different --nnodes",
       "Node rank 0 publishes its --nnodes with the job settings and every node its own with its hello. A "
       "node whose count differs from node rank 0's stops at once instead of waiting for nodes that never "
       "come, and node rank 0 stops when such a node's hello arrives; each names the other. Start every node "
       "with the same --nnodes (the command node rank 0 printed)."},
      {"launch.join.command_differs", "Nodes of one job were started with different commands",
       "No node runs a command it read from the store: each runs the command given on its own command line, "
       "and publishes only its SHA-256 (node rank 0 with the job settings, every node with its hello). A "
       "node whose digest differs from node rank 0's stops before starting any worker, and node rank 0 stops "
       "when such a hello arrives; each names the other. A digest the store holds that no node sent (someone "
       "else wrote the key) stops the job the same way instead of running another command. Start every node "
       "with the same command after -- (the one node rank 0 printed)."},
  };
  return docs;
}

}  // namespace

const std::vector<report::FindingDoc>& launch_finding_docs() {
  static const std::vector<report::FindingDoc> all = [] {
    std::vector<report::FindingDoc> v;
    for (const auto& row : stop_cause_rows()) v.insert(v.end(), row.docs.begin(), row.docs.end());
    for (const LaunchPart* part : all_launch_parts()) v.insert(v.end(), part->docs.begin(), part->docs.end());
    v.insert(v.end(), join_docs().begin(), join_docs().end());
    for (const LauncherConvention* c : launcher_conventions())  // its report hooks' ids
      if (c->report.docs) v.insert(v.end(), c->report.docs().begin(), c->report.docs().end());
    return v;
  }();
  return all;
}

}  // namespace dd::launch
