// Rule: a GPU already in use before the job starts (memory used, or compute processes of other jobs).
#include <fmt/format.h>

#include "rules/node_rules.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

// An idle GPU shows a few MiB used (driver reservations); a CUDA context alone takes ~300-500 MiB.
constexpr int64_t kBusyMiB = 1024;

std::vector<Finding> check_gpu_busy(const probe::NodeFacts& f, const CheckOptions&) {
  std::vector<Finding> out;
  if (f.gpu.gpus.empty()) return out;
  for (const auto& g : f.gpu.gpus) {
    std::vector<std::string> procs, pids;
    for (const auto& p : g.processes) {
      if (p.pid == f.host.pid && p.pid != 0) continue;  // distdoctor itself
      procs.push_back(fmt::format("pid {} {} {}", p.pid, p.name.empty() ? "?" : p.name,
                                  p.used_mib >= 0 ? fmt::format("{} MiB", p.used_mib) : "memory unknown"));
      pids.push_back(std::to_string(p.pid));
    }
    bool mem = g.memory_used_mib > kBusyMiB;
    if (procs.empty() && !mem) continue;
    std::vector<std::string> ev = procs;
    ev.push_back(fmt::format("memory used {} / {} MiB, utilization {}%", g.memory_used_mib,
                             g.memory_total_mib, g.utilization_pct));
    std::string title =
        procs.empty()
            ? fmt::format("GPU{} already has {} MiB in use (no process visible: another container?)", g.index,
                          g.memory_used_mib)
            : fmt::format("GPU{} is busy: {} process(es) ({}), {} MiB used", g.index, procs.size(),
                          join(procs, "; "), g.memory_used_mib);
    out.push_back({"gpu.busy", Severity::warn, title, ev,
                   procs.empty()
                       ? "nvidia-smi on the host shows the owner; wait for it or pick other GPUs with "
                         "CUDA_VISIBLE_DEVICES"
                       : fmt::format("Stop leftover jobs (kill {}) or choose free GPUs with "
                                     "CUDA_VISIBLE_DEVICES",
                                     join(pids, " "))});
  }
  if (out.empty())
    out.push_back({"gpu.idle",
                   Severity::ok,
                   fmt::format("{} GPU(s) idle (no process, memory free)", f.gpu.gpus.size()),
                   {}});
  return out;
}

}  // namespace

NodeRule gpu_busy_rule() {
  return {"gpu.busy",
          check_gpu_busy,
          {{"gpu.idle", "GPUs idle", "No compute process runs on any GPU and no memory is in use."},
           {"gpu.busy", "GPU already in use",
            "Another process (a leftover rank of a crashed job, a notebook, another user's job) holds memory "
            "or runs "
            "kernels on this GPU. The new job then hits \"CUDA out of memory\" at start, runs slowly, or "
            "NCCL init "
            "hangs because a zombie rank still holds the GPU. Memory used with no visible process usually "
            "means a "
            "process in another container or PID namespace."}}};
}

}  // namespace dd::rules
