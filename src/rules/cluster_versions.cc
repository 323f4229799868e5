// Cluster rule: the same driver, CUDA driver, NCCL libraries and distdoctor on every node.
#include <fmt/format.h>

#include "rules/cluster_rule.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

using Groups = std::map<std::string, std::vector<std::string>>;

void compare(const char* id, const char* what, const Groups& g, const std::string& fix,
             std::vector<Finding>* out) {
  if (g.empty()) return;
  if (g.size() == 1) {
    out->push_back(Finding{id, Severity::ok, fmt::format("{} {} on every node", what, g.begin()->first)});
    return;
  }
  Finding f{id, Severity::warn, fmt::format("{} differs across nodes ({} versions)", what, g.size())};
  for (const auto& [v, labels] : g)
    f.evidence.push_back(fmt::format("{}: {}", v.empty() ? "(none)" : v, join_labels(labels)));
  f.fix = fix;
  out->push_back(std::move(f));
}

std::vector<Finding> check_versions(const ClusterView& v) {
  Groups driver, cuda, nccl, dd;
  for (const auto& n : v.nodes) {
    if (!n.has_facts) continue;
    const auto& f = n.facts;
    std::string l = node_label(n);
    if (f.gpu.nvml_loaded && !f.gpu.driver_version.empty()) driver[f.gpu.driver_version].push_back(l);
    if (f.gpu.cuda_driver_version > 0)
      cuda[fmt::format("{}.{}", f.gpu.cuda_driver_version / 1000, f.gpu.cuda_driver_version % 1000 / 10)]
          .push_back(l);
    // Every NCCL found, in order: "2.21.5 (loader), 2.18.1 (site-packages)".
    std::string libs;
    for (const auto& lib : f.nccl.libs)
      libs += fmt::format("{}{} ({})", libs.empty() ? "" : ", ", lib.version.empty() ? "?" : lib.version,
                          lib.source);
    nccl[libs.empty() ? "no NCCL found" : libs].push_back(l);
    dd[f.host.distdoctor_version].push_back(l);
  }
  std::vector<Finding> out;
  compare("cluster.version.driver", "NVIDIA driver", driver,
          "Install the same driver version on every node (a mix can break CUDA IPC and NVLink/IB features).",
          &out);
  compare("cluster.version.cuda", "CUDA driver API version", cuda,
          "Install the same driver on every node so all nodes support the same CUDA version.", &out);
  bool any_nccl = false;
  for (const auto& [k, _] : nccl) any_nccl = any_nccl || k != "no NCCL found";
  if (any_nccl)
    compare(
        "cluster.version.nccl", "NCCL", nccl,
        "Use the same NCCL on every node (same container image or wheel); pass --nccl-lib to check the one "
        "your framework loads.",
        &out);
  compare("cluster.version.distdoctor", "distdoctor", dd, "Run the same distdoctor build on every node.",
          &out);
  return out;
}

}  // namespace

ClusterRule cluster_versions_rule() {
  return {
      "cluster.versions",
      check_versions,
      {{"cluster.version.driver", "NVIDIA driver version differs across nodes",
        "Nodes of one job run different NVIDIA driver versions. Jobs often still start, but features such "
        "as CUDA IPC, GPUDirect RDMA and the CUDA version a container may use then differ per node; mixed "
        "drivers are a common cause of failures that only happen on some nodes."},
       {"cluster.version.cuda", "CUDA driver API version differs across nodes",
        "The CUDA version the driver supports differs across nodes, so a binary built for the newer one "
        "fails on the others with 'CUDA driver version is insufficient'."},
       {"cluster.version.nccl", "NCCL libraries differ across nodes",
        "Each node lists every libnccl it found and where. Ranks running different NCCL versions may "
        "disagree on protocols and hang or fail in init; use the same NCCL everywhere."},
       {"cluster.version.distdoctor", "distdoctor versions differ across nodes",
        "The nodes run different distdoctor builds; findings may not be comparable."}}};
}

}  // namespace dd::rules
