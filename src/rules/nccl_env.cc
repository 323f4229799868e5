// Rule: every NCCL_* setting in effect (environment and nccl.conf), read with NCCL's own grammar before any
// collective runs: NCCL_ALGO/NCCL_PROTO tokens per NCCL version, NCCL_NET against the node's RDMA ports,
// numeric switches and sizes, path and debug levels, interface/HCA list syntax, and names NCCL does not read
// (typos). The per-value checks are in nccl_env_values.cc; the docs in nccl_env_docs.cc.
#include <fmt/format.h>
#include <strings.h>

#include <set>

#include "nccl/env_names.h"
#include "nccl/ib_select.h"
#include "nccl/if_list.h"
#include "rules/nccl_env_checks.h"
#include "rules/node_rules.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

bool check_nccl_if_list(const NcclEnvItem& it) {
  const bool hca = it.name == "NCCL_IB_HCA";
  if (!hca && it.name != "NCCL_OOB_NET_IFNAME") return false;
  const int max = hca ? nccl::kNcclMaxIbDevs : nccl::kNcclMaxIfs;
  nccl::IfList l = nccl::parse_if_list(it.value, max);
  std::vector<std::string> ips;
  for (const auto& e : l.entries)
    if (looks_like_ip(e.prefix)) ips.push_back(e.prefix);
  std::string problem;
  if (!ips.empty())
    problem = fmt::format("names {} by address; NCCL matches names only", join(ips));
  else if (l.overlong)
    problem = "has an entry of 64+ characters (overflows NCCL's buffer)";
  else if (l.dropped > 0)
    problem = fmt::format("lists more than {} entries; NCCL ignores {} of them", max, l.dropped);
  if (problem.empty()) return true;
  it.out->push_back({"nccl.if_list.syntax",
                     Severity::warn,
                     fmt::format("{}=\"{}\" {}", it.name, it.value, problem),
                     {it.described},
                     hca ? "Name devices as `ibv_devices` shows them: NCCL_IB_HCA==mlx5_0,mlx5_1 ('=' exact, "
                           "'^' excludes, :PORT)"
                         : "Name interfaces as `ip -br link` shows them ('=' exact, '^' excludes)"});
  return true;
}

bool check_nccl_net(const NcclEnvItem& it) {
  if (it.name != "NCCL_NET") return false;
  const auto& f = *it.facts;
  // NCCL compares the name with strcasecmp.
  const bool ib = strcasecmp(it.value.c_str(), "IB") == 0;
  if (strcasecmp(it.value.c_str(), "Socket") == 0) return true;
  if (!ib) {
    auto plugin = nccl_setting(f, "NCCL_NET_PLUGIN");
    it.out->push_back(
        {"nccl.net.unknown",
         plugin ? Severity::info : Severity::warn,
         fmt::format(
             "NCCL_NET=\"{}\" is neither of NCCL's own networks (IB, Socket): only a net plugin named "
             "so can serve it, else NCCL init fails (\"Failed to initialize any NET plugin\" / "
             "\"network {} not found\")",
             it.value, it.value),
         {it.described, describe_setting(f, "NCCL_NET_PLUGIN")},
         "export NCCL_NET=IB (InfiniBand/RoCE) or NCCL_NET=Socket (TCP), or the name your plugin reports; "
         "unset NCCL_NET to let NCCL choose"});
    return true;
  }
  auto disable = nccl_setting(f, "NCCL_IB_DISABLE");
  const auto sel = nccl::nccl_select_ib_ports(f.ib, nccl_setting(f, "NCCL_IB_HCA"));
  std::string why;
  if (f.ib.devices.empty())
    why = f.ib.sysfs_present ? "this node has no InfiniBand/RoCE device (/sys/class/infiniband is empty)"
                             : "this node has no InfiniBand/RoCE device (no /sys/class/infiniband)";
  else if (disable && nccl_int(*disable) == 1)
    why = describe_setting(f, "NCCL_IB_DISABLE") + " turns the IB transport off";
  else if (sel.active.empty())
    why = fmt::format("none of its {} RDMA device(s) has an ACTIVE port", f.ib.devices.size());
  else if (sel.selected.empty())
    why = describe_setting(f, "NCCL_IB_HCA") + " selects none of the active ports";
  else if (f.ib.userspace_probed && f.ib.dev_infiniband == 0)
    why = "there is no /dev/infiniband here, so verbs cannot open the devices";
  else if (f.ib.userspace_probed && f.ib.verbs_lib.empty())
    why = "libibverbs.so.1 is not installed";
  if (why.empty()) return true;
  it.out->push_back(
      {"nccl.net.ib_unavailable",
       Severity::fail,
       fmt::format("NCCL_NET=\"{}\" but {}: NCCL init fails (\"Failed to initialize any NET plugin\"; before "
                   "2.27 \"network IB not found\")",
                   it.value, why),
       {it.described, fmt::format("rdma_devices={}", f.ib.devices.size()),
        "nccl_ib_ports_active=" + std::to_string(sel.active.size())},
       "unset NCCL_NET (NCCL then uses TCP sockets here), or export NCCL_NET=Socket; run on nodes with an "
       "active IB/RoCE port for IB"});
  return true;
}

namespace {

// The name itself: known, retired, someone else's, or a typo.
void check_nccl_env_name(const NcclEnvItem& it) {
  if (nccl::nccl_env_name_known(it.name) || nccl::nccl_env_name_foreign(it.name)) return;
  auto retired = nccl::nccl_env_name_retired(it.name);
  if (!retired.empty()) {
    it.out->push_back({"nccl.env.unknown_name",
                       Severity::info,
                       fmt::format("{} is no longer read by NCCL ({}): it has no effect", it.name, retired),
                       {it.described}});
    return;
  }
  auto near = nccl::nccl_env_nearest_name(it.name);
  if (!near.empty()) {
    it.out->push_back(
        {"nccl.env.typo",
         Severity::warn,
         fmt::format("{} is not an NCCL setting (NCCL ignores it): did you mean {}?", it.name, near),
         {it.described},
         fmt::format("Rename it: export {}={}", near, it.value)});
    return;
  }
  it.out->push_back({"nccl.env.unknown_name",
                     Severity::info,
                     fmt::format("{} is not a setting NCCL 2.12-2.30 reads (a plugin's, or a typo)", it.name),
                     {it.described}});
}

// Every NCCL_* name in effect: nccl.settings (env and config files) and facts.env.
std::set<std::string> nccl_names_in_effect(const probe::NodeFacts& f) {
  std::set<std::string> names;
  for (const auto& [k, v] : f.nccl.settings)
    if (k.rfind("NCCL_", 0) == 0) names.insert(k);
  for (const auto& [k, v] : f.env)
    if (k.rfind("NCCL_", 0) == 0) names.insert(k);
  return names;
}

std::vector<Finding> check_nccl_env(const probe::NodeFacts& f, const CheckOptions&) {
  std::vector<Finding> out;
  const int version = nccl_min_version_code(f);
  int checked = 0;
  for (const auto& name : nccl_names_in_effect(f)) {
    NcclEnvItem it{&f, name, nccl_setting(f, name).value_or(""), describe_setting(f, name), version, &out};
    check_nccl_env_name(it);
    bool known = check_nccl_tune_list(it) || check_nccl_net(it) || check_nccl_number(it) ||
                 check_nccl_level(it) || check_nccl_debug(it) || check_nccl_if_list(it);
    if (known) checked++;
  }
  bool bad = false;
  for (const auto& x : out) bad = bad || x.severity >= Severity::warn;
  if (!bad && checked > 0)
    out.push_back({"nccl.env.ok",
                   Severity::ok,
                   fmt::format("{} NCCL setting(s) read with NCCL {}'s grammar: all valid", checked,
                               nccl_version_string(version)),
                   {}});
  return out;
}

}  // namespace

NodeRule nccl_env_rule() { return {"nccl.env", check_nccl_env, nccl_env_docs()}; }

}  // namespace dd::rules
