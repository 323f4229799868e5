// Rule: a GPU already in use before the job starts (memory used, or compute processes of other jobs).
// Processes of the job being checked (the check itself, its ancestors, its children, its siblings under the
// same launcher, its process group, other distdoctor processes) are never proposed for killing: they are
// reported as info.
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "rules/node_rules.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

// An idle GPU shows a few MiB used (driver reservations); a CUDA context alone takes ~300-500 MiB.
constexpr int64_t kBusyMiB = 1024;

// Pids of ancestors that hold a GPU themselves: their parent launched the job (torchrun, mpirun, srun).
std::vector<int64_t> job_launchers(const probe::NodeFacts& f) {
  std::vector<int64_t> out;
  const auto& a = f.host.ancestors;
  for (size_t k = 0; k + 1 < a.size(); k++)
    for (const auto& g : f.gpu.gpus)
      for (const auto& p : g.processes)
        if (p.pid == a[k]) out.push_back(a[k + 1]);
  return out;
}

// Whether the check runs inside a job: under a launcher (one of its ancestors' command lines names one) or
// with a launcher's per-rank variables. Only then are the check's siblings and process group the job's; a
// shell that started a GPU process and the check side by side is not a job.
bool runs_in_a_job(const probe::NodeFacts& f) {
  static const char* const kLaunchers[] = {"torchrun",
                                           "torch.distributed.run",
                                           "torch.distributed.launch",
                                           "paddle.distributed.launch",
                                           "msrun",
                                           "mpirun",
                                           "mpiexec",
                                           "orted",
                                           "prted",
                                           "srun",
                                           "slurmstepd",
                                           "hydra_pmi_proxy",
                                           "deepspeed",
                                           "accelerate",
                                           "horovodrun",
                                           "distdoctor"};
  for (const auto& cmd : f.host.ancestor_commands) {
    std::istringstream words(cmd);
    for (std::string w; words >> w;) {
      const std::string base = w.substr(w.rfind('/') + 1);
      for (const char* l : kLaunchers)
        if (base == l) return true;
    }
  }
  for (const char* v : {"RANK", "LOCAL_RANK", "TORCHELASTIC_RUN_ID", "SLURM_STEP_ID", "OMPI_COMM_WORLD_RANK",
                        "PMI_RANK", "PMIX_RANK", "PADDLE_TRAINER_ID", "MS_ROLE"})
    if (f.env.count(v)) return true;
  return false;
}

// Why a GPU process belongs to the job being checked ("" when it does not, as far as the facts show).
std::string job_relation(const probe::NodeFacts& f, const probe::GpuProcess& p,
                         const std::vector<int64_t>& launchers) {
  const auto& h = f.host;
  if (p.pid <= 0) return "";
  if (std::find(h.ancestors.begin(), h.ancestors.end(), p.pid) != h.ancestors.end()) return "runs this check";
  if (h.pid > 0 && p.ppid == h.pid) return "started by this check";
  if (p.name == "distdoctor") return "a distdoctor process";
  const bool job = runs_in_a_job(f);
  if (job && h.ppid > 1 && p.ppid == h.ppid) return fmt::format("same parent as this check (pid {})", h.ppid);
  if (p.ppid > 1 && std::find(launchers.begin(), launchers.end(), p.ppid) != launchers.end())
    return fmt::format("same launcher as this check (pid {})", p.ppid);
  if (job && h.pgid > 1 && p.pgid == h.pgid)
    return fmt::format("same process group as this check ({})", h.pgid);
  return "";
}

std::string describe_proc(const probe::GpuProcess& p) {
  return fmt::format("pid {} {} {}", p.pid, p.name.empty() ? "?" : p.name,
                     p.used_mib >= 0 ? fmt::format("{} MiB", p.used_mib) : "memory unknown");
}

void check_one_gpu(const probe::NodeFacts& f, const probe::Gpu& g, const std::vector<int64_t>& launchers,
                   std::vector<Finding>& out) {
  std::vector<std::string> procs, pids, own;
  int64_t own_mib = 0;
  for (const auto& p : g.processes) {
    if (p.pid == f.host.pid && p.pid != 0) continue;  // distdoctor itself
    if (auto why = job_relation(f, p, launchers); !why.empty()) {
      own.push_back(describe_proc(p) + " (" + why + ")");
      own_mib += std::max<int64_t>(p.used_mib, 0);
      continue;
    }
    procs.push_back(describe_proc(p));
    pids.push_back(std::to_string(p.pid));
  }
  bool mem = g.memory_used_mib - own_mib > kBusyMiB;
  if (procs.empty() && !mem) {
    if (!own.empty())
      out.push_back({"gpu.in_use_by_job", Severity::info,
                     fmt::format("GPU{} is in use by the job being checked: {}", g.index, join(own, "; ")),
                     own});
    return;
  }
  std::vector<std::string> ev = procs;
  for (const auto& o : own) ev.push_back("of this job, not to stop: " + o);
  ev.push_back(fmt::format("memory used {} / {} MiB, utilization {}%", g.memory_used_mib, g.memory_total_mib,
                           g.utilization_pct));
  std::string title =
      procs.empty() ? fmt::format("GPU{} already has {} MiB in use (no process visible: another container?)",
                                  g.index, g.memory_used_mib)
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

std::vector<Finding> check_gpu_busy(const probe::NodeFacts& f, const CheckOptions&) {
  std::vector<Finding> out;
  if (f.gpu.gpus.empty()) return out;
  const auto launchers = job_launchers(f);
  for (const auto& g : f.gpu.gpus) check_one_gpu(f, g, launchers, out);
  if (std::none_of(out.begin(), out.end(), [](const Finding& x) { return x.id == "gpu.busy"; }))
    out.push_back({"gpu.idle",
                   Severity::ok,
                   out.empty() ? fmt::format("{} GPU(s) idle (no process, memory free)", f.gpu.gpus.size())
                               : fmt::format("{} GPU(s) free of other jobs", f.gpu.gpus.size()),
                   {}});
  return out;
}

}  // namespace

NodeRule gpu_busy_rule() {
  return {"gpu.busy",
          check_gpu_busy,
          {{"gpu.idle", "GPUs idle",
            "No compute process of another job runs on any GPU and no memory is in use."},
           {"gpu.busy", "GPU already in use",
            "Another process (a leftover rank of a crashed job, a notebook, another user's job) holds memory "
            "or runs "
            "kernels on this GPU. The new job then hits \"CUDA out of memory\" at start, runs slowly, or "
            "NCCL init "
            "hangs because a zombie rank still holds the GPU. Memory used with no visible process usually "
            "means a "
            "process in another container or PID namespace. Processes of the job being checked are listed as "
            "such and never proposed for killing."},
           {"gpu.in_use_by_job", "GPU used by the job being checked",
            "The processes on this GPU belong to the job that runs the check: the process that started "
            "distdoctor (an ancestor), its children, processes with the same parent or launcher (the other "
            "ranks under torchrun, mpirun or srun), the same process group, or distdoctor itself. They are "
            "expected there; nothing to stop."}}};
}

}  // namespace dd::rules
