// Hang rules: the rank that caused a collective hang, from the watchdog records (hang_analysis.h), as the
// finding that leads (logs.hang.desync, .ahead, .late, .missing); every rank stopped at the same place, where
// the Flight Recorder dumps are (logs.hang.same_place); and a debug-info dump that was asked for while no
// rank timed out (logs.pytorch.dump_requested).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "logs/hang_analysis.h"
#include "logs/hang_verdict_text.h"
#include "logs/log_finding_ids.h"
#include "logs/log_rules.h"
#include "logs/log_time.h"
#include "logs/rank_state.h"

namespace dd::logs {

using report::Finding;
using report::Severity;

namespace {

const char* hr_id(HangKind k) {
  switch (k) {
    case HangKind::desync:
      return "logs.hang.desync";
    case HangKind::ahead:
      return "logs.hang.ahead";
    case HangKind::late:
      return "logs.hang.late";
    default:
      return "logs.hang.missing";
  }
}

const char* hr_fix(HangKind k) {
  switch (k) {
    case HangKind::desync:
    case HangKind::ahead:
      return "Compare the code paths of the ranks at that collective: a rank-dependent branch, an uneven "
             "last "
             "batch, or a collective only some ranks call. TORCH_DISTRIBUTED_DEBUG=DETAIL checks op and "
             "shapes "
             "before each collective; the Flight Recorder (TORCH_FR_BUFFER_SIZE, dumps on timeout) records "
             "each "
             "rank's collectives with their Python stacks.";
    case HangKind::late:
      return "Find what that rank did before the collective (slow I/O or data loading, a long step on one "
             "rank, "
             "a sleep, a checkpoint only it writes): a py-spy or faulthandler dump of it while the others "
             "wait "
             "shows where. Raise the process-group timeout only for steps that are legitimately uneven.";
    default:
      return "Find where that rank is: blocked in another process group's collective or in its init, a "
             "Python "
             "loop, I/O or a lock (a py-spy or faulthandler dump of it while the others wait shows where). "
             "The "
             "others' timeouts, aborts and SIGTERMs only follow from it.";
  }
}

// What the culprit's own lines show: how it ended, its last line.
void hr_culprit_lines(const std::vector<RankState>& st, const HangVerdict& v, Finding& f) {
  for (const auto& s : st) {
    const RankProgress& p = *s.progress;
    if (p.rank < 0 || !std::count(v.culprits.begin(), v.culprits.end(), p.rank)) continue;
    if (!s.stopped.empty()) f.evidence.push_back(fmt::format("rank {} {}", p.rank, s.stopped));
    if (s.by_launcher)
      f.evidence.push_back(fmt::format("rank {} was stopped by the launcher (SIGTERM)", p.rank));
    if (!p.last_line.empty())
      f.evidence.push_back(fmt::format("rank {}'s last line ({}): {}", p.rank, p.last_at.str(), p.last_line));
  }
}

std::vector<int> hr_known_ranks(const LogsResult& r) {
  std::set<int> k;
  for (const auto& p : r.ranks)
    if (p.rank >= 0) k.insert(p.rank);
  for (const auto& c : r.child_failures)
    if (c.rank >= 0) k.insert(c.rank);
  // A rank NCCL printed (its communicator's rank): a worker whose own prints carry no "[rankN]:" prefix, as
  // torchrun passes them, is still a rank of the job (rank 1 that left with sys.exit(0) while rank 0 waits).
  // Only the ranks of the first communicator's size: a subgroup's own ranks would be other numbers.
  for (const auto& p : r.processes)
    if (p.rank >= 0 && p.nranks > 0 && p.nranks == r.processes.front().nranks) k.insert(p.rank);
  return {k.begin(), k.end()};
}

bool hr_has_lines(const LogsResult& r, const std::vector<int>& ranks) {
  for (const auto& p : r.ranks)
    if (p.rank >= 0 && p.lines > 0 && std::count(ranks.begin(), ranks.end(), p.rank)) return true;
  return false;
}

// Ranks prepared a debug-info dump (asked on demand, or by a timeout elsewhere) and no rank timed out.
void dump_requested_rule(const LogsResult& r, std::vector<Finding>& out) {
  std::set<int> dumped;
  int64_t t = -1;
  for (const auto& w : r.watchdogs) {
    if (!w.op.empty()) return;
    if (!w.dump_only || !w.dump_prepared || w.rank < 0) continue;
    dumped.insert(w.rank);
    if (w.time >= 0 && (t < 0 || w.time < t)) t = w.time;
  }
  if (dumped.empty()) return;
  std::vector<int> ds(dumped.begin(), dumped.end()), quiet;
  for (int k : hr_known_ranks(r))
    if (!dumped.count(k)) quiet.push_back(k);
  Finding f = logs_finding(
      "logs.pytorch.dump_requested", Severity::info,
      fmt::format("A debug-info dump was requested{}: {} prepared one{}; no rank timed out",
                  t >= 0 ? " at " + log_time_text(t).substr(0, 14) : "", rank_words(ds),
                  quiet.empty() ? "" : fmt::format(", {} did not", rank_words(quiet))),
      "Someone or something (the on-demand trigger TORCH_NCCL_DEBUG_INFO_PIPE_FILE, a launcher that "
      "suspected a "
      "hang) asked for the Flight Recorder's state. A rank of the job that printed no such line had no NCCL "
      "process group yet (it was still before or in init_process_group) or was not asked.");
  for (const auto& w : r.watchdogs)
    if (w.dump_only && w.dump_prepared && f.evidence.size() < 16)
      f.evidence.push_back(fmt::format("{} rank {}: preparing to dump debug info{}", w.at.str(), w.rank,
                                       w.pg.empty() ? "" : " (" + pg_name(w.pg) + ")"));
  out.push_back(std::move(f));
}

// " (NumelIn=8, NumelOut=8)", "" when the lines gave no sizes.
std::string hr_sizes(const HangVerdict& v) {
  if (v.numel_in < 0 && v.numel_out < 0) return "";
  return fmt::format(" (NumelIn={}, NumelOut={})", v.numel_in, v.numel_out);
}

// Where the Flight Recorder dumps are: the files the log names, else PyTorch's default prefix
// (DebugInfoWriter: TORCH_FR_DUMP_TEMP_FILE, formerly TORCH_NCCL_DEBUG_INFO_TEMP_FILE, default
// "/tmp/nccl_trace_rank_", then the rank). "" when no rank said it prepared one.
std::string hr_dumps(const LogsResult& r, std::string& read_cmd) {
  std::vector<int> prepared;
  std::string path;
  for (const auto& w : r.watchdogs) {
    if (w.dump_prepared && w.rank >= 0 && !std::count(prepared.begin(), prepared.end(), w.rank))
      prepared.push_back(w.rank);
    if (path.empty() && !w.dump_path.empty()) path = w.dump_path;
  }
  if (prepared.empty() && path.empty()) return "";
  std::sort(prepared.begin(), prepared.end());
  std::string prefix = path.empty() ? "/tmp/nccl_trace_rank_" : path;
  while (!path.empty() && !prefix.empty() && prefix.back() >= '0' && prefix.back() <= '9') prefix.pop_back();
  read_cmd = fmt::format("distdoctor logs {}*", prefix);
  if (!path.empty()) return fmt::format("PyTorch wrote its Flight Recorder dumps to {}<rank>", prefix);
  return fmt::format(
      "PyTorch dumped its Flight Recorder on {} (to {}<rank>, or TORCH_FR_DUMP_TEMP_FILE's prefix)",
      rank_words(prepared), prefix);
}

// Every rank timed out in the same collective with the same sizes (HangKind::unknown): the log cannot tell
// the ranks apart; the Flight Recorder dumps can (logs.hang.same_place).
void same_place_rule(const LogsResult& r, const HangVerdict& v, std::vector<Finding>& out) {
  std::string read_cmd;
  const std::string dumps = hr_dumps(r, read_cmd);
  std::string next;
  if (!r.flight_records.empty())
    next = "; the Flight Recorder dumps given here are compared below (logs.fr.*)";
  else if (!dumps.empty())
    next = fmt::format("; {}: read them with `{}`", dumps, read_cmd);
  else
    next =
        "; no Flight Recorder dump was printed: run again with TORCH_FR_BUFFER_SIZE=2000 "
        "TORCH_NCCL_DUMP_ON_TIMEOUT=1 (or under `distdoctor launch`)";
  Finding f = logs_finding(
      ids::kHangSamePlace, Severity::fail,
      fmt::format("Every rank ({}) timed out in the same collective, {} SeqNum={}{}{}: {}{}",
                  rank_commas(v.waiters), v.op, v.seq, pg_suffix(v), hr_sizes(v), kSamePlaceCannotTell, next),
      fmt::format(
          "Nothing in the log sets one rank apart: the same op, sequence number and element counts on each. "
          "The dtypes, each rank's Python stack and the collectives before it are in the Flight Recorder "
          "dumps{}. A dtype mismatch (float16 on one rank), a per-rank NCCL setting or a fault inside NCCL "
          "look like this. The watchdog's aborts and the launcher's failure summary only follow from the "
          "hang.",
          read_cmd.empty() ? "" : " (`" + read_cmd + "`)"));
  for (const auto& e : v.evidence)
    if (f.evidence.size() < 16) f.evidence.push_back(e);
  out.push_back(std::move(f));
}

void hang_rules(const LogsResult& r, std::vector<Finding>& out) {
  std::vector<HangVerdict> vs = analyze_hangs(r.watchdogs, hr_known_ranks(r));
  if (!vs.empty() && vs.front().kind == HangKind::unknown && vs.front().waiters.size() > 1)
    same_place_rule(r, vs.front(), out);  // unknown sorts last: no group named a culprit
  std::vector<RankState> st;
  for (const auto& v : vs) {
    if (v.kind == HangKind::unknown || v.culprits.empty()) continue;
    // A rank with lines of its own and no watchdog line at all: its log just ends, which the progress rules
    // name (logs.rank.stopped_first: killed, hung, or on another path).
    if (v.culprit_silent && hr_has_lines(r, v.culprits)) continue;
    if (st.empty()) st = rank_states(r);
    Finding f = logs_finding(hr_id(v.kind), Severity::fail, hang_verdict_title(v), hr_fix(v.kind));
    f.rank = v.culprits.size() == 1 ? v.culprits[0] : -1;
    hr_culprit_lines(st, v, f);
    for (const auto& e : v.evidence)
      if (f.evidence.size() < 16) f.evidence.push_back(e);
    out.push_back(std::move(f));
  }
  dump_requested_rule(r, out);
}

}  // namespace

LogRule hang_log_rule() {
  return {
      .name = "hang",
      .fn = hang_rules,
      .docs =
          {
              {"logs.hang.desync",
               "One rank called another collective, or other sizes, at the SeqNum the others wait in",
               "At the same sequence number of one process group, the watchdog lines show one rank (the odd "
               "one out) with another OpType, NumelIn or NumelOut than the others, or one rank left behind "
               "in a collective the others completed: it took another code path (a rank-dependent branch, an "
               "uneven last batch, a collective only some ranks call). The others' timeouts, aborts and "
               "SIGTERMs follow from it.",
               "Find the branch where that rank's collectives differ from the others' (a rank-dependent if, "
               "an uneven last batch, a collective only some ranks call) at the sequence number named: every "
               "rank must call the same collectives, with the same sizes, in the same order."},
              {"logs.hang.ahead", "One rank went past the collective the others wait in",
               "The ranks' first watchdog timeouts came together, but one rank timed out at a higher "
               "sequence number: it completed the collective the others still wait in with a call of its own "
               "(another op or group), so it took another code path at the first number where it differs."},
              {"logs.hang.late", "One rank was late to the collective the others timed out in",
               "The other ranks timed out waiting in a collective the rank had not issued yet (its last "
               "enqueued work was lower), and its own watchdog fired much later at a higher sequence number: "
               "it was slow before the collective (I/O, data loading, a sleep, a long step on one rank), not "
               "on another path.",
               "Find what that rank did before the collective (slow I/O or data loading, a long step on one "
               "rank, a sleep, a checkpoint only it writes): a py-spy or faulthandler dump of it while the "
               "others wait shows where. Raise the process-group timeout only for work that is slow by "
               "design."},
              {"logs.hang.missing", "One rank never issued the collective the others timed out in",
               "The other ranks timed out in a collective while this rank reported a lower last enqueued "
               "work and no timeout of its own, or printed no watchdog line at all: it was blocked outside "
               "that process group (another group's collective or init, a Python loop, I/O, a lock) or had "
               "stopped.",
               "Look at that rank's stack while the others wait (py-spy dump, faulthandler, or `distdoctor "
               "launch`, which takes every rank's stack at a hang): it shows what blocked it outside the "
               "process group; collectives of different groups must be called in the same order on every "
               "rank."},
              {ids::kHangSamePlace,
               "Every rank timed out in the same collective: the log cannot tell them apart",
               "Each rank's watchdog timed out in the same collective with the same sequence number, op and "
               "element counts, so PyTorch's lines do not say which rank differs (a dtype mismatch, a "
               "protocol setting or a fault inside NCCL look like this). PyTorch's Flight Recorder records "
               "each rank's collectives with dtypes and Python stacks; when the log says a dump was "
               "prepared, the dumps are at TORCH_FR_DUMP_TEMP_FILE (older: TORCH_NCCL_DEBUG_INFO_TEMP_FILE) "
               "followed by the rank, by default /tmp/nccl_trace_rank_<rank> on each node; `distdoctor logs` "
               "reads them and compares the ranks."},
              {"logs.pytorch.dump_requested", "A debug-info dump was requested while no rank timed out",
               "ProcessGroupNCCL printed 'preparing to dump debug info' (the Flight Recorder's state, asked "
               "on demand or by another rank) but no watchdog timeout followed. A rank of the job that "
               "printed no such line had no process group yet (it was before or in init_process_group) or "
               "was not asked."},
          },
      .culprit_ids = {"logs.hang.desync", "logs.hang.ahead", "logs.hang.late", "logs.hang.missing"},
  };
}

}  // namespace dd::logs
