// A framework's launcher convention as ONE struct of hooks, like nccl-tests' one struct per collective: the
// variables its launcher gives each worker, a process of its own beside the workers (MindSpore's scheduler),
// the names that are the launcher's own (left out when environments are compared, kept by the env probe),
// and what the launch report adds for it. One file per framework (convention_torchrun.cc,
// convention_paddle.cc, convention_mindspore.cc...), one row each in launcher_conventions()
// (launcher_conventions.cc). Adding one: docs/adding-a-check.md.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "launch/job_settings.h"
#include "launch/launch_facts.h"
#include "launch/worker_env.h"
#include "report/finding.h"
#include "report/finding_doc.h"

namespace dd::launch {

// What a hook is given for one worker (or, for the companion, node rank 0's).
struct ConventionInput {
  const JobLayout& job;
  int node_rank = 0;
  int local_rank = 0;
  const WorkerEnvOptions& opt;
  int nnodes() const { return int(job.nodes.size()); }
  int rank() const { return job.first_rank(node_rank) + local_rank; }  // the worker's global rank
  // The workers on this node (1 when the node rank is outside the layout).
  int local_world() const { return node_rank >= 0 && node_rank < nnodes() ? job.nodes[node_rank].nproc : 1; }
};

// A process of the framework's own that launch starts beside the workers on node rank 0, before them (as
// msrun starts MindSpore's scheduler): the job's command once more with its env. Not a rank: its own log
// (nodeN.ROLE.log), its lines shown with --tee all as "[ROLE]: ", stopped with the workers; a failure before
// they finish stops the job (StopCause::scheduler_failed, NodeRecord::scheduler).
struct CompanionProcess {
  std::string_view role;  // "scheduler"
  std::string_view who;   // "MindSpore's scheduler", in the report's notes
  EnvPairs (*env)(const ConventionInput& in) = nullptr;
};

// The report parts a convention adds (report_parts.h): its companion failed first; its companion ended badly
// or had to be stopped after every worker succeeded.
struct ConventionReport {
  report::Finding (*companion_failed)(const AttemptRecord& a) = nullptr;
  std::optional<report::Finding> (*companion_end)(const AttemptRecord& a) = nullptr;
  // The docs of every id those two may emit (`explain`, the finding registry).
  const std::vector<report::FindingDoc>& (*docs)() = nullptr;
};

struct LauncherConvention {
  std::string_view name;  // "torchrun", "paddle", "mindspore"
  // Empty: always on (its names do not collide with another's). Else the launch flag that turns it on
  // ("--mindspore"), with WorkerEnvOptions::opted_in holding `name`.
  std::string_view flag;
  std::string_view flag_help;  // the flag's line in `launch --help`
  bool every_gpu = false;      // its workers need every GPU visible: the flag excludes --bind-gpu
  // This worker's variables (laid over the launcher's own environment).
  EnvPairs (*worker_env)(const ConventionInput& in) = nullptr;
  // Every name worker_env and the companion may set: launch leaves them out when it compares environments
  // across ranks and nodes (is_launcher_var), and the env probe keeps them in a node's facts
  // (probe::env_name_wanted: `check` run inside such a job sees who started it).
  std::span<const std::string_view> own_vars;
  const CompanionProcess* companion = nullptr;
  ConventionReport report;
};

// Every convention, in the order their variables are set.
std::span<const LauncherConvention* const> launcher_conventions();

// The conventions a job's settings turn on by flag ("mindspore" with --mindspore):
// WorkerEnvOptions::opted_in.
inline const std::vector<std::string>& opted_in(const JobSettings& job) { return job.conventions; }

// Whether the convention is on for a job with these options.
bool convention_on(const LauncherConvention& c, const WorkerEnvOptions& opt);

// The companion process of the conventions on (at most one has one), or null.
const CompanionProcess* companion_of(const WorkerEnvOptions& opt);

}  // namespace dd::launch
