// The node agent's stop of its workers, and the records of the attempt: this node's (its workers' end
// records, hang snapshots, signals, strays, Flight Recorder digest, the companion's) and every other node's,
// exchanged through the store.
#include <fmt/format.h>
#include <signal.h>

#include <thread>

#include "common/json_limits.h"
#include "common/safe_text.h"
#include "launch/attempt_agent.h"
#include "launch/stop_signals.h"
#include "probe/system_probe.h"

namespace dd::launch {

using namespace std::chrono_literals;

void AttemptAgent::stop_workers() {
  const auto now = Clock::now();
  const bool hang = stop_->cause == StopCause::hang;
  // An interrupt is diagnosed as a hang is (who still runs, where), within a short wait: Ctrl-C stays quick,
  // and a second one (grace_cut) skips it.
  const bool looked_at = hang || (stop_->cause == StopCause::interrupted && !stop_.grace_cut());
  if (looked_at) {
    evidence_.gather(hang ? HangEvidence::kHangWait : HangEvidence::kInterruptWait, stop_);
    evidence_.take_snapshots(now, !hang);
  }
  const bool interrupted = stop_->cause == StopCause::interrupted && stop_signal() != 0;
  const int first = interrupted && stop_signal() == SIGINT ? SIGINT : SIGTERM;
  const double grace = stop_.grace_cut() ? 0 : joined().job.grace_s;
  companion_.signal();
  const auto grace_ms = std::chrono::milliseconds(int64_t(grace * 1000));
  auto cut = [this] { return stop_.grace_cut(); };
  workers_.stop(grace_ms, first, cut);
  stop_latency_s_ = std::chrono::duration<double>(Clock::now() - stop_.seen()).count();
  companion_.stop(grace_ms, cut);  // MindSpore's scheduler cannot outlive them
}

NodeRecord AttemptAgent::node_record() {
  NodeRecord n;
  n.node_rank = joined().node_rank;
  n.host = joined().nodes[size_t(n.node_rank)].host;
  n.env = joined().nodes[size_t(n.node_rank)].env;
  n.log_free_bytes = probe::free_bytes_at(s_.args.log_dir);
  signals_.forward(workers_, companion_, "the attempt was ending");
  n.signals = signals_.notes();
  n.stragglers_seen = stragglers_.seen();
  std::vector<pid_t> groups;
  workers_.add_groups(groups);
  companion_.add_group(groups);
  stop_strays(s_, groups, stop_, n);
  n.ranks = workers_.end_records(evidence_.snapshots());
  evidence_.read_flight_records(n, stop_);
  n.scheduler = companion_.record(n.node_rank, workers_.t0());
  return n;
}

void gather_records(const AttemptSetup& s, int attempt, NodeRecord mine, AttemptRecord& rec) {
  const JoinedNodes& j = s.joined;
  using Clock = std::chrono::steady_clock;
  if (rec.stop.cause == StopCause::master_lost) {
    rec.nodes.push_back(std::move(mine));
    return;
  }
  const auto deadline = Clock::now() + std::chrono::milliseconds(int64_t(j.job.grace_s * 1000)) + 10s;
  (void)j.store->set(attempt_keys(attempt).of("record", j.node_rank), json_text(nlohmann::json(mine)),
                     deadline);
  const int lost = rec.stop.cause == StopCause::node_lost ? rec.stop.node_rank : -1;
  for (int n = 0; n < j.nnodes; ++n) {
    if (n == j.node_rank) {
      rec.nodes.push_back(mine);
      continue;
    }
    auto v = n == lost ? Result<std::string>(Error{"lost"})
                       : j.store->get(attempt_keys(attempt).of("record", n), deadline);
    auto record = v ? dd::parse_record<NodeRecord>(*v) : std::nullopt;
    if (!record) {  // silent, or a record of the wrong shape
      rec.silent_nodes.push_back(n);
      continue;
    }
    rec.nodes.push_back(std::move(*record));
  }
  (void)j.store->add(attempt_keys(attempt).at("read"), 1, deadline);
  if (j.node_rank != 0) return;
  // Node rank 0 serves the store: stay until every node has read the records (briefly).
  const int readers = j.nnodes - (lost >= 0 ? 1 : 0);
  for (auto until = Clock::now() + 5s; Clock::now() < until;) {
    auto r = j.store->add(attempt_keys(attempt).at("read"), 0, until);
    if (!r || *r >= readers) break;
    std::this_thread::sleep_for(20ms);
  }
}

}  // namespace dd::launch
