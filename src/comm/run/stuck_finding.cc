// The finding of a worker that could not run (stuck_worker.h): the stopped rank is the cause and leads; the
// ranks that waited for it, and the errors their waiting ended in, are its witnesses.
#include <fmt/format.h>

#include <algorithm>

#include "comm/run/comm_finding.h"
#include "comm/run/rank_text.h"
#include "comm/run/run_findings.h"
#include "report/comm_ids.h"

namespace dd::comm {

namespace {

// Where a rank was: "in all_reduce 8 GiB" (started, no result), "after all_reduce 8 GiB" (its result sent),
// "in communicator init".
std::string rank_where(const RunWatch& watch, int r) {
  const RankState& s = watch.ranks()[r];
  if (s.last_op < 0) return s.init_done ? "after communicator init" : "in communicator init";
  auto res = watch.results().find(s.last_op);
  const bool finished = res != watch.results().end() && res->second.count(r);
  if (finished && s.done) return "at the exit, after its last op";
  return (finished ? "after " : "in ") + watch.op_label(s.last_op);
}

std::string stuck_worker_title(const RunRecord& rec, const StuckWorker& st, std::vector<int>* waiting) {
  const auto& mine = rec.layout.groups[st.worker];
  std::vector<int> others;
  for (int r : rec.layout.local)
    if (std::find(mine.begin(), mine.end(), r) == mine.end() && !rec.watch.ranks()[r].done)
      others.push_back(r);
  if (waiting) *waiting = others;
  std::string title = ranks_word(mine) + " " + stuck_text(st);
  if (!others.empty())
    title += " \u2014 " + ranks_word(others) + " waited for it " + rank_where(rec.watch, others[0]);
  return title;
}

}  // namespace

report::Finding stuck_worker_finding(const RunRecord& rec, const StuckWorker& st) {
  std::vector<int> waiting;
  std::string title = stuck_worker_title(rec, st, &waiting);
  const auto& mine = rec.layout.groups[st.worker];
  const RankState& me = rec.watch.ranks()[mine[0]];
  const double held_s = std::chrono::duration<double>(rec.stopped_at - st.since).count();
  std::vector<std::string> ev = {fmt::format("pid {}: {}, seen {:.1f} s before the run was stopped", st.pid,
                                             st.state_name, std::max(0.0, held_s))};
  ev.push_back(ranks_word(mine) + " was " + rank_where(rec.watch, mine[0]));
  if (!waiting.empty()) {
    const RankState& w = rec.watch.ranks()[waiting[0]];
    if (w.last_op > me.last_op && w.last_op >= 0)
      ev.push_back(ranks_word(mine) + " never reached " + rec.watch.op_label(w.last_op) + ", where " +
                   ranks_word(waiting) + " waited");
  }
  for (int r : waiting)  // what the waiting ended in: consequences, never the cause
    if (!rec.watch.ranks()[r].error.empty())
      ev.push_back("rank " + std::to_string(r) +
                   " then failed waiting for it (a consequence): " + rec.watch.ranks()[r].error);
  if (rec.layout.local.size() < size_t(rec.layout.world))
    ev.push_back("the ranks of other nodes waited for it too");
  ev.push_back("the run was stopped (the stopped process with SIGKILL)");
  std::string fix =
      st.state == 'D'
          ? "The process waits in the kernel and cannot be interrupted: a hung device or driver call (GPU "
            "Xid errors in dmesg), a dead NFS mount, or swapping. Its wait channel says where."
      : st.state == 'Z'
          ? "The worker's main thread exited while other threads still run: look at its log."
          : "A stopped process (SIGSTOP, Ctrl-Z, a debugger, a job controller's suspend) holds every "
            "other rank inside the collective: find what stopped it, resume it (kill -CONT PID), and do "
            "not suspend single ranks of a running job.";
  return comm_failure(
      st.state == 'D' || st.state == 'Z' ? report::comm_id::kWorkerStuck : report::comm_id::kWorkerStopped,
      title, ev, fix, mine[0]);
}

}  // namespace dd::comm
