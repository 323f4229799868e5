// The multi-node `check` flow: resolve who we are, publish this node's facts, meet through the store, run
// the mesh, come back with one verdict (cli/check.cc prints it; what this flow says while it runs goes to
// the sinks cli/ gives: ClusterCheckSinks).
// cli/check.cc plans the run, probes this node's facts once (all of them on the process that publishes them,
// only its identity on the others) and hands them in.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "cluster/check_args.h"
#include "cluster/cross_node_step.h"
#include "cluster/job_spec.h"
#include "cluster/launcher_env.h"
#include "cluster/session.h"
#include "common/progress_sink.h"
#include "common/result.h"
#include "probe/facts.h"
#include "report/report.h"

namespace dd::cluster {

Result<ClusterPlan> plan_cluster_check(const CheckArgs& args, const EnvMap& env);

// What this process has to print: the report (on the leader with every node's facts), or none, for a rank
// under a launcher whose verdict rank 0 prints (it then exits 0: a launcher like mpirun kills the whole job
// when one rank exits non-zero, which would cut rank 0's report short).
struct ClusterCheckOutcome {
  std::optional<report::Report> report;
};

// What the flow says while it runs, each through what cli/ gives (an empty one drops its lines).
struct ClusterCheckSinks {
  ProgressSink progress;   // the token's warnings (cli/: "distdoctor check: ...")
  ProgressSink leader;     // rank 0's waits and the master's "listening on" line (cli/: "distdoctor: ...")
  ProgressSink store_log;  // the embedded store's log on the master (cli/: "distdoctor store: ...")
  // The master's command for the other nodes, shown as is: on a terminal it holds the job token they need,
  // which a sink would hide (the printer redacts secrets).
  std::function<void(const std::string&)> paste_command;
  bool paste_on_terminal = false;  // paste_command writes to a terminal: a generated token may be shown there
};

// An Error when the command line cannot work (no token, say); xn: the cross-node collective pass
// (--collectives), nullptr for none.
Result<ClusterCheckOutcome> run_cluster_check(const CheckArgs& args, const ClusterPlan& plan,
                                              const probe::NodeFacts& facts, const ClusterCheckSinks& sinks,
                                              const CrossNodeHooks* xn = nullptr);

}  // namespace dd::cluster
