// Builds RankState from the merged log facts: one per RankProgress, joined to the NCCL processes, watchdog
// records, torchrun's summary and launcher exits of the same rank (through an index by rank built once: a
// loop over every record for every rank took 14 s on 65,536 ranks' watchdog lines).
#include "logs/rank_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "common/signal_name.h"
#include "logs/log_time.h"

namespace dd::logs {

namespace {

constexpr uint64_t kMarkerTailLines = 5;  // an init marker this close to a log's end: it stopped there

// The records of each rank (processes of an unknown rank by their file), in input order.
struct ByRank {
  std::unordered_map<int, std::vector<const ProcessFacts*>> processes;
  std::unordered_map<std::string, std::vector<const ProcessFacts*>> processes_by_file;
  std::unordered_map<int, std::vector<const WatchdogTimeout*>> watchdogs;
  std::unordered_map<int, std::vector<const ExitEvent*>> exits;
  std::unordered_map<int, std::vector<const ChildFailure*>> child_failures;

  explicit ByRank(const LogsResult& r) {
    for (const auto& pf : r.processes) {
      processes[pf.rank].push_back(&pf);
      processes_by_file[pf.file].push_back(&pf);
    }
    for (const auto& w : r.watchdogs) watchdogs[w.rank].push_back(&w);
    for (const auto& e : r.exits) exits[e.rank].push_back(&e);
    for (const auto& c : r.child_failures) child_failures[c.rank].push_back(&c);
  }
  template <class Map, class Key>
  static const typename Map::mapped_type& of(const Map& m, const Key& k) {
    static const typename Map::mapped_type none;
    auto it = m.find(k);
    return it == m.end() ? none : it->second;
  }
};

void add_process_facts(const ByRank& by, RankState& s) {
  const RankProgress& p = *s.progress;
  for (const ProcessFacts* pfp :
       p.rank >= 0 ? ByRank::of(by.processes, p.rank) : ByRank::of(by.processes_by_file, p.file)) {
    const ProcessFacts& pf = *pfp;
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

bool rs_timed_out(const ByRank& by, int rank) {
  for (const WatchdogTimeout* w : ByRank::of(by.watchdogs, rank))
    if (!w->op.empty()) return true;
  return false;
}

// A launcher saw the rank exit 0 and never otherwise: a traceback in its log was not how it stopped (a
// process it started, a multiprocessing child, prints into the same output; or it caught the exception and
// went on).
bool exited_zero(const ByRank& by, int rank) {
  const auto& exits = ByRank::of(by.exits, rank);
  return !exits.empty() &&
         std::all_of(exits.begin(), exits.end(), [](const ExitEvent* e) { return e->code == 0; });
}

void add_stop(const ByRank& by, RankState& s) {
  const RankProgress& p = *s.progress;
  if (!p.exception.empty() && !(p.rank >= 0 && exited_zero(by, p.rank))) {
    s.stopped = fmt::format("raised {} ({})", p.exception, p.exception_at.str());
    s.stopped_time = p.exception_time;
  }
  if (p.rank < 0) return;
  const bool watchdog = rs_timed_out(by, p.rank);  // then its SIGABRT is the watchdog taking the process down
  for (const ExitEvent* ep : ByRank::of(by.exits, p.rank)) {
    const ExitEvent& e = *ep;
    if (e.code == 0) continue;
    if (e.by_launcher || e.code == -15) {
      s.by_launcher = true;
    } else if (e.code == -6 && watchdog) {
      s.watchdog_abort = true;
    } else if (s.stopped.empty()) {
      s.stopped = fmt::format("{} ({})", exit_text(e.code), e.at.str());
      s.stopped_time = e.time;
    }
  }
  for (const ChildFailure* cp : ByRank::of(by.child_failures, p.rank)) {
    const ChildFailure& c = *cp;
    if (c.exitcode == 0) continue;
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

void add_wait(const ByRank& by, RankState& s) {
  const RankProgress& p = *s.progress;
  if (p.rank >= 0)
    for (const WatchdogTimeout* w : ByRank::of(by.watchdogs, p.rank))
      if (!w->op.empty()) {
        s.waits = fmt::format("timed out in {} SeqNum={} ({})", w->op, w->seq, w->at.str());
        break;
      }
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
  const ByRank by(r);
  for (const auto& p : r.ranks) {
    RankState s;
    s.progress = &p;
    s.who = p.rank >= 0 ? fmt::format("rank {}", p.rank) : p.file;
    add_process_facts(by, s);
    add_stop(by, s);
    add_wait(by, s);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace dd::logs
