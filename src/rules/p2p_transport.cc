// Rule: intra-node transports. NCCL_P2P_DISABLE / NCCL_SHM_DISABLE set (slow paths), GPU pairs without P2P
// (nvidia-smi topo -p2p r), and NVLinks down on one GPU while up on the others.
#include <fmt/format.h>

#include <algorithm>

#include "rules/node_rules.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

const char* p2p_meaning(const std::string& s) {
  if (s == "CNS") return "chipset not supported";
  if (s == "GNS") return "GPU not supported";
  if (s == "TNS") return "topology not supported";
  if (s == "NS") return "not supported";
  if (s == "U") return "unknown";
  return "not OK";
}

// NCCL_P2P_DISABLE / NCCL_SHM_DISABLE set, or set to something NCCL reads as 0.
void add_disabled_settings(const probe::NodeFacts& f, size_t n, std::vector<Finding>& out) {
  for (const char* var : {"NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE"}) {
    auto v = nccl_setting(f, var);
    if (v && nccl_int_unparsed(*v)) {
      out.push_back({"nccl.setting_not_a_number",
                     Severity::warn,
                     fmt::format("{}=\"{}\" is read by NCCL as 0: the setting has no effect", var, *v),
                     {describe_setting(f, var)},
                     fmt::format("Use 0 or 1 (NCCL parses it with strtoll), or unset {}", var)});
      continue;
    }
    if (!v || nccl_int(*v) == 0) continue;
    bool p2p = std::string(var) == "NCCL_P2P_DISABLE";
    out.push_back(
        {p2p ? "nccl.p2p_disabled" : "nccl.shm_disabled",
         n >= 2 ? Severity::warn : Severity::info,
         fmt::format("{}: NCCL {} between GPUs of this node", describe_setting(f, var),
                     p2p ? "copies through host memory instead of NVLink/PCIe P2P"
                         : "cannot use shared memory; traffic goes through the network"),
         {describe_setting(f, var)},
         fmt::format("unset {}   (remove it from the job script and /etc/nccl.conf, ~/.nccl.conf)", var)});
  }
}

// GPU pairs whose P2P read status is not OK.
void add_p2p_matrix(const probe::NodeFacts& f, size_t n, std::vector<Finding>& out) {
  std::vector<std::string> bad;
  const auto& m = f.gpu.p2p_read;
  for (size_t i = 0; i < m.size() && i < n; i++)
    for (size_t j = i + 1; j < m[i].size() && j < n; j++)
      if (m[i][j] != "OK" && m[i][j] != "X" && !m[i][j].empty())
        bad.push_back(fmt::format("GPU{}-GPU{} {} ({})", i, j, m[i][j], p2p_meaning(m[i][j])));
  if (!bad.empty())
    out.push_back(
        {"gpu.p2p.unsupported", Severity::warn,
         fmt::format("P2P not available between {} GPU pair(s): NCCL routes them through host memory",
                     bad.size()),
         bad,
         "Check `nvidia-smi topo -p2p r`: enable IOMMU passthrough / disable ACS on PCIe switches, or place "
         "the job on GPUs connected by NVLink"});
}

// NVLinks: a GPU with fewer active links than its peers has a broken link (cable/bridge, or a degraded GPU).
// Returns the most active links any GPU has (-1 when unknown).
int add_nvlink_down(const probe::NodeFacts& f, std::vector<Finding>& out) {
  int max_active = -1;
  for (const auto& g : f.gpu.gpus) max_active = std::max(max_active, g.nvlinks_active);
  std::vector<std::string> degraded;
  if (max_active > 0)
    for (const auto& g : f.gpu.gpus)
      if (g.nvlinks_active >= 0 && g.nvlinks_active < max_active)
        degraded.push_back(fmt::format("GPU{} {}/{} NVLinks active", g.index, g.nvlinks_active,
                                       g.nvlinks_total >= 0 ? g.nvlinks_total : max_active));
  if (!degraded.empty())
    out.push_back(
        {"gpu.nvlink.down", Severity::warn,
         fmt::format("NVLinks down on {} GPU(s) while others have {} active", degraded.size(), max_active),
         degraded,
         "nvidia-smi nvlink -s; check Fabric Manager (NVSwitch systems) and dmesg for Xid 74; a GPU reset or "
         "service may be needed"});
  return max_active;
}

std::vector<Finding> check_p2p(const probe::NodeFacts& f, const CheckOptions&) {
  std::vector<Finding> out;
  size_t n = f.gpu.gpus.size();
  add_disabled_settings(f, n, out);
  if (n < 2) return out;
  add_p2p_matrix(f, n, out);
  int max_active = add_nvlink_down(f, out);
  const auto& m = f.gpu.p2p_read;
  if (out.empty() ||
      std::none_of(out.begin(), out.end(), [](auto& x) { return x.severity >= Severity::warn; })) {
    std::string how = max_active > 0 ? fmt::format("{} NVLinks per GPU", max_active) : "no NVLink";
    out.push_back(
        {"gpu.p2p.ok",
         Severity::ok,
         fmt::format("{} GPUs, {}, P2P {}", n, how, m.empty() ? "matrix not read" : "OK between all pairs"),
         {}});
  }
  return out;
}

}  // namespace

NodeRule p2p_transport_rule() {
  return {
      "gpu.p2p",
      check_p2p,
      {{"nccl.setting_not_a_number", "An NCCL switch is not a number",
        "NCCL reads its integer settings (NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, NCCL_IB_DISABLE, ...) with "
        "strtoll: \"true\", \"yes\" or \"on\" read as 0, so the switch silently does nothing. Use 0 or 1."},
       {"gpu.p2p.ok", "Intra-node GPU paths", "Every GPU pair can use P2P and no NVLink is down."},
       {"nccl.p2p_disabled", "NCCL_P2P_DISABLE is set",
        "NCCL_P2P_DISABLE=1 stops NCCL from using NVLink or PCIe peer-to-peer between GPUs; traffic goes "
        "through host shared memory, several times slower. It is often copied from a forum answer for a "
        "different machine (e.g. consumer GPUs without P2P)."},
       {"nccl.shm_disabled", "NCCL_SHM_DISABLE is set",
        "NCCL_SHM_DISABLE=1 stops NCCL from using shared memory between processes of one node where P2P is "
        "not "
        "possible; NCCL then falls back to the network transport."},
       {"gpu.p2p.unsupported", "P2P not supported between some GPUs",
        "nvidia-smi topo -p2p r reports a status other than OK for these pairs (CNS chipset, GNS GPU, TNS "
        "topology not supported). NCCL routes them through host memory. In VMs and behind PCIe switches with "
        "ACS enabled, P2P is often blocked."},
       {"gpu.nvlink.down", "NVLinks down on some GPUs",
        "A GPU has fewer active NVLinks than its peers. Collective bandwidth drops to that GPU's links (or "
        "to "
        "PCIe), and on NVSwitch systems Fabric Manager may not have trained the links."}}};
}

}  // namespace dd::rules
