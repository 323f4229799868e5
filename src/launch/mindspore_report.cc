// launch.mindspore.scheduler: MindSpore's scheduler process (`launch --mindspore`, node rank 0) in the launch
// report. When it fails before the workers finish it is the job's cause, never a rank; when it ends badly or
// must be stopped after every worker succeeded, a warning (the workers' results stand).
#include <fmt/format.h>

#include "launch/report_parts.h"

namespace dd::launch::parts {

using report::Finding;
using report::Severity;

namespace {

// The scheduler's record from the nodes' records (node rank 0's), or none.
const RankRecord* scheduler_in(const AttemptRecord& a) {
  for (const auto& n : a.nodes)
    if (n.scheduler.pid > 0) return &n.scheduler;
  return nullptr;
}

void add_scheduler_evidence(const AttemptRecord& a, const RankRecord& s, Finding& f) {
  if (s.pid > 0) f.evidence.push_back(fmt::format("pid {}", s.pid));
  if (!a.command.empty())
    f.evidence.push_back("command: MS_ROLE=MS_SCHED RANK_ID=0 " + command_text(a.command));
  const std::string log = s.log_path.empty() ? "(no log file)" : s.log_path;
  f.evidence.push_back(fmt::format("log: {}{}", log, f.node.empty() ? "" : " on " + f.node));
  add_log_evidence(f.evidence, s);
}

}  // namespace

Finding scheduler_failed_finding(const AttemptRecord& a) {
  const RankRecord& s = a.stop.root;
  Finding f{.id = "launch.mindspore.scheduler", .severity = Severity::fail, .node = host_of(a, s.node_rank)};
  f.title = fmt::format("MindSpore's scheduler on {} {} before the workers finished; no rank is at fault",
                        node_label(a, s.node_rank), end_text(s));
  if (s.end_s >= 0) f.evidence.push_back(fmt::format("it ended {:.2f} s after the start", s.end_s));
  add_scheduler_evidence(a, s, f);
  f.fix = fmt::format(
      "Read its log ({}): the scheduler runs your script with MS_ROLE=MS_SCHED up to "
      "mindspore.communication.init(), so an error in the imports or set_context() before it ends the "
      "scheduler "
      "as well. \"MS_SCHED_PORT is occupied\" means another process holds MASTER_PORT (leave --job-port out, "
      "or give a free one). Without the scheduler the workers cannot form MindSpore's cluster, so launch "
      "stopped "
      "them.",
      s.log_path.empty() ? "no log file" : s.log_path);
  const auto& diag = a.stop.diagnosis;
  if (!diag.empty() && !diag.front().fix.empty())
    f.fix = fmt::format("{} ({}) {}", diag.front().fix, diag.front().id, f.fix);
  return f;
}

std::optional<Finding> scheduler_end_finding(const AttemptRecord& a) {
  const RankRecord* s = scheduler_in(a);
  if (!s || (!s->stopped_by_us && s->signal == 0 && s->exit_code == 0)) return std::nullopt;
  Finding f{.id = "launch.mindspore.scheduler", .severity = Severity::warn, .node = host_of(a, s->node_rank)};
  f.title = s->stopped_by_us
                ? fmt::format(
                      "MindSpore's scheduler on {} did not exit by itself after every worker finished: "
                      "launch stopped it",
                      node_label(a, s->node_rank))
                : fmt::format("MindSpore's scheduler on {} {} after every worker finished",
                              node_label(a, s->node_rank), end_text(*s));
  add_scheduler_evidence(a, *s, f);
  f.fix =
      "The workers' results stand (exit code 0). The scheduler exits once every worker has left MindSpore's "
      "cluster: a worker that never called mindspore.communication.init(), or a job that is not a MindSpore "
      "job (leave --mindspore out then), leaves it waiting. Its log says what it waited for.";
  return f;
}

const std::vector<report::FindingDoc>& scheduler_finding_docs() {
  static const std::vector<report::FindingDoc> docs = {
      {"launch.mindspore.scheduler", "MindSpore's scheduler process failed, or did not end by itself",
       "With --mindspore, node rank 0 starts the job's command once more as MindSpore's scheduler "
       "(MS_ROLE=MS_SCHED, as msrun does). It is not a rank: it waits in mindspore.communication.init() "
       "until every worker has joined and left MindSpore's cluster, then exits 0. When it exits non-zero or "
       "is killed before the workers finish, the workers cannot form or keep the cluster, so launch stops "
       "them and names the scheduler (fail: its exit status, the last lines of its log "
       "DIR/JOB/ATTEMPT/node0.scheduler.log), not a rank; the exit code is its status (128+signal). The "
       "script runs in the scheduler up to init(), so an error in the imports or set_context() shows here "
       "first; \"MS_SCHED_PORT is occupied\" means another process holds MASTER_PORT. After every worker "
       "exited 0, a scheduler that exits non-zero or does not exit within 5 s (launch then stops it) is a "
       "warning: the exit code stays 0."},
  };
  return docs;
}

}  // namespace dd::launch::parts
