// Pieces shared by the files that build the launch report (failure_report.cc, rank_failed_report.cc,
// hang_report.cc, env_diff_report.cc): how a rank ended, node labels, rank ranges, the redacted command, and
// the findings each cause adds. Internal to src/launch; pure.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "launch/launch_facts.h"
#include "logs/fr/fr_analysis.h"
#include "report/finding.h"
#include "report/finding_doc.h"
#include "rules/rank_identity.h"

namespace dd::launch {
struct LauncherConvention;  // launcher_convention.h
}  // namespace dd::launch

namespace dd::launch::parts {

std::string end_text(const RankRecord& r);  // "exited with status 7", "killed by signal 9
                                            // (SIGKILL)", "still running"
const NodeRecord* find_node(const AttemptRecord& a, int node_rank);  // nullptr when it sent no record
std::string node_label(const AttemptRecord& a, int node_rank);       // "node 0 (gpu-a)", "node 3"
std::string host_of(const AttemptRecord& a, int node_rank);          // "gpu-a", "" when unknown
std::string rank_ranges(std::vector<int> ranks);
std::string ranks_phrase(const std::vector<int>& ranks);  // "rank 3", "ranks 0-2"  // any order, repeats
                                                          // allowed: {7,0,1,3,4,5,6} -> "0,1,3-7"
std::string last_line(const RankRecord& r);               // last non-blank line of its tail
std::string shown_line(
    const std::string& line);  // redacted, its last '\r' segment (progress bars), cut at 300
std::string command_text(const std::vector<std::string>& argv);    // redacted, quoted where needed
std::vector<const RankRecord*> all_ranks(const AttemptRecord& a);  // every record, by rank
RankRecord root_record(const AttemptRecord& a);  // the root-cause rank's record (StopEvent.root or nodes)
int root_node(const AttemptRecord& a);           // the node the report compares others with

// The traceback, then the last lines of the record's log that it does not already show
// (rank_failed_report.cc).
void add_log_evidence(std::vector<std::string>& evidence, const RankRecord& r);

// launch.rank.failed, the catalogue's diagnosis, launch.rank.also_failed (rank_failed_report.cc).
std::vector<report::Finding> rank_failed_findings(const AttemptRecord& a);
// launch.hang (hang_report.cc) and the short form for attempt lines ("ranks 1,3 look stuck").
report::Finding hang_finding(const AttemptRecord& a);
std::string hang_summary(const AttemptRecord& a);
// A running rank's stack as taken at a hang or an interrupt (its first lines, or why none was taken), and its
// own thread's Python frames innermost first under "rank R (ROLE) stack" (hang_report.cc).
void add_stack(std::vector<std::string>& evidence, const RankRecord& r);
void add_brief_stack(std::vector<std::string>& evidence, const RankRecord& r, const char* role);
// launch.node.lost or launch.master.lost, by the stop's cause; launch.logs.cannot_write (lost_report.cc).
report::Finding lost_finding(const AttemptRecord& a);
report::Finding cannot_start_finding(const AttemptRecord& a);
// launch.interrupted (interrupt_report.cc), with the evidence add_interrupt_evidence gives.
report::Finding interrupted_finding(const AttemptRecord& a);
// The evidence of launch.interrupted (interrupt_report.cc): the ranks still running when the signal came,
// with their stacks, and those that had ended, with how.
void add_interrupt_evidence(const AttemptRecord& a, report::Finding& f);
// The signal named in an interrupt's detail ("SIGINT", "received SIGTERM", "signal 15"); SIGINT when none is.
int interrupt_signal(const std::string& detail);
// The convention with a companion process (at most one has one; null when none): what StopCause::
// scheduler_failed is about.
const LauncherConvention* companion_convention();
// Its companion in words ("MindSpore's scheduler"; "the companion process" when none).
std::string companion_who();
// launch.rank.stopped: the ranks launch ended itself, as ranges per node; launch.node.silent: the nodes that
// sent no record (stopped_report.cc). Nothing when there is none.
std::optional<report::Finding> stopped_finding(const AttemptRecord& a);
std::optional<report::Finding> silent_nodes_finding(const AttemptRecord& a);
// launch.mindspore.scheduler (mindspore_report.cc): MindSpore's scheduler failed before the workers finished
// (fail, the job's cause), or, after they all succeeded, ended badly or had to be stopped (warn; else
// nothing).
report::Finding scheduler_failed_finding(const AttemptRecord& a);
std::optional<report::Finding> scheduler_end_finding(const AttemptRecord& a);
// Its doc (the convention's own: failure_report_docs.cc adds it to launch_finding_docs()).
const std::vector<report::FindingDoc>& scheduler_finding_docs();
// Every rank's identity as read from /proc (RankRecord::identity), for rules::odd_settings, with what launch
// gave it (its node's launcher environment) as the expected values (identity_report.cc).
std::vector<rules::RankIdentity> rank_identities(const AttemptRecord& a);
// The variables of an environment that a rank's identity holds (NCCL_*, CUDA_*, ..., launch's own left out),
// redacted.
std::map<std::string, std::string> identity_of_env(const std::map<std::string, std::string>& env);
// launch.rank.differs (identity_report.cc): ranks that run with another NCCL library or other NCCL, CUDA or
// PyTorch variables than the rest; nothing when all agree. A warning (a hang report names it as the cause),
// at fail when it singles out ranks on NCCL and the job failed inside NCCL: then it is that failure's cause.
std::optional<report::Finding> rank_differs_finding(const AttemptRecord& a);
// launch.rank.left_early (left_early_report.cc): a rank that exited 0 while the others went on, before a
// failure that reads as a lost peer; nothing otherwise.
std::optional<report::Finding> left_early_finding(const AttemptRecord& a);
// What to do about ranks that left early (the fix of launch.rank.left_early and of a hang by an early exit).
std::string left_early_fix(const std::vector<int>& ranks);
// launch.logs.full: a node whose log folder had no room left; launch.job.strays: processes the workers left
// outside their groups, which launch stopped (left_behind_report.cc). Nothing when there is none.
std::optional<report::Finding> logs_full_finding(const AttemptRecord& a);
std::optional<report::Finding> strays_finding(const AttemptRecord& a);
// launch.env.differs (env_diff_report.cc); nothing with one node or no difference.
std::optional<report::Finding> env_differs_finding(const AttemptRecord& a);

// Every node's Flight Recorder digest merged, and analysed; nothing when no node sent one
// (flight_record_report.cc).
std::optional<logs::FrSummary> attempt_fr_summary(const AttemptRecord& a);
std::optional<logs::FrAnalysis> attempt_fr_analysis(const AttemptRecord& a);
// One evidence line per rank whose Flight Recorder dump was read: "rank R Flight Recorder dump: PATH".
void add_fr_dump_evidence(const AttemptRecord& a, std::vector<std::string>& evidence);
// launch.job.mismatch: a job that ended well whose exit dumps show ranks that passed different sizes,
// types or collectives at one sequence number.
std::optional<report::Finding> completed_mismatch_finding(const AttemptRecord& a);
// launch.job.straggler: a rank the others waited for, collective after collective (logs/fr/fr_straggler.h),
// from the exit dumps of a job that ended well, else from what the live check saw while it ran.
std::vector<report::Finding> straggler_findings(const AttemptRecord& a);

}  // namespace dd::launch::parts
