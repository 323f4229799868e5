// died_worker_finding: a worker that died during a pass, with its last output and, for SIGKILL, whether the
// kernel's OOM killer sent it (see worker_death.h).
#include "comm/run/worker_death.h"

#include <signal.h>
#include <sys/wait.h>

#include <sstream>

#include "comm/run/comm_finding.h"
#include "comm/run/rank_text.h"
#include "probe/fs.h"
#include "probe/host_memory.h"
#include "probe/regular_file.h"
#include "report/comm_ids.h"

namespace dd::comm {

using report::Finding;

// The last lines of a worker's log, joined with " | ".
std::string tail_of_file(const std::string& path, size_t max_lines) {
  auto text = probe::read_regular_file_tail(path, 64 << 10);  // the last lines are in the last 64 KiB
  if (!text) return "";
  std::istringstream in(text->text);
  std::vector<std::string> lines;
  std::string l;
  while (std::getline(in, l)) {
    if (l.empty()) continue;
    lines.push_back(l);
    if (lines.size() > max_lines) lines.erase(lines.begin());
  }
  std::string s;
  for (auto& x : lines) s += (s.empty() ? "" : " | ") + x;
  return s;
}

namespace {

// Why a worker got SIGKILL, as far as is known without root: the memory cgroup's oom_kill count rose during
// the run (the OOM killer did it), did not (something else sent it), or cannot be read (a hint).
std::string oom_killer_evidence(int64_t kills_before) {
  const int64_t now = probe::read_oom_kills(*probe::make_real_fs());
  if (kills_before < 0 || now < 0)
    return "SIGKILL: often the kernel's OOM killer when memory runs out (dmesg names its victims; reading it "
           "usually needs root)";
  if (now > kills_before)
    return "the kernel's OOM killer killed " + std::to_string(now - kills_before) +
           " process(es) of this memory cgroup during the run (its oom_kill count went from " +
           std::to_string(kills_before) + " to " + std::to_string(now) + "): memory ran out";
  return "not the kernel's OOM killer (the memory cgroup's oom_kill count stayed at " + std::to_string(now) +
         "): something sent SIGKILL (a scheduler, a watchdog, a user)";
}

}  // namespace

Finding died_worker_finding(const RunRecord& rec, int w) {
  const auto& ws = rec.sup.workers()[w];
  const RankState& s = rec.watch.ranks()[rec.layout.groups[w][0]];
  std::string during = s.last_op >= 0 ? "during " + op_label(rec.opt.ops[s.last_op])
                                      : (s.init_done ? "after init" : "during communicator init");
  std::string tail = tail_of_file(rec.specs[w].log_path, 3);
  std::vector<std::string> ev = {"pid " + std::to_string(ws.pid) + ", " +
                                 process::describe_wait_status(ws.wait_status)};
  if (!tail.empty()) ev.push_back("its last output: " + tail);
  if (rec.opt.engine == rules::EngineKind::gloo && WIFSIGNALED(ws.wait_status) &&
      WTERMSIG(ws.wait_status) == SIGABRT && !s.init_done)
    ev.push_back(
        "Gloo aborts a process that cannot connect to a peer: check that the interface (" +
        (rec.opt.gloo_iface.empty() ? std::string("GLOO_SOCKET_IFNAME or --gloo-host") : rec.opt.gloo_iface) +
        ") is up on every node and routes to the other ranks");
  ev.push_back("the other ranks were stopped");
  const bool sigkill = WIFSIGNALED(ws.wait_status) && WTERMSIG(ws.wait_status) == SIGKILL;
  const std::string oom = sigkill ? oom_killer_evidence(rec.oom_kills_before) : "";
  if (!oom.empty()) ev.insert(ev.begin() + 1, oom);
  const bool by_oom_killer = oom.rfind("the kernel's OOM killer killed", 0) == 0;
  return comm_failure(
      report::comm_id::kWorkerDied,
      "rank " + rank_list(rec.layout.groups[w]) +
          (by_oom_killer ? " was killed by the kernel's OOM killer (SIGKILL) "
                         : " died (" + process::describe_wait_status(ws.wait_status) + ") ") +
          during,
      ev,
      "A rank that dies takes the whole job down: look at its log (OOM killer: dmesg; Xid errors; a "
      "signal sent by the scheduler).",
      rec.layout.groups[w][0]);
}

}  // namespace dd::comm
