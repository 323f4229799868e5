// Per-GPU NVML reads: identity, memory and utilisation, compute processes, ECC/retirement/remap/MIG health,
// NVLinks, PCIe link and NUMA placement.
#include "probe/gpu_device.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "probe/gpu_labels.h"
#include "probe/proc_ids.h"
#include "probe/tool_env.h"

namespace dd::probe {

using dynlib::kNvmlSuccess;
using dynlib::Nvml;
using dynlib::nvmlDevice_t;
using dynlib::nvmlReturn_t;

std::string trim_nul(const char* s, size_t n) {
  size_t len = 0;
  while (len < n && s[len]) ++len;
  return std::string(s, len);
}

namespace {

void read_processes(const Nvml& n, nvmlDevice_t d, const Fs& fs, Gpu& g) {
  std::vector<std::pair<unsigned, unsigned long long>> procs;
  unsigned count = 0;
  if (n.DeviceGetComputeRunningProcesses) {
    std::vector<dynlib::nvmlProcessInfo_t> buf(64);
    count = unsigned(buf.size());
    nvmlReturn_t r = n.DeviceGetComputeRunningProcesses(d, &count, buf.data());
    if (r == dynlib::kNvmlErrorInsufficientSize) {
      buf.resize(count + 16);
      count = unsigned(buf.size());
      r = n.DeviceGetComputeRunningProcesses(d, &count, buf.data());
    }
    if (r != kNvmlSuccess) return;
    for (unsigned i = 0; i < count && i < buf.size(); ++i)
      procs.emplace_back(buf[i].pid, buf[i].usedGpuMemory);
  } else if (n.DeviceGetComputeRunningProcesses_v1) {
    std::vector<dynlib::nvmlProcessInfo_v1_t> buf(256);
    count = unsigned(buf.size());
    if (n.DeviceGetComputeRunningProcesses_v1(d, &count, buf.data()) != kNvmlSuccess) return;
    for (unsigned i = 0; i < count && i < buf.size(); ++i)
      procs.emplace_back(buf[i].pid, buf[i].usedGpuMemory);
  } else {
    return;
  }
  for (auto [pid, mem] : procs) {
    GpuProcess p;
    p.pid = pid;
    auto comm = read_trimmed(fs, "/proc/" + std::to_string(pid) + "/comm");
    if (comm) p.name = *comm;  // other PID namespace (container): unreadable, stays ""
    if (auto ids = read_proc_ids(fs, std::to_string(pid))) {
      p.ppid = ids->ppid;
      p.pgid = ids->pgid;
      p.sid = ids->sid;
    }
    if (mem != dynlib::kNvmlValueNotAvailable) p.used_mib = int64_t(mem >> 20);
    g.processes.push_back(std::move(p));
  }
}

void read_nvlinks(const Nvml& n, nvmlDevice_t d, Gpu& g, LinkMap& links) {
  if (!n.DeviceGetNvLinkState) return;
  unsigned arch = 0;
  bool have_arch = n.DeviceGetArchitecture && n.DeviceGetArchitecture(d, &arch) == kNvmlSuccess;
  int total = 0, active = 0;
  for (unsigned l = 0; l < unsigned(dynlib::kNvmlNvlinkMaxLinks); ++l) {
    int state = 0;
    if (n.DeviceGetNvLinkState(d, l, &state) != kNvmlSuccess) continue;  // link not present
    ++total;
    if (state != 1) continue;
    ++active;
    unsigned ver = 0;
    if (g.nvlink_version < 0 && n.DeviceGetNvLinkVersion &&
        n.DeviceGetNvLinkVersion(d, l, &ver) == kNvmlSuccess)
      g.nvlink_version = nvlink_major_version(int(ver), have_arch ? int(arch) : -1);
    int type = -1;
    if (n.DeviceGetNvLinkRemoteDeviceType && n.DeviceGetNvLinkRemoteDeviceType(d, l, &type) == kNvmlSuccess &&
        type == dynlib::kNvmlNvlinkDeviceTypeSwitch) {
      ++links.to_switch;
      continue;
    }
    if (!n.DeviceGetNvLinkRemoteDeviceType) ++links.type_unknown;
    dynlib::nvmlPciInfo_t pci{};
    if (n.DeviceGetNvLinkRemotePciInfo && n.DeviceGetNvLinkRemotePciInfo(d, l, &pci) == kNvmlSuccess)
      ++links.to_bus[normalize_bus_id(trim_nul(pci.busId, sizeof(pci.busId)))];
  }
  g.nvlinks_total = total;
  g.nvlinks_active = total > 0 ? active : 0;
}

// The GPU's PCI device in sysfs first (the same numbers NVML reads, without its lock: NVML's CPU affinity
// call took 7-40 ms per GPU on 4x H100, a third of `check`), NVML where sysfs has none (containers).
void read_numa(const Nvml& n, nvmlDevice_t d, const Fs& fs, Gpu& g) {
  const std::string sys = "/sys/bus/pci/devices/" + normalize_bus_id(g.pci_bus_id);
  if (!g.pci_bus_id.empty()) {
    if (auto s = read_trimmed(fs, sys + "/numa_node")) try {
        g.numa_node = std::stoi(*s);  // -1 on single-node machines
      } catch (...) {
      }
    if (auto s = read_trimmed(fs, sys + "/local_cpulist")) g.cpu_affinity = *s;
  }
  unsigned node = 0;
  if (g.numa_node < 0 && n.DeviceGetNumaNodeId && n.DeviceGetNumaNodeId(d, &node) == kNvmlSuccess)
    g.numa_node = int(node);
  if (g.cpu_affinity.empty() && n.DeviceGetCpuAffinity) {
    std::vector<unsigned long> mask(64);  // 4096 CPUs
    if (n.DeviceGetCpuAffinity(d, unsigned(mask.size()), mask.data()) == kNvmlSuccess)
      g.cpu_affinity = cpu_list_from_mask(mask);
  }
}

// Total and used memory. Used is what processes allocated: with NVML's v2 query, the driver's own reservation
// (615 MiB on every idle H200, 0 on an H100) is left out, so an idle GPU reads 0 and is not taken for one
// whose last process is still exiting (settle_memory). false when NVML answered neither query.
bool read_memory(const Nvml& n, nvmlDevice_t d, Gpu& g) {
  dynlib::nvmlMemory_v2_t v2{};
  v2.version = dynlib::kNvmlMemoryV2;
  if (n.DeviceGetMemoryInfo_v2 && n.DeviceGetMemoryInfo_v2(d, &v2) == kNvmlSuccess && v2.total >= v2.free) {
    const unsigned long long taken = v2.total - v2.free;
    g.memory_total_mib = int64_t(v2.total >> 20);
    g.memory_reserved_mib = int64_t(v2.reserved >> 20);
    g.memory_used_mib = int64_t((taken > v2.reserved ? taken - v2.reserved : 0) >> 20);
    return true;
  }
  dynlib::nvmlMemory_t mem{};
  if (!n.DeviceGetMemoryInfo || n.DeviceGetMemoryInfo(d, &mem) != kNvmlSuccess) return false;
  g.memory_total_mib = int64_t(mem.total >> 20);
  g.memory_used_mib = int64_t(mem.used >> 20);
  return true;
}

void read_identity(const Nvml& n, nvmlDevice_t d, Gpu& g) {
  char buf[256] = {0};
  if (n.DeviceGetName && n.DeviceGetName(d, buf, sizeof(buf) - 1) == kNvmlSuccess)
    g.name = trim_nul(buf, sizeof(buf));
  if (n.DeviceGetUUID && n.DeviceGetUUID(d, buf, sizeof(buf) - 1) == kNvmlSuccess)
    g.uuid = trim_nul(buf, sizeof(buf));
  dynlib::nvmlPciInfo_t pci{};
  if (n.DeviceGetPciInfo && n.DeviceGetPciInfo(d, &pci) == kNvmlSuccess)
    g.pci_bus_id = trim_nul(pci.busId, sizeof(pci.busId));
  read_memory(n, d, g);
  dynlib::nvmlUtilization_t u{};
  if (n.DeviceGetUtilizationRates && n.DeviceGetUtilizationRates(d, &u) == kNvmlSuccess)
    g.utilization_pct = int(u.gpu);
}

// Memory in use with no process listed is often a process in exit: the driver lists it no longer but frees
// its memory within about half a second (a job that just ended, or the previous `check --collectives`'s
// workers, which the report does not wait for). Read again every 100 ms for at most 1 s, until it is
// released, so that the facts hold what stays. Only this case pays the wait.
void settle_memory(const Nvml& n, nvmlDevice_t d, Gpu& g) {
  constexpr int64_t kNoticeMiB = 512;
  if (!g.processes.empty() || g.memory_used_mib <= kNoticeMiB) return;
  for (int i = 0; i < 10 && g.memory_used_mib > kNoticeMiB; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!read_memory(n, d, g)) return;
  }
}

void read_mig(const Nvml& n, nvmlDevice_t d, Gpu& g) {
  unsigned mig = 0, migp = 0;
  if (n.DeviceGetMigMode && n.DeviceGetMigMode(d, &mig, &migp) == kNvmlSuccess) g.mig_mode = mig ? 1 : 0;
  unsigned max_mig = 0;
  char buf[256] = {0};
  if (g.mig_mode == 1 && n.DeviceGetMaxMigDeviceCount && n.DeviceGetMigDeviceHandleByIndex &&
      n.DeviceGetUUID && n.DeviceGetMaxMigDeviceCount(d, &max_mig) == kNvmlSuccess)
    for (unsigned m = 0; m < max_mig && m < 64; ++m) {
      nvmlDevice_t md = nullptr;
      if (n.DeviceGetMigDeviceHandleByIndex(d, m, &md) == kNvmlSuccess &&
          n.DeviceGetUUID(md, buf, sizeof(buf) - 1) == kNvmlSuccess)
        g.mig_uuids.push_back(trim_nul(buf, sizeof(buf)));
    }
}

void read_health(const Nvml& n, nvmlDevice_t d, Gpu& g) {
  int cur = 0, pend = 0;
  if (n.DeviceGetEccMode && n.DeviceGetEccMode(d, &cur, &pend) == kNvmlSuccess) g.ecc_enabled = cur ? 1 : 0;
  unsigned long long ecc = 0;
  if (n.DeviceGetTotalEccErrors) {
    if (n.DeviceGetTotalEccErrors(d, dynlib::kNvmlMemoryErrorUncorrected, dynlib::kNvmlVolatileEcc, &ecc) ==
        kNvmlSuccess)
      g.ecc_uncorrected_volatile = int64_t(ecc);
    if (n.DeviceGetTotalEccErrors(d, dynlib::kNvmlMemoryErrorUncorrected, dynlib::kNvmlAggregateEcc, &ecc) ==
        kNvmlSuccess)
      g.ecc_uncorrected_aggregate = int64_t(ecc);
  }
  int pending = 0;
  if (n.DeviceGetRetiredPagesPendingStatus &&
      n.DeviceGetRetiredPagesPendingStatus(d, &pending) == kNvmlSuccess)
    g.retired_pages_pending = pending ? 1 : 0;
  unsigned corr = 0, unc = 0, rpend = 0, rfail = 0;
  if (n.DeviceGetRemappedRows && n.DeviceGetRemappedRows(d, &corr, &unc, &rpend, &rfail) == kNvmlSuccess) {
    g.remapped_rows_pending = rpend ? 1 : 0;
    g.remapped_rows_failure = rfail ? 1 : 0;
  }
}

void read_pcie(const Nvml& n, nvmlDevice_t d, Gpu& g) {
  unsigned v = 0;
  if (n.DeviceGetCurrPcieLinkGeneration && n.DeviceGetCurrPcieLinkGeneration(d, &v) == kNvmlSuccess)
    g.pcie_gen = int(v);
  if (n.DeviceGetCurrPcieLinkWidth && n.DeviceGetCurrPcieLinkWidth(d, &v) == kNvmlSuccess)
    g.pcie_width = int(v);
  if (n.DeviceGetMaxPcieLinkGeneration && n.DeviceGetMaxPcieLinkGeneration(d, &v) == kNvmlSuccess)
    g.pcie_gen_max = int(v);
  if (n.DeviceGetMaxPcieLinkWidth && n.DeviceGetMaxPcieLinkWidth(d, &v) == kNvmlSuccess)
    g.pcie_width_max = int(v);
}

}  // namespace

void read_gpu(const Nvml& n, nvmlDevice_t d, const Fs& fs, Gpu& g, LinkMap& links) {
  using Clock = std::chrono::steady_clock;
  std::string phases;  // DISTDOCTOR_PROBE_TIMING: each step's time
  const bool timing = tool_env().probe_timing;
  auto step = [&](const char* name, auto&& fn) {
    if (!timing) return fn();
    const auto t = Clock::now();
    fn();
    phases +=
        fmt::format(" {} {:.1f}", name, std::chrono::duration<double, std::milli>(Clock::now() - t).count());
  };
  step("identity", [&] { read_identity(n, d, g); });
  step("processes", [&] { read_processes(n, d, fs, g); });
  step("settle", [&] { settle_memory(n, d, g); });
  step("health", [&] { read_health(n, d, g); });
  step("mig", [&] { read_mig(n, d, g); });
  step("nvlinks", [&] { read_nvlinks(n, d, g, links); });
  step("pcie", [&] { read_pcie(n, d, g); });
  step("numa", [&] { read_numa(n, d, fs, g); });
  if (timing) std::fprintf(stderr, "gpu %d (ms):%s\n", g.index, phases.c_str());
}

}  // namespace dd::probe
