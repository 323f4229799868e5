// name_failures: one finding for the root cause of a failed run (a dead worker first, then the first rank
// that reported an error, then a run that ran out of time), plus workers that exited unclean.
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <sstream>

#include "comm/run/comm_finding.h"
#include "comm/run/rank_text.h"
#include "comm/run/run_findings.h"
#include "comm/run/worker_death.h"
#include "nccl/error_causes.h"
#include "probe/fs.h"
#include "probe/host_memory.h"
#include "probe/regular_file.h"
#include "report/comm_ids.h"

namespace dd::comm {

using report::Finding;

namespace {

std::vector<std::string> warning_evidence(const RunOutcome& out) {
  std::vector<std::string> ev;
  const auto& warns = out.nccl_log.warnings;
  for (size_t i = 0; i < warns.size() && i < 6; ++i) ev.push_back("NCCL WARN " + warns[i]);
  return ev;
}

std::string engine_label(const RunOptions& opt) {
  return opt.engine == rules::EngineKind::nccl ? "NCCL" : "Gloo";
}

// After a timeout, the silent ranks are the suspects: never joined (no "ready") or stalled (alive, no
// result). A silent rank that went on to call its op while another never did only waited inside it (NCCL
// reports no timeout of its own): the ones that never called it are the stalled ones then.
void silent_ranks(const RunRecord& rec, std::vector<int>& stalled, std::vector<int>& never) {
  std::vector<int> outside;
  for (int q : rec.layout.local) {
    const RankState& s = rec.watch.ranks()[q];
    if (!s.error.empty() || s.done || !rec.alive_at_stop[s.worker]) continue;
    (s.ready ? stalled : never).push_back(q);
    if (s.ready && s.last_op >= 0 && s.entered_op != s.last_op) outside.push_back(q);
  }
  if (!outside.empty() && outside.size() < stalled.size()) stalled = outside;
}

// The ranks of the job that run on other nodes (a bench or cross-node pass over several nodes).
std::vector<int> remote_ranks(const RunRecord& rec) {
  std::vector<int> remote;
  for (int q = 0; q < rec.layout.world; ++q)
    if (std::find(rec.layout.local.begin(), rec.layout.local.end(), q) == rec.layout.local.end())
      remote.push_back(q);
  return remote;
}

std::string error_title(const RunRecord& rec, int r, const std::string& id) {
  const RankState& s = rec.watch.ranks()[r];
  std::string title =
      s.error_stage == "init"
          ? engine_label(rec.opt) + " communicator init failed on rank " + std::to_string(r)
          : op_label(rec.opt.ops[std::max(0, s.last_op)]) + " failed on rank " + std::to_string(r);
  auto ifname = rec.facts.env.find("NCCL_SOCKET_IFNAME");
  if (id == report::comm_id::kNetNoInterface && ifname != rec.facts.env.end())
    title += ": NCCL_SOCKET_IFNAME=" + ifname->second + " matches no usable interface";
  else if (id == report::comm_id::kGpuDuplicate)
    title += ": two ranks on the same GPU (Duplicate GPU detected)";
  return title;
}

// "in all_reduce 1 MiB float", "in communicator init".
std::string rank_place(const RunRecord& rec, int r) {
  const RankState& s = rec.watch.ranks()[r];
  if (s.last_op >= 0) return "in " + op_label(rec.opt.ops[s.last_op]);
  return s.init_done ? "after communicator init" : "in communicator init";
}

Finding rank_error_finding(const RunOutcome& out, const RunRecord& rec, int r) {
  const RankState& s = rec.watch.ranks()[r];
  auto cause = nccl::classify_comm_error(s.error, out.nccl_log.warnings);
  std::vector<std::string> ev = {s.error};
  for (auto& w : warning_evidence(out)) ev.push_back(w);
  std::vector<int> stalled, never;
  const bool timed_out = is_timeout(s);
  if (timed_out) silent_ranks(rec, stalled, never);
  if (!never.empty()) ev.push_back("rank(s) " + rank_list(never) + " never joined (started, no answer)");
  if (!stalled.empty()) {
    const RankState& first = rec.watch.ranks()[stalled[0]];
    ev.push_back("rank(s) " + rank_list(stalled) + " stalled: alive, last seen " +
                 (first.last_op >= 0 ? "starting " + op_label(rec.opt.ops[first.last_op])
                                     : std::string(first.init_done ? "after init" : "in init")));
  }
  std::string id = cause.id;
  if (id == report::comm_id::kError && timed_out)
    id = s.error_stage == "init" ? report::comm_id::kInitTimeout : report::comm_id::kOpTimeout;
  std::string title = error_title(rec, r, id);
  const std::vector<int> remote = timed_out ? remote_ranks(rec) : std::vector<int>{};
  if (!never.empty() || !stalled.empty()) {  // the silent ranks are the cause, the timed-out ones waited
    const std::vector<int>& silent = never.empty() ? stalled : never;
    std::vector<int> waited;  // the ones that timed out, and the silent ones inside the op
    bool all_timed_out = true;
    for (int q : rec.layout.local) {
      const RankState& w = rec.watch.ranks()[q];
      const bool inside = w.error.empty() && !w.done &&
                          std::find(silent.begin(), silent.end(), q) == silent.end() &&
                          std::find(never.begin(), never.end(), q) == never.end();
      if (is_timeout(w) || inside) waited.push_back(q);
      all_timed_out = all_timed_out && !inside;
    }
    title = ranks_word(silent) +
            (never.empty() ? " stalled (alive, no error, no progress) " + rank_place(rec, silent[0])
                           : std::string(" never joined")) +
            " \u2014 " + ranks_word(waited) +
            (all_timed_out ? " timed out waiting for it " : " waited for it ") + rank_place(rec, r);
    return comm_failure(id, title, ev, cause.fix, silent[0]);
  }
  if (!remote.empty()) {  // every rank of this node was waiting: the silent one is on another node
    title += ": waiting for rank(s) " + rank_list(remote) + " on other nodes";
    ev.push_back("no rank of this node stalled; rank(s) " + rank_list(remote) +
                 " run on other nodes: one of them stopped answering or its link failed");
  }
  return comm_failure(id, title, ev, cause.fix, r);
}

Finding unfinished_finding(const RunOutcome& out, const RunRecord& rec) {
  std::vector<std::string> ev;
  std::vector<int> stuck, not_ready, not_init;
  for (int r : rec.layout.local) {
    const RankState& s = rec.watch.ranks()[r];
    if (!s.done) stuck.push_back(r);
    if (!s.ready) not_ready.push_back(r);
    if (!s.init_done) not_init.push_back(r);
  }
  if (!not_ready.empty()) ev.push_back("never joined: rank(s) " + rank_list(not_ready));
  if (!not_init.empty()) ev.push_back("did not finish communicator init: rank(s) " + rank_list(not_init));
  for (int r : stuck)
    if (rec.watch.ranks()[r].last_op >= 0)
      ev.push_back("rank " + std::to_string(r) + " last started " +
                   op_label(rec.opt.ops[rec.watch.ranks()[r].last_op]));
  for (auto& w : warning_evidence(out)) ev.push_back(w);
  std::string what = engine_label(rec.opt) + " test did not finish within " +
                     std::to_string(rec.total.count() / 1000) + " s";
  if (auto op = rec.watch.overdue_op(); op && rec.watch.overdue_run().count() > 0)
    what = op_label(rec.opt.ops[*op]) + " made no progress for " +
           fmt::format("{:.1f}", rec.watch.overdue_run().count() / 1000.0) + " s (one run's deadline)";
  else if (op)
    what = op_label(rec.opt.ops[*op]) + " did not finish within its deadline of " +
           fmt::format("{:.1f}", rec.watch.op_deadline(*op).count() / 1000.0) + " s";
  else if (rec.watch.init_overdue())
    what = engine_label(rec.opt) + " communicator init did not finish within its deadline of " +
           fmt::format("{:.1f}", rec.opt.init_timeout.count() / 1000.0) + " s";
  // Of the ranks in one op, those that never called it (stalled between starting the op and calling it: in
  // their own code) are the cause; the ones inside it only waited for them.
  std::vector<int> outside, inside;
  for (int r : stuck) {
    const RankState& s = rec.watch.ranks()[r];
    if (s.last_op < 0) continue;
    (s.entered_op == s.last_op ? inside : outside).push_back(r);
  }
  if (!outside.empty() && !inside.empty() && not_init.empty()) {
    const int op = rec.watch.ranks()[outside[0]].last_op;
    ev.insert(ev.begin(), "rank(s) " + rank_list(inside) + " called it and waited; rank(s) " +
                              rank_list(outside) + " started it but never called it");
    return comm_failure(report::comm_id::kOpTimeout,
                        what + ": " + ranks_word(outside) + " never called " + op_label(rec.opt.ops[op]) +
                            " \u2014 " + ranks_word(inside) + " waited for it inside",
                        ev,
                        "The named rank stopped in its own code between two collectives (a stall, a lock, a "
                        "stuck device call), so every other rank waited for it: look at that process.",
                        outside[0]);
  }
  return comm_failure(
      not_init.empty() ? report::comm_id::kOpTimeout : report::comm_id::kInitTimeout,
      what + ": rank(s) " + rank_list(stuck) + " did not finish", ev,
      "A rank that never joins or stalls hangs every other rank: check that all ranks start, reach each "
      "other (firewall, NCCL_SOCKET_IFNAME), and are not stuck in their own code.");
}

}  // namespace

void name_failures(RunOutcome& out, const RunRecord& rec) {
  std::vector<int> errored;
  for (int r : rec.layout.local)
    if (!rec.watch.ranks()[r].error.empty()) errored.push_back(r);
  const int died = rec.watch.died_worker();
  if (const auto& st = rec.watch.stuck_worker(); st && (died < 0 || rec.watch.died_at() >= st->since)) {
    out.findings.push_back(stuck_worker_finding(rec, *st));
    return;  // the others waited for it: their errors and timeouts are consequences
  }
  if (died >= 0) {
    out.findings.push_back(died_worker_finding(rec, died));
    return;  // the others' errors are consequences
  }
  if (!errored.empty()) {  // one finding for the root cause; the others' errors are consequences
    out.findings.push_back(rank_error_finding(out, rec, errored[0]));
    return;
  }
  if (!rec.peers_gone.empty()) {  // the cause is on another node: this node's ranks only waited for it
    const bool store = rec.peers_gone.rfind("the job's store", 0) == 0;  // GoneWatch: the master itself went
    std::vector<std::string> ev = {
        store ? rec.peers_gone + ": this node's ranks were stopped"
              : "the cluster leader found " + rec.peers_gone +
                    " gone (failed, or no heartbeat): this node's ranks were stopped"};
    for (int r : rec.layout.local)
      if (!rec.watch.ranks()[r].done)
        ev.push_back("rank " + std::to_string(r) + " was " + rank_place(rec, r));
    out.findings.push_back(comm_failure(
        report::comm_id::kPeerGone,
        "stopped waiting for " + rec.peers_gone + (store ? "" : ": the leader found them gone"), ev,
        store
            ? "The master's node (node rank 0) stopped answering: see its own output, or the network between "
              "the nodes."
            : "See the finding that names the node that stopped or failed."));
    return;
  }
  if (!rec.finished || rec.watch.overdue_op() || rec.watch.init_overdue()) {
    out.findings.push_back(unfinished_finding(out, rec));
    return;
  }
  for (size_t w = 0; w < rec.layout.groups.size(); ++w) {
    const auto& ws = rec.sup.workers()[w];
    if (!(WIFEXITED(ws.wait_status) && WEXITSTATUS(ws.wait_status) == 0))
      out.findings.push_back(comm_failure(report::comm_id::kWorkerDied,
                                          "worker of rank " + rank_list(rec.layout.groups[w]) +
                                              " ended with " + process::describe_wait_status(ws.wait_status),
                                          {tail_of_file(rec.specs[w].log_path, 3)}, ""));
  }
}

}  // namespace dd::comm
