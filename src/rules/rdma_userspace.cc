// Rule: RDMA devices the kernel shows that NCCL still cannot use, because user space lacks something: no
// /dev/infiniband (a container started without the verbs devices), no libibverbs.so.1, or no provider
// driver for the device (libmlx5 for mlx5_*). NCCL then reports "NET/IB : No device found" and falls back
// to TCP sockets: a warning, as loud as that fallback (info where IB is switched off anyway).
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "rules/node_rules.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

// rdma-core provider names, matched as prefixes of device names (mlx5_bond_0 needs mlx5).
constexpr std::array<const char*, 14> kProviders = {"mlx5", "mlx4",  "bnxt_re", "irdma",     "efa",
                                                    "rxe",  "siw",   "hns",     "qedr",      "erdma",
                                                    "mana", "cxgb4", "ocrdma",  "vmw_pvrdma"};

// Devices whose provider is not installed: "mlx5_0 (mlx5)".
std::vector<std::string> devices_without_provider(const probe::IbFacts& ib) {
  std::vector<std::string> out;
  for (const auto& d : ib.devices)
    for (const char* p : kProviders)
      if (d.name.rfind(p, 0) == 0) {
        if (std::find(ib.verbs_providers.begin(), ib.verbs_providers.end(), p) == ib.verbs_providers.end())
          out.push_back(fmt::format("{} ({})", d.name, p));
        break;
      }
  return out;
}

// NCCL would not use IB here anyway (NCCL_IB_DISABLE=1 or NCCL_NET=Socket): the gap is only info.
bool ib_switched_off(const probe::NodeFacts& f) {
  auto dis = nccl_setting(f, "NCCL_IB_DISABLE");
  auto net = nccl_setting(f, "NCCL_NET");
  return (dis && nccl_int(*dis) == 1) || (net && (*net == "Socket" || *net == "socket"));
}

std::vector<Finding> check_rdma_userspace(const probe::NodeFacts& f, const CheckOptions&) {
  const auto& ib = f.ib;
  if (ib.devices.empty() || !ib.userspace_probed) return {};
  const Severity sev = ib_switched_off(f) ? Severity::info : Severity::warn;
  std::vector<std::string> names;
  for (const auto& d : ib.devices) names.push_back(d.name);
  std::vector<std::string> ev = {"rdma_devices=" + join(names, ","),
                                 "container=" + (f.host.container.empty() ? "unknown" : f.host.container)};
  const bool container = !f.host.container.empty() && f.host.container != "none";
  std::vector<Finding> out;
  if (ib.dev_infiniband == 0)
    out.push_back(
        {"ib.dev_missing", sev,
         fmt::format("{} RDMA device(s) ({}) but no /dev/infiniband{}: NCCL cannot open them (\"NET/IB : No "
                     "device found\") and uses TCP sockets",
                     ib.devices.size(), join(names), container ? " in this container" : ""),
         ev,
         container
             ? "Start the container with --device=/dev/infiniband --cap-add=IPC_LOCK (or --privileged), "
               "or request the RDMA device plugin's resource in Kubernetes"
             : "Load the verbs module: modprobe ib_uverbs (and rdma_ucm)"});
  if (ib.verbs_lib.empty()) {
    out.push_back(
        {"ib.verbs.missing", sev,
         fmt::format("{} RDMA device(s) but no libibverbs.so.1 where the loader looks: NCCL cannot load "
                     "verbs (\"NET/IB : Failed to open libibverbs.so\") and uses TCP sockets",
                     ib.devices.size()),
         ev,
         "Install rdma-core's user space: apt-get install libibverbs1 ibverbs-providers (RHEL: dnf "
         "install rdma-core libibverbs), or add its directory to LD_LIBRARY_PATH"});
  } else if (auto missing = devices_without_provider(ib); !missing.empty()) {
    ev.push_back("verbs_lib=" + ib.verbs_lib);
    ev.push_back("providers=" +
                 (ib.verbs_providers.empty() ? std::string("none") : join(ib.verbs_providers)));
    out.push_back(
        {"ib.verbs.no_provider", sev,
         fmt::format("libibverbs has no provider driver for {}: verbs lists no device and NCCL uses "
                     "TCP sockets",
                     join(missing)),
         ev, "Install the provider: apt-get install ibverbs-providers (RHEL: rdma-core)"});
  }
  if (out.empty())
    out.push_back({"ib.userspace.ok", Severity::ok,
                   fmt::format("RDMA user space in place: /dev/infiniband ({} entries), {}, providers {}",
                               ib.dev_files.size(), ib.verbs_lib, join(ib.verbs_providers)),
                   ev});
  return out;
}

}  // namespace

NodeRule rdma_userspace_rule() {
  return {
      "ib.userspace",
      check_rdma_userspace,
      {{"ib.userspace.ok", "RDMA user space in place",
        "/dev/infiniband exists, libibverbs.so.1 is where the loader finds it, and a provider driver is "
        "installed for every RDMA device."},
       {"ib.dev_missing", "No /dev/infiniband",
        "The kernel shows RDMA devices in /sys/class/infiniband, but /dev/infiniband (uverbsN, rdma_cm) is "
        "missing, as in a container started without the devices. Verbs cannot open the HCAs, so NCCL logs "
        "\"NET/IB : No device found\" and uses TCP sockets: the job runs, at a fraction of the bandwidth. "
        "Pass --device=/dev/infiniband with --cap-add=IPC_LOCK, --privileged, or a device plugin."},
       {"ib.verbs.missing", "libibverbs not installed",
        "NCCL loads libibverbs.so.1 at run time; without it (no rdma-core/libibverbs1 in the image) the IB "
        "transport is unavailable and NCCL uses TCP sockets."},
       {"ib.verbs.no_provider", "No verbs provider for the HCA",
        "libibverbs needs a provider driver per device family (libmlx5-rdmav*.so for mlx5, in "
        "ibverbs-providers / rdma-core). Without it ibv_get_device_list returns nothing for that device and "
        "NCCL uses TCP sockets."}}};
}

}  // namespace dd::rules
