// Cross-rank rule: two ranks of one communicator on the same GPU, read from NCCL's "Init START" lines (same
// host, same commId, same busId), so it is named even when the "Duplicate GPU detected" warning is not in the
// logs (NCCL_DEBUG=INFO without WARN lines kept, a log cut short, an older NCCL).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "logs/catalogue.h"
#include "logs/log_rules.h"

namespace dd::logs {

using report::Finding;
using report::Severity;

namespace {

void gpu_rules(const LogsResult& r, std::vector<Finding>& out) {
  // NCCL's own "Duplicate GPU detected" line already names the pair (nccl.duplicate_gpu): say it once.
  const auto& entries = Catalogue::builtin().entries();
  for (const auto& [i, hits] : r.hits)
    if (hits.count > 0 && i < entries.size() && entries[i].id == "nccl.duplicate_gpu") return;
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const ProcessFacts*>> by_gpu;
  for (const auto& p : r.processes)
    if (!p.bus_id.empty() && !p.comm_id.empty() && p.rank >= 0)
      by_gpu[{p.host, p.comm_id, p.bus_id}].push_back(&p);
  for (const auto& [key, procs] : by_gpu) {
    if (procs.size() < 2) continue;
    // Every one of them got through init: NCCL saw them as different hosts (NCCL_HOSTID, separate host
    // hashes) and accepted the sharing; no failure to explain.
    if (std::all_of(procs.begin(), procs.end(), [](const ProcessFacts* p) { return p->init_complete > 0; }))
      continue;
    const auto& [host, comm, bus] = key;
    std::string ranks;
    for (const auto* p : procs) ranks += (ranks.empty() ? "" : ", ") + std::to_string(p->rank);
    Finding f = logs_finding(
        "logs.gpu.shared", Severity::fail,
        fmt::format("ranks {} of one communicator run on the same GPU (busId {}) on {}", ranks, bus, host),
        "Give each rank its own GPU: call torch.cuda.set_device(LOCAL_RANK) (or pass device_id= to "
        "init_process_group) before the first NCCL call, and start no more ranks per node than it has GPUs.");
    for (const auto* p : procs)
      f.evidence.push_back(
          fmt::format("{}: Init START busId {} commId {} ({})", p->label(), bus, comm, p->file));
    out.push_back(std::move(f));
  }
}

}  // namespace

LogRule gpu_log_rule() {
  return {
      .name = "gpu",
      .fn = gpu_rules,
      .docs = {
          {"logs.gpu.shared", "Two ranks of one communicator on the same GPU",
           "NCCL's Init START lines show two ranks of one communicator (same commId) on the same host with "
           "the same busId: both use one GPU, which NCCL refuses (ncclInvalidUsage) or which halves the "
           "memory and speed of each. Usually set_device was not called before the first NCCL call, so every "
           "process stayed on device 0, or CUDA_VISIBLE_DEVICES gives every process the same GPU. Named even "
           "when the 'Duplicate GPU detected' warning is not in the logs."},
      }};
}

}  // namespace dd::logs
