// Cross-rank progress rules: the rank that stopped first while the others waited (logs.rank.stopped_first),
// every rank stuck in NCCL init or a launcher waiting for peers (logs.init.stuck), and one rank behind the
// collective the others are in (logs.rank.behind). Silence counts: a rank whose log just ends while its
// peers wait is the one that stopped.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/signal_name.h"
#include "logs/log_finding_ids.h"
#include "logs/log_rules.h"
#include "logs/log_time.h"
#include "logs/rank_state.h"

namespace dd::logs {

using report::Finding;
using report::Severity;

namespace {

std::string rr_where_ends(const RankProgress& p) {
  if (p.lines == 0) return fmt::format("its log {} is empty", p.file);
  std::string t = p.last_time >= 0 ? " at " + log_time_text(p.last_time) : "";
  return fmt::format("its log ends at {}{} with no error", p.last_at.str(), t);
}

// Earliest stop first; torchrun's root-cause mark, then rank order break ties.
bool rr_first(const RankState* a, const RankState* b) {
  int64_t ta = a->stopped_time < 0 ? INT64_MAX : a->stopped_time;
  int64_t tb = b->stopped_time < 0 ? INT64_MAX : b->stopped_time;
  if (ta != tb) return ta < tb;
  return a->root_cause > b->root_cause;
}

std::string rr_state_line(const RankState& s) {
  std::string what = !s.stopped.empty() ? s.stopped
                     : !s.waits.empty() ? s.waits
                     : s.by_launcher    ? "stopped by the launcher (SIGTERM)"
                                        : rr_where_ends(*s.progress);
  if (!s.stopped.empty() && s.by_launcher) what += "; then stopped by the launcher";
  if (s.watchdog_abort) what += "; then aborted by its watchdog (SIGABRT)";
  if (s.collectives > 0) what += fmt::format("; {} collective call(s)", s.collectives);
  return s.who + ": " + what;
}

// s completed init where every waiter is still in it, or issued more collectives than any waiter.
bool rr_ahead_of_all(const RankState& s, const std::vector<RankState*>& waiting) {
  if (waiting.empty()) return false;
  for (const auto* w : waiting)
    if (!(s.init_complete && !w->init_complete) && s.collectives <= w->collectives) return false;
  return true;
}

void stopped_first_rule(std::vector<RankState>& st, std::vector<Finding>& out) {
  std::vector<RankState*> stopped, waiting, silent;
  for (auto& s : st) {
    if (!s.stopped.empty())
      stopped.push_back(&s);
    else if (!s.waits.empty())
      waiting.push_back(&s);
    else if (!s.by_launcher)
      silent.push_back(&s);
  }
  // A rank whose log just ends while others wait stopped first, unless it got further than they did.
  std::erase_if(silent, [&](const RankState* s) { return rr_ahead_of_all(*s, waiting); });
  if (stopped.empty() && !waiting.empty()) {
    for (auto* s : silent)
      s->stopped = rr_where_ends(*s->progress) +
                   " (killed by SIGKILL or the OOM killer, hung, or on another code path)";
    stopped = silent;
  }
  if (stopped.empty() || st.size() < 2) return;
  std::stable_sort(stopped.begin(), stopped.end(), rr_first);
  const RankState& first = *stopped.front();
  // Ranks nothing orders apart (no time, no torchrun mark: two empty logs): all of them are named.
  size_t tied = 1;
  while (tied < stopped.size() && !rr_first(stopped.front(), stopped[tied])) ++tied;
  std::string waiters;
  for (const auto* s : waiting) waiters += (waiters.empty() ? "" : ", ") + s->who;
  std::string why_wait = waiting.empty() ? ""
                                         : fmt::format(" while {} waited ({}: {})", waiters,
                                                       waiting.front()->who, waiting.front()->waits);
  std::string who = first.who;
  for (size_t i = 1; i < tied; ++i) who += (i + 1 == tied ? " or " : ", ") + stopped[i]->who;
  const std::string title = tied > 1
                                ? fmt::format("{} stopped first{}; the logs do not tell which", who, why_wait)
                                : fmt::format("{} stopped first: {}{}", first.who, first.stopped, why_wait);
  Finding f = logs_finding(
      ids::kRankStoppedFirst, Severity::fail, title,
      fmt::format(
          "Start from {}'s own output: its error (or, when it printed none, its exit status: dmesg for "
          "the OOM killer, the launcher's exit codes) is the root cause. The other ranks' timeouts, "
          "connection errors and SIGTERMs follow from it.",
          who));
  f.rank = tied > 1 ? -1 : first.progress->rank;
  f.evidence.push_back(rr_state_line(first));
  for (const auto& s : st)
    if (&s != &first && f.evidence.size() < 16) f.evidence.push_back(rr_state_line(s));
  out.push_back(std::move(f));
}

// Every rank that started NCCL init is still in it, none completed; or a launcher waits for its peers.
void init_stuck_rule(const LogsResult& r, const std::vector<RankState>& st, std::vector<Finding>& out) {
  std::set<int> started;
  size_t in_init = 0, peers = 0;
  for (const auto& s : st) {
    if (s.init_complete || !s.stopped.empty()) return;
    if (s.init_started) {
      ++in_init;
      if (s.progress->rank >= 0) started.insert(s.progress->rank);
    }
    if (s.progress->waiting_peers) ++peers;
  }
  if (in_init == 0 && peers == 0) return;
  int nranks = -1;
  for (const auto& p : r.processes) nranks = std::max(nranks, p.nranks);
  std::string missing;
  for (int k = 0; k < nranks && k < 4096; ++k)
    if (!started.count(k)) missing += (missing.empty() ? "" : ", ") + std::to_string(k);
  Finding f = logs_finding(
      "logs.init.stuck", in_init > 0 ? Severity::fail : Severity::warn,
      in_init > 0 ? fmt::format("No rank reached NCCL Init COMPLETE: {} rank(s) stopped in init{}", in_init,
                                missing.empty() ? "" : "; never started it: rank(s) " + missing)
                  : "The launcher waited for peers that never came ('Waiting peer start...')",
      "Init blocks until every rank has joined. Find the rank that never arrived (missing from these logs, "
      "crashed before init, another node whose launcher did not start) and make sure every node runs the "
      "same world size and master address, and can reach it.");
  for (const auto& s : st)
    if (f.evidence.size() < 16) f.evidence.push_back(rr_state_line(s));
  out.push_back(std::move(f));
}

// One rank issued fewer collectives than the others: it never reached the one they are in.
void behind_rule(const std::vector<RankState>& st, std::vector<Finding>& out) {
  std::map<uint64_t, std::vector<const RankState*>> by;
  for (const auto& s : st)
    if (s.collectives > 0) by[s.collectives].push_back(&s);
  if (by.size() < 2) return;
  const auto& [lo, behind] = *by.begin();
  uint64_t hi = by.rbegin()->first;
  std::string who;
  for (const auto* s : behind) who += (who.empty() ? "" : ", ") + s->who;
  Finding f = logs_finding(
      "logs.rank.behind", Severity::fail,
      fmt::format("{} never reached the collective the others are in: {} call(s), others up to {}", who, lo,
                  hi),
      "The rank behind is stuck before the next collective (I/O, a data-dependent branch, a deadlock) or "
      "skipped it; its last lines and a py-spy dump of it show where.");
  for (const auto& s : st)
    if (f.evidence.size() < 16) f.evidence.push_back(rr_state_line(s));
  f.rank = behind.size() == 1 ? behind[0]->progress->rank : -1;
  out.push_back(std::move(f));
}

// Without per-rank output (one launcher console): a worker the launcher saw fail by itself, then the workers
// it stopped with SIGTERM ("failed (exitcode: -6) local_rank: 0 (pid: 517)", "Sending process 518 closing
// signal SIGTERM").
void exits_only_rule(const LogsResult& r, const std::vector<RankState>& st, std::vector<Finding>& out) {
  const ExitEvent* first = nullptr;
  std::string stopped;
  bool watchdog = false;  // a SIGABRT then is PyTorch's watchdog taking the process down, not a cause
  for (const auto& w : r.watchdogs) watchdog |= !w.op.empty();
  for (const auto& e : r.exits) {
    if (e.code == 0 || (e.code == -6 && watchdog)) continue;
    if (e.by_launcher) {
      stopped += fmt::format("{}{}", stopped.empty() ? "" : ", ", e.pid);
    } else if (!first || (e.time >= 0 && first->time >= 0 && e.time < first->time)) {
      first = &e;
    }
  }
  if (!first || stopped.empty()) return;
  std::string who = first->rank >= 0 ? fmt::format("rank {}", first->rank)
                                     : fmt::format("local_rank {} (pid {})", first->local_rank, first->pid);
  std::string how = first->code > 0 ? fmt::format("exit code {}", first->code)
                                    : fmt::format("signal {} {}", -first->code, signal_abbrev(-first->code));
  // The "[rankN]:" lines of that rank, when the console has them: its exception is the cause.
  const RankState* own = nullptr;
  for (const auto& s : st)
    if (first->rank >= 0 && s.progress->rank == first->rank && !s.progress->exception.empty()) own = &s;
  Finding f = logs_finding(
      ids::kRankStoppedFirst, Severity::fail,
      own ? fmt::format("{} stopped first: raised {} ({}); the launcher then stopped pid(s) {} with SIGTERM",
                        who, own->progress->exception, how, stopped)
          : fmt::format("{} stopped first ({}); the launcher then stopped pid(s) {} with SIGTERM", who, how,
                        stopped),
      fmt::format(
          "Start from {}'s own output (its traceback or first NCCL WARN; SIGABRT: an NCCL or watchdog "
          "abort, SIGKILL: often the OOM killer). The SIGTERMed workers only followed it.",
          who));
  f.rank = first->rank;
  if (own) f.evidence.push_back(rr_state_line(*own));
  f.evidence.push_back(fmt::format("{}: {} ({})", who, how, first->at.str()));
  out.push_back(std::move(f));
}

void rank_rules(const LogsResult& r, std::vector<Finding>& out) {
  std::vector<RankState> st = rank_states(r);
  size_t before = out.size();
  stopped_first_rule(st, out);
  if (out.size() == before && st.size() < 2) exits_only_rule(r, st, out);
  if (out.size() > before) return;
  late_init_rule(r, st, out);  // late_init_rule.cc: the rank the others wait for in init
  if (out.size() > before) return;
  init_stuck_rule(r, st, out);
  behind_rule(st, out);
}

}  // namespace

LogRule rank_log_rule() {
  return {
      .name = "rank",
      .fn = rank_rules,
      .docs =
          {
              {ids::kRankStoppedFirst, "One rank stopped first while the others waited",
               "Read across ranks: one rank ended by itself (a Python traceback, an exit code or signal a "
               "launcher reported, or a log that simply stops: SIGKILL and the OOM killer leave no trace) "
               "while the others waited (a watchdog timeout, a lost peer, NCCL init without Init COMPLETE). "
               "The first rank to stop is the root cause; the others' timeouts, connection resets and "
               "SIGTERMs follow from it and are listed after it as its consequences. When the error it "
               "stopped on is a known one (an out-of-memory, an invalid device ordinal), that error leads "
               "and this finding is folded into it as its evidence (info, \"same failure as ID\").",
               "Start from that rank's own output: its first error (a traceback, an NCCL WARN) is the root "
               "cause; when it printed none, its exit status says how it ended (a signal: dmesg for the OOM "
               "killer; an exit code: the launcher's summary). The other ranks' timeouts, connection errors "
               "and SIGTERMs follow from it."},
              {"logs.init.stuck", "No rank got through NCCL init",
               "Every rank that started NCCL init stopped inside it and none printed Init COMPLETE, or a "
               "launcher waited for peers that never came ('Waiting peer start...'). ncclCommInitRank blocks "
               "until all ranks join: a rank missing from the logs (named when NCCL printed nranks) never "
               "arrived.",
               "Find the rank missing from the logs (its host, its launcher's output); check that every node "
               "reaches MASTER_ADDR:MASTER_PORT and that all nodes were started with the same world size."},
              {"logs.rank.behind", "One rank never reached the collective the others are in",
               "The ranks' collective counts (NCCL_DEBUG_SUBSYS=COLL) differ: the rank with the fewest calls "
               "is stuck before the next collective, or skipped it on another code path."},
              late_init_doc(),
          },
      .culprit_ids = {ids::kRankStoppedFirst, "logs.rank.behind", ids::kInitLateRank},
  };
}

}  // namespace dd::logs
