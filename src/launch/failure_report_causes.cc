// How each way a job stops reads in the launch report (failure_report_rows.h): one row per StopCause with the
// words of its attempt line, the findings that lead the report, and the docs of their ids. A framework's
// companion process (MindSpore's scheduler) is reported through its convention's hooks
// (launcher_convention.h ConventionReport), so nothing here names a framework.
#include <fmt/format.h>

#include <utility>

#include "launch/failure_report_ids.h"
#include "launch/failure_report_rows.h"
#include "launch/launcher_convention.h"
#include "launch/report_parts.h"

namespace dd::launch {

using report::Finding;
using report::Severity;

namespace {

std::string with(const std::string& prefix, const std::string& detail, const char* open, const char* close) {
  return detail.empty() ? prefix : prefix + open + detail + close;
}

std::vector<Finding> job_ok(const AttemptRecord& a) {
  size_t workers = 0;
  for (const auto& n : a.nodes) workers += n.ranks.size();
  return {Finding{.id = "launch.job.ok",
                  .severity = Severity::ok,
                  .title = fmt::format("all {} workers on {} node{} exited 0 in {:.1f} s", workers,
                                       a.nodes.size(), a.nodes.size() == 1 ? "" : "s", a.duration_s)}};
}

// The rank that failed first; before it, a rank that left early, and a rank with another NCCL (or its own
// NCCL setting), which explains a failure inside NCCL better than the first rank to fail, which may be its
// peer (rank 0's "invalid usage" when rank 1 loads another NCCL).
std::vector<Finding> worker_failed(const AttemptRecord& a) {
  std::vector<Finding> v;
  if (auto f = parts::left_early_finding(a)) v.push_back(std::move(*f));
  if (auto d = parts::rank_differs_finding(a); d && d->severity == Severity::fail) v.push_back(std::move(*d));
  for (auto& f : parts::rank_failed_findings(a)) v.push_back(std::move(f));
  return v;
}

std::vector<Finding> hang(const AttemptRecord& a) { return {parts::hang_finding(a)}; }
std::vector<Finding> lost(const AttemptRecord& a) { return {parts::lost_finding(a)}; }
std::vector<Finding> cannot_start(const AttemptRecord& a) { return {parts::cannot_start_finding(a)}; }
std::vector<Finding> interrupted(const AttemptRecord& a) { return {parts::interrupted_finding(a)}; }

// The companion process (a convention's, beside the workers) failed before they finished: its convention
// says how (ConventionReport::companion_failed).
std::vector<Finding> companion_failed(const AttemptRecord& a) {
  const LauncherConvention* c = parts::companion_convention();
  if (c && c->report.companion_failed) return {c->report.companion_failed(a)};
  return {};
}

// The words of an attempt line, by cause.
std::string outcome_none(const AttemptRecord&) { return "every worker exited 0"; }

std::string outcome_worker(const AttemptRecord& a) {
  const RankRecord root = parts::root_record(a);
  return fmt::format("rank {} {}", root.rank, parts::end_text(root));
}

std::string outcome_hang(const AttemptRecord& a) { return "the job hung (" + parts::hang_summary(a) + ")"; }

std::string outcome_interrupted(const AttemptRecord& a) {
  return with("interrupted", a.stop.detail, " by ", "");
}

std::string outcome_node_lost(const AttemptRecord& a) {
  return with("a node was lost", a.stop.detail, " (", ")");
}

std::string outcome_master_lost(const AttemptRecord& a) {
  return with("the master was lost", a.stop.detail, " (", ")");
}

std::string outcome_companion(const AttemptRecord& a) {
  return parts::companion_who() + " " + parts::end_text(a.stop.root);
}

std::string outcome_cannot_start(const AttemptRecord& a) {
  return "the workers could not be started (" + a.stop.detail + ")";
}

}  // namespace

const std::vector<StopCauseRow>& stop_cause_rows() {
  static const std::vector<StopCauseRow> rows = {
      {StopCause::none,
       outcome_none,
       job_ok,
       {
           {"launch.job.ok", "Every worker exited 0", "The job ran to the end on every node. Exit code 0."},
       },
       parts_after_success},
      {StopCause::worker_failed,
       outcome_worker,
       worker_failed,
       {
           {ids::kRankFailed, "The first rank to fail: the root cause of the job's end",
            "A worker exited non-zero or was killed by a signal while the others still ran. It is named as "
            "the root cause because it failed first; the ranks that failed afterwards usually did so because "
            "it was gone (launch.rank.also_failed) and launch stopped the rest within half a second "
            "(launch.rank.stopped). The evidence gives the command (secrets redacted), the log file with "
            "every byte the worker wrote, its Python traceback and its last lines. When the log matches the "
            "known-error catalogue its fix is repeated here and the diagnosis is folded into this finding: "
            "one failure, one FAIL (the diagnosis stays in the report as info, \"same failure as "
            "launch.rank.failed\", consequence_of in --json). SIGKILL without a traceback is most often the "
            "kernel's OOM killer (dmesg shows it); SIGSEGV, SIGBUS and SIGABRT are native crashes "
            "(PYTHONFAULTHANDLER=1 prints the Python stack at the crash). The launcher exits with the "
            "worker's status, or 128+signal.",
            "Read that rank's error in the report (its traceback and last lines, and the known-error "
            "diagnosis with its fix when the log matched one); its full log is the file the evidence names. "
            "SIGKILL without a traceback: dmesg for the OOM killer."},
           {"launch.rank.also_failed", "Ranks that failed by themselves after the root cause",
            "These ranks ended with an error of their own after the root-cause rank had failed, before "
            "launch could stop them. Most often they only report the loss of their peer (NCCL \"remote "
            "process exited or there was a network error\", Gloo \"Connection reset by peer\", a store "
            "timeout). Fix the root cause first and look at these only if they still fail."},
           {"launch.rank.left_early", "A rank left the job early, and another failed when it lost it",
            "A rank exited with status 0 while the other ranks still ran, and the failure that stopped the "
            "job came after it and reads as a lost peer (Gloo's \"Connection closed by peer\", NCCL's remote "
            "error, a broken pipe). The rank that failed only noticed; the one that left is the cause: a "
            "return, a break or a sys.exit() on one rank (uneven batches, a rank-dependent condition) while "
            "the others go on calling collectives.",
            "Make every rank run the same steps: the rank that left returned or called sys.exit early (an "
            "exception caught and swallowed, a rank-dependent loop length); the other rank's failure follows "
            "from it."},
       },
       parts_after_failure},
      {StopCause::hang,
       outcome_hang,
       hang,
       {
           {"launch.hang", "The job hung: a collective timed out, or every worker stopped printing",
            "A hang is declared when a worker prints that a collective already failed (PyTorch's watchdog "
            "timeout, its dump signal, an aborted NCCL communicator: launch acts on the first such line "
            "instead of waiting for PyTorch's teardown), or, with --hang-timeout S, when no worker prints "
            "anything for S seconds (even when every rank spins inside NCCL). Before stopping the job (exit "
            "code 124), launch asks every live worker for its Python stacks (faulthandler on SIGUSR2, "
            "registered by the sitecustomize.py launch puts on PYTHONPATH; py-spy when that is missing) and "
            "for a Flight Recorder dump (PyTorch's ring of the last collectives, which launch turns on: "
            "--no-flight-recorder leaves both off). The culprit is named from, strongest first: the process "
            "state (a rank stopped, state T: SIGSTOP, Ctrl-Z, a scheduler's suspend, or t: a debugger, runs "
            "nothing while the others wait), the Flight Recorder (the first sequence number where ranks "
            "disagree), the watchdog lines (at one SeqNum the odd one out whose op differs took another code "
            "path; ranks that printed no timeout while the others did never reached the collective), the "
            "stacks (a rank outside any collective while the others wait in one, or waiting at another line "
            "of your code), the NCCL collective counts (NCCL_DEBUG_SUBSYS=COLL: the rank behind) and CPU use "
            "(a rank idle while the others spin). The ranks that only waited are never named as the cause. "
            "Each rank's /proc state, CPU, silence, last line and stack follow.",
            "Read the rank the report names and its stack: it shows where that rank was while the others "
            "waited; then fix that code path (the same collectives on every rank) or its slowness (I/O, data "
            "loading)."},
       },
       parts_after_failure},
      {StopCause::interrupted,
       outcome_interrupted,
       interrupted,
       {
           {"launch.interrupted", "The launch was interrupted",
            "The launcher received SIGINT (Ctrl-C), SIGTERM or SIGHUP. Before passing it to every worker on "
            "every node, each node takes the Python stacks of its ranks still running (at most 1.5 s): the "
            "finding names them, with where each one was, and the ranks that had already ended. Then it "
            "stopped them all. Nothing is left behind. A SIGTERM you did not send usually comes from the "
            "scheduler (time limit, preemption). Exit code 128 + the signal's number (130 for Ctrl-C)."},
       },
       parts_after_failure},
      {StopCause::node_lost,
       outcome_node_lost,
       lost,
       {
           {"launch.node.lost", "A node stopped answering during the job",
            "A node's launcher stopped sending heartbeats through the store. The machine may have rebooted "
            "or lost its network, or its `distdoctor launch` was killed (OOM killer, the scheduler, a "
            "person). The other nodes stopped their workers at once; the lost node's logs stay on that node. "
            "Exit code 2."},
       },
       parts_after_failure},
      {StopCause::master_lost,
       outcome_master_lost,
       lost,
       {
           {"launch.master.lost", "The master node stopped answering during the job",
            "Node 0 runs the store every node coordinates through. When it stops answering no node can learn "
            "of a failure elsewhere, so each stops its workers rather than run on blind. Check node 0 as for "
            "a lost node. Exit code 2."},
       },
       parts_after_failure},
      {StopCause::scheduler_failed, outcome_companion, companion_failed, {}, parts_after_failure},
      {StopCause::cannot_start,
       outcome_cannot_start,
       cannot_start,
       {
           {"launch.logs.cannot_write", "A node could not create its workers' log files",
            "Before it starts any worker, each node makes the attempt's folder under --log-dir and creates "
            "every log file of its ranks. When that fails (a filesystem with no free inodes, no space, a "
            "read-only mount, a folder of another user, a device or FIFO where a log should be) nothing is "
            "started there, every node stops its workers, and the launch exits 3; the finding names the file "
            "and, for ENOSPC, whether the inodes (`df -i`) or the bytes ran out. Free them or point "
            "--log-dir elsewhere."},
       },
       parts_after_failure},
  };
  return rows;
}

const StopCauseRow& stop_cause_row(StopCause c) {
  for (const auto& row : stop_cause_rows())
    if (row.cause == c) return row;
  return stop_cause_rows().front();  // every cause has a row (LaunchReportRows test)
}

}  // namespace dd::launch
