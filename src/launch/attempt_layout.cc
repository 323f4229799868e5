// agree_layout, worker_log_path and settle_root_cause (see attempt.h).
#include <fmt/format.h>

#include "common/json_limits.h"
#include "common/safe_text.h"
#include "launch/attempt.h"
#include "launch/free_ports.h"
#include "launch/job_settings.h"
#include "logs/analyze.h"
#include "logs/catalogue.h"
#include "report/first_failure.h"

namespace dd::launch {

using namespace std::chrono_literals;
using rendezvous::Clock;

std::string worker_log_path(const std::string& run_dir, int attempt, int node_rank, int rank) {
  return fmt::format("{}/{}/node{}.rank{}.log", run_dir, attempt, node_rank, rank);
}

std::string companion_log_path(const std::string& run_dir, int attempt, int node_rank,
                               std::string_view role) {
  return fmt::format("{}/{}/node{}.{}.log", run_dir, attempt, node_rank, role);
}

Result<JobLayout> agree_layout(const AttemptSetup& s, int attempt) {
  const JoinedNodes& j = s.joined;
  const NodeHello& me = j.nodes[size_t(j.node_rank)];
  auto ports = pick_free_ports(me.nproc + (j.node_rank == 0 && j.job.job_port == 0 ? 1 : 0));
  if (!ports) return ports.error();
  NodeSlot slot{j.node_rank, me.host, me.addr, me.nproc, {}};
  slot.ports.assign(ports->begin(), ports->begin() + me.nproc);
  nlohmann::json js = {{"ports", slot.ports}};
  if (j.node_rank == 0) js["master_port"] = j.job.job_port ? j.job.job_port : ports->back();
  const auto deadline = Clock::now() + std::chrono::milliseconds(int64_t(s.args.cluster.timeout_s * 1000));
  if (auto st = j.store->set(attempt_keys(attempt).of("slot", j.node_rank), json_text(js), deadline); !st)
    return st.error();
  JobLayout layout;
  layout.master_addr = j.job.master_addr;
  layout.job_id = j.job.job_id;
  layout.attempt = attempt;
  layout.max_restarts = j.job.max_restarts;
  for (int n = 0; n < j.nnodes; ++n) {
    auto v = j.store->get(attempt_keys(attempt).of("slot", n), deadline);
    if (!v)
      return Error::make(v.error().kind, fmt::format("node rank {} did not start attempt {}: {}", n, attempt,
                                                     v.error().message()));
    auto p = dd::parse_json_or_discarded(*v);
    if (p.is_discarded()) return Error::make(ErrorKind::protocol, fmt::format("node rank {}: bad slot", n));
    const NodeHello& h = j.nodes[size_t(n)];
    layout.nodes.push_back(NodeSlot{n, h.host, h.addr, h.nproc, p.value("ports", std::vector<int>{})});
    if (n == 0) layout.master_port = p.value("master_port", 0);
  }
  return layout;
}

void settle_root_cause(AttemptRecord& rec) {
  const bool scheduler_stop = rec.stop.cause == StopCause::scheduler_failed;
  if (rec.stop.cause != StopCause::worker_failed && !scheduler_stop) return;
  // MindSpore's scheduler (rank -1) competes with the ranks: whichever failed first is the cause
  // (report::first_failure, by the wall-clock time each ended).
  std::vector<const RankRecord*> failed;
  std::vector<bool> is_scheduler;
  std::vector<report::Failure> failures;
  const auto consider = [&](const RankRecord& r, bool scheduler) {
    if (!r.failed()) return;
    failed.push_back(&r);
    is_scheduler.push_back(scheduler);
    failures.push_back({.time = r.end_wall_ms});
  };
  for (const auto& n : rec.nodes) {
    for (const auto& r : n.ranks) consider(r, false);
    if (n.scheduler.pid > 0) consider(n.scheduler, true);
  }
  const auto cause = report::first_failure(failures);
  const RankRecord* first = cause ? failed[*cause] : nullptr;
  const bool first_is_scheduler = cause && is_scheduler[*cause];
  if (!first || (first_is_scheduler ? scheduler_stop : !scheduler_stop && first->rank == rec.stop.rank))
    return;
  if (rec.stop.root.end_wall_ms > 0 && rec.stop.root.end_wall_ms <= first->end_wall_ms) return;
  rec.stop.cause = first_is_scheduler ? StopCause::scheduler_failed : StopCause::worker_failed;
  rec.stop.root = *first;
  rec.stop.rank = first->rank;
  rec.stop.node_rank = first->node_rank;
  std::string text;
  for (const auto& l : first->tail) text += l + "\n";
  rec.stop.diagnosis = logs::match_text(text, logs::Catalogue::builtin());
}

}  // namespace dd::launch
