// Builds RankState from the merged log facts: one per RankProgress, joined to the NCCL processes, watchdog
// records, torchrun's summary and launcher exits of the same rank.
#include "logs/rank_state.h"

#include <fmt/format.h>

#include "common/signal_name.h"
#include "logs/log_time.h"

namespace dd::logs {

namespace {

constexpr uint64_t kMarkerTailLines = 5;  // an init marker this close to a log's end: it stopped there

bool same_rank(const RankProgress& p, int rank, const std::string& file) {
  return p.rank >= 0 ? rank == p.rank : file == p.file;
}

void add_process_facts(const LogsResult& r, RankState& s) {
  const RankProgress& p = *s.progress;
  for (const auto& pf : r.processes) {
    if (!same_rank(p, pf.rank, pf.file)) continue;
    // INFO output of init (a bare "NCCL version" banner from NCCL_DEBUG=WARN says nothing about init).
    if (pf.comm_inits > 0 || !pf.bootstrap_if.empty() || pf.init_complete > 0) s.init_started = true;
    if (pf.init_complete > 0) s.init_complete = true;
    for (const auto& [op, n] : pf.coll_counts) s.collectives += n;
  }
  if (p.init_marker_at.line > 0 && p.init_marker_at.file == p.last_at.file &&
      p.last_at.line <= p.init_marker_at.line + kMarkerTailLines)
    s.init_started = true;
}

std::string exit_text(int code) {
  if (code >= 0) return fmt::format("exited with code {}", code);
  const std::string name = signal_abbrev(-code);
  return fmt::format("was killed by signal {}{}{}", -code, name.empty() ? "" : " ", name);
}

bool rs_timed_out(const LogsResult& r, int rank) {
  for (const auto& w : r.watchdogs)
    if (w.rank == rank && !w.op.empty()) return true;
  return false;
}

void add_stop(const LogsResult& r, RankState& s) {
  const RankProgress& p = *s.progress;
  if (!p.exception.empty()) {
    s.stopped = fmt::format("raised {} ({})", p.exception, p.exception_at.str());
    s.stopped_time = p.exception_time;
  }
  if (p.rank < 0) return;
  const bool watchdog = rs_timed_out(r, p.rank);  // then its SIGABRT is the watchdog taking the process down
  for (const auto& e : r.exits) {
    if (e.rank != p.rank || e.code == 0) continue;
    if (e.by_launcher || e.code == -15) {
      s.by_launcher = true;
    } else if (e.code == -6 && watchdog) {
      s.watchdog_abort = true;
    } else if (s.stopped.empty()) {
      s.stopped = fmt::format("{} ({})", exit_text(e.code), e.at.str());
      s.stopped_time = e.time;
    }
  }
  for (const auto& c : r.child_failures) {
    if (c.rank != p.rank || c.exitcode == 0) continue;
    if (c.exitcode == -15) {
      s.by_launcher = true;
      continue;
    }
    if (c.exitcode == -6 && watchdog) {
      s.watchdog_abort = true;
      continue;
    }
    s.root_cause |= c.root_cause;
    if (s.stopped.empty()) {
      s.stopped = fmt::format("{} (torchrun, {})", exit_text(c.exitcode), c.at.str());
      s.stopped_time = log_time_key(c.time);
    }
  }
}

void add_wait(const LogsResult& r, RankState& s) {
  const RankProgress& p = *s.progress;
  for (const auto& w : r.watchdogs)
    if (p.rank >= 0 && w.rank == p.rank && !w.op.empty() && s.waits.empty())
      s.waits = fmt::format("timed out in {} SeqNum={} ({})", w.op, w.seq, w.at.str());
  if (s.waits.empty() && !p.peer_lost.empty())
    s.waits = fmt::format("lost a peer{}: {} ({})", p.waiting_in.empty() ? "" : " in " + p.waiting_in,
                          p.peer_lost, p.peer_lost_at.str());
  if (s.waits.empty() && s.init_started && !s.init_complete)
    s.waits = fmt::format("waited in NCCL init, no Init COMPLETE (last line {})", p.last_at.str());
  if (s.waits.empty() && p.waiting_peers)
    s.waits = fmt::format("waited for peers ('Waiting peer start...', last line {})", p.last_at.str());
}

}  // namespace

std::vector<RankState> rank_states(const LogsResult& r) {
  std::vector<RankState> out;
  for (const auto& p : r.ranks) {
    RankState s;
    s.progress = &p;
    s.who = p.rank >= 0 ? fmt::format("rank {}", p.rank) : p.file;
    add_process_facts(r, s);
    add_stop(r, s);
    add_wait(r, s);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace dd::logs
