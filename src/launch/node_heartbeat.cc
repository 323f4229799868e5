// NodeHeartbeat (see node_heartbeat.h).
#include "launch/node_heartbeat.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>

#include "common/json_limits.h"
#include "common/safe_text.h"
#include "probe/proc_probe.h"

namespace dd::launch {

using namespace std::chrono_literals;

NodeHeartbeat::NodeHeartbeat(const AttemptSetup& s, int attempt, AttemptStop& stop)
    : s_(s), attempt_(attempt), stop_(stop) {
  if (s.joined.node_rank == 0) board_.emplace(s.joined.nnodes, Clock::now());
}

void NodeHeartbeat::beat(WorkerSet& workers) {
  const auto now = Clock::now();
  const double window = s_.joined.job.hang_timeout_s;
  Beat b;
  b.seq = ++seq_;
  b.done = done_set_;
  auto last = workers.t0();
  for (LocalWorker& me : workers.all()) {
    if (!me.proc) continue;
    last = std::max(last, me.last_output);
    if (!me.running()) continue;
    b.alive++;
    b.all_spoke = b.all_spoke && me.last_output > workers.t0();
    if (window <= 0) continue;
    probe::ProcSnapshot p = probe::read_proc_stat(me.proc->pid);  // only its CPU time
    if (!p.ok) continue;
    me.cpu.sample(now, p.cpu_s);
    double used = me.cpu.used_over(window, now);
    if (used >= 0 && used < kIdleCpuShare * window) b.idle.push_back(me.rank);
  }
  b.silent_s = std::chrono::duration<double>(now - last).count();
  if (s_.joined.node_rank == 0) return lead_checks(b);
  if (auto st = s_.joined.store->set(attempt_keys(attempt_).of("beat", s_.joined.node_rank),
                                     json_text(nlohmann::json(b)), now + 3s);
      !st)
    stop_.store_failed(st.error(), "while sending a heartbeat");
}

void NodeHeartbeat::lead_checks(const Beat& mine) {
  const JoinedNodes& j = s_.joined;
  const auto now = Clock::now();
  board_->update(0, mine, now);
  for (int n = 1; n < j.nnodes; ++n) {
    auto key = attempt_keys(attempt_).of("beat", n);
    auto have = j.store->check({key}, now + 1s);
    if (!have || !(*have)[0]) continue;
    auto v = j.store->get(key, now + 1s);
    if (!v) continue;
    if (auto beat = dd::parse_record<Beat>(*v)) board_->update(n, *beat, now);
  }
  double silent_for = 0;
  int lost = board_->lost_node(s_.lost_after_s, now, &silent_for);
  if (lost > 0) {
    StopEvent ev;
    ev.cause = StopCause::node_lost;
    ev.node_rank = lost;
    ev.detail = fmt::format(
        "no heartbeat from node rank {} ({}) for {:.1f} s: its launcher died, or the network to "
        "it is down",
        lost, j.nodes[size_t(lost)].host, silent_for);
    return stop_.raise(ev);
  }
  std::string why;
  if (j.job.hang_timeout_s > 0 && board_->hung(j.job.hang_timeout_s, &why)) {
    StopEvent ev;
    ev.cause = StopCause::hang;
    ev.detail = why;
    stop_.raise(ev);
  }
}

void NodeHeartbeat::poll_done(const WorkerSet& workers) {
  const JoinedNodes& j = s_.joined;
  if (!done_set_) {
    for (const LocalWorker& w : workers.all())  // those started
      if (w.proc &&
          (!w.proc->exited || WIFSIGNALED(w.proc->wait_status) || WEXITSTATUS(w.proc->wait_status) != 0))
        return;
    done_set_ = true;
    if (auto st = j.store->set(attempt_keys(attempt_).of("done", j.node_rank), "1", Clock::now() + 3s); !st)
      return stop_.store_failed(st.error(), "while reporting success");
  }
  std::vector<std::string> names;
  for (int n = 0; n < j.nnodes; ++n) names.push_back(attempt_keys(attempt_).of("done", n));
  auto have = j.store->check(names, Clock::now() + 3s);
  if (!have) return stop_.store_failed(have.error(), "while waiting for the other nodes to finish");
  all_done_ = std::all_of(have->begin(), have->end(), [](bool b) { return b; });
}

}  // namespace dd::launch
