// The launch report's parts besides the cause (failure_report_rows.h): each finding's builder with the docs
// of its ids, and the orders they follow the cause in. Adding a launch finding: its builder and one part
// here, named in the order(s) it belongs to.
#include <fmt/format.h>

#include "launch/failure_report_ids.h"
#include "launch/failure_report_rows.h"
#include "launch/launcher_convention.h"
#include "launch/report_parts.h"

namespace dd::launch {

using report::Finding;
using report::Severity;

namespace {

// A builder of at most one finding as a part's builder.
template <std::optional<Finding> (*F)(const AttemptRecord&)>
std::vector<Finding> at_most_one(const AttemptRecord& a) {
  std::vector<Finding> v;
  if (auto f = F(a)) v.push_back(std::move(*f));
  return v;
}

// launch.rank.differs after the cause: unless the cause's own findings led with it (a failure in NCCL that a
// rank with another NCCL explains, failure_report_causes.cc).
std::optional<Finding> differs_after_cause(const AttemptRecord& a) {
  std::optional<Finding> differs = parts::rank_differs_finding(a);
  if (differs && a.stop.cause == StopCause::worker_failed && differs->severity == Severity::fail)
    return std::nullopt;
  return differs;
}

// What the conventions add once every worker succeeded (a companion process that ended badly).
std::vector<Finding> companion_end(const AttemptRecord& a) {
  std::vector<Finding> v;
  for (const auto* c : launcher_conventions())
    if (c->report.companion_end)
      if (auto f = c->report.companion_end(a)) v.push_back(std::move(*f));
  return v;
}

std::vector<Finding> attempt_line(const AttemptRecord& a) {
  return {Finding{.id = "launch.attempt.failed",
                  .severity = Severity::info,
                  .title = fmt::format("attempt {}: {} after {:.1f} s", a.attempt,
                                       stop_cause_row(a.stop.cause).outcome(a), a.duration_s)}};
}

const LaunchPart& rank_stopped_part() {
  static const LaunchPart p{
      "rank_stopped",
      at_most_one<parts::stopped_finding>,
      {
          {"launch.rank.stopped", "Ranks that launch stopped",
           "After the job's first failure (or a hang, an interrupt, a lost node) launch sent SIGTERM to "
           "every other worker on every node and SIGKILL after the grace period (--grace), so that nobody "
           "waits 10-30 minutes in a collective for a peer that is gone. These ranks did nothing wrong; they "
           "are listed as ranges per node."},
      }};
  return p;
}

const LaunchPart& rank_differs_part() {
  static const LaunchPart p{
      "rank_differs",
      at_most_one<differs_after_cause>,
      {
          {"launch.rank.differs", "One rank runs with another NCCL or other NCCL settings than the rest",
           "While the workers start, launch reads each one's environment and the libraries it has loaded "
           "from /proc (following a wrapper script to the process that loaded NCCL): its NCCL_*, CUDA_*, "
           "TORCH_*, PYTORCH_*, NVIDIA_* and UCX_* variables, LD_PRELOAD, LD_LIBRARY_PATH and the libnccl "
           "file. The ranks are compared across the whole job; a value held by fewer ranks than the rest "
           "names those ranks (with two ranks, both are listed). Variables launch sets per rank (RANK, "
           "CUDA_VISIBLE_DEVICES, ...) and values that differ on every rank are left out. A warning is "
           "printed on the node as soon as its ranks are read; when the job then hangs, the hang report "
           "names the odd rank as the cause. Different NCCL builds, protocols (NCCL_PROTO), algorithms or "
           "disabled transports (NCCL_P2P_DISABLE, NCCL_SHM_DISABLE) on some ranks make ranks wait for each "
           "other in init or in the first collective."},
      }};
  return p;
}

const LaunchPart& env_differs_part() {
  static const LaunchPart p{
      "env_differs",
      at_most_one<parts::env_differs_finding>,
      {
          {"launch.env.differs", "The environment differs between nodes",
           "The launcher's environment on the root-cause rank's node is compared with every other node's, "
           "leaving out the variables launch sets itself (RANK, MASTER_ADDR, ...) and those that name the "
           "node or session (HOSTNAME, SSH_*, Slurm's per-node ids). A variable set on one node and not "
           "another, or set to another value, is listed with each node's value; secrets are shown as "
           "<redacted>. Different NCCL_*, LD_LIBRARY_PATH, PYTHONPATH or CUDA_* settings are a common cause "
           "of crashes and hangs that hit one node only. Use the same image, modules and exports on every "
           "node."},
      }};
  return p;
}

const LaunchPart& job_mismatch_part() {
  static const LaunchPart p{
      "job_mismatch",
      at_most_one<parts::completed_mismatch_finding>,
      {
          {"launch.job.mismatch",
           "The job ended, but its ranks passed different sizes or types to a collective",
           "Every worker exited 0, and the Flight Recorder dumps launch's hook wrote as they exited show, at "
           "one collective sequence number of a process group, ranks that passed different sizes or dtypes, "
           "or called different collectives. NCCL does not compare counts across ranks, so such a call can "
           "complete and leave wrong or partly written buffers (4x H100: rank 3 all_gathered twice the "
           "elements of the others and the job exited 0). The rank on the smaller side is named, with its "
           "Python call where the dump has it. Uneven all_gather (own input size, the same list of outputs "
           "everywhere), reduce_scatter, all_to_all, gather/scatter roots and point-to-point ops are not "
           "compared. The exit code stays 0; check the run's results before using them. --no-flight-recorder "
           "turns the exit dumps off."},
      }};
  return p;
}

const LaunchPart& job_straggler_part() {
  static const LaunchPart p{
      "job_straggler",
      parts::straggler_findings,
      {
          {ids::kJobStraggler, "One rank made the others wait, collective after collective",
           "From the Flight Recorder dumps the workers wrote as they exited: the rank that created most "
           "collectives last (by 5 ms or more, median), compared with the other ranks of its node on that "
           "node's clock, with the share of their time the others spent waiting for it, and, for a rank that "
           "turned slow during the run (fail-slow), the collective and time it began. The job itself ended "
           "well (the exit code stays 0): this is the step time it lost. See logs.fr.straggler for the "
           "method."},
      }};
  return p;
}

const LaunchPart& logs_full_part() {
  static const LaunchPart p{
      "logs_full",
      at_most_one<parts::logs_full_finding>,
      {
          {"launch.logs.full", "The log directory is full",
           "Each worker writes its own log file directly (every byte, no pipe through launch), so when the "
           "filesystem of --log-dir fills up the worker's writes fail with ENOSPC and its log ends early, "
           "while the job itself may go on. At the end of each attempt every node reports the free space "
           "there; under 4 KiB is reported as full. Free space or point --log-dir at a filesystem with "
           "room."},
      }};
  return p;
}

const LaunchPart& job_strays_part() {
  static const LaunchPart p{
      "job_strays",
      at_most_one<parts::strays_finding>,
      {
          {"launch.job.strays", "Processes the workers started outlived them",
           "launch is a child subreaper: what a worker starts and leaves behind when it exits comes back to "
           "it. A process that left the worker's process group (setsid, a daemon that double-forks) escapes "
           "the group kill that ends a job, and would keep running (often holding a GPU) into the next "
           "attempt or job. At the end of each attempt launch finds them (every process below it, and what "
           "is in the process groups and sessions they made), names them (pid and command line), sends "
           "SIGTERM to each and its group, and SIGKILL after up to 2 s (at once after a second Ctrl-C), "
           "scanning again until a scan finds nothing, so a process that forks and exits to change its pid "
           "is caught too. End helpers before the worker exits."},
      }};
  return p;
}

const LaunchPart& companion_end_part() {
  static const LaunchPart p{"companion_end", companion_end, {}};  // the convention documents its ids
  return p;
}

}  // namespace

const LaunchPart& silent_nodes_part() {
  static const LaunchPart p{
      "node_silent",
      at_most_one<parts::silent_nodes_finding>,
      {
          {"launch.node.silent", "A node sent no record for the report",
           "Every node sends its account of the attempt (how each of its ranks ended, log tails) through the "
           "store; this node's did not arrive before the deadline, so its ranks are missing from the report. "
           "Its launcher may be gone or its network down: read its output and logs on that node."},
      }};
  return p;
}

const LaunchPart& attempt_part() {
  static const LaunchPart p{
      "attempt_failed",
      attempt_line,
      {
          {"launch.attempt.failed", "An earlier attempt of a restarted job",
           "With --max-restarts K launch restarts the whole job on every node after a failure, up to K "
           "times; each earlier attempt is listed with how it ended and its length. Each attempt's logs are "
           "under {log_dir}/{job_id}/{attempt}/ ({job_id}.2 and on when the job id was used before), and "
           "workers see the attempt as TORCHELASTIC_RESTART_COUNT. A job that fails the same way every time "
           "will not be saved by restarts: fix the cause the attempts share."},
      }};
  return p;
}

const std::vector<const LaunchPart*>& parts_after_success() {
  static const std::vector<const LaunchPart*> v = {&job_mismatch_part(), &job_straggler_part(),
                                                   &rank_differs_part(), &logs_full_part(),
                                                   &job_strays_part(),   &companion_end_part()};
  return v;
}

const std::vector<const LaunchPart*>& parts_after_failure() {
  // The stragglers the live check saw before the failure.
  static const std::vector<const LaunchPart*> v = {&rank_stopped_part(),  &rank_differs_part(),
                                                   &job_straggler_part(), &env_differs_part(),
                                                   &logs_full_part(),     &job_strays_part()};
  return v;
}

std::vector<const LaunchPart*> all_launch_parts() {
  return {&rank_stopped_part(),  &rank_differs_part(), &env_differs_part(), &job_mismatch_part(),
          &job_straggler_part(), &logs_full_part(),    &job_strays_part(),  &companion_end_part(),
          &silent_nodes_part(),  &attempt_part()};
}

}  // namespace dd::launch
