// NVML loader: dlopen libnvidia-ml.so.1 and fill the function table, newest symbol version first.
#include "dynlib/nvml.h"

namespace dd::dynlib {

std::string Nvml::error_string(nvmlReturn_t r) const {
  if (ErrorString) {
    const char* s = ErrorString(r);
    if (s) return std::string(s) + " (" + std::to_string(r) + ")";
  }
  return "NVML error " + std::to_string(r);
}

namespace {

// Library-wide calls: error strings, shutdown, driver versions, device count and handles.
void resolve_system(const Library& l, Nvml& n) {
  n.ErrorString = l.fn<decltype(n.ErrorString)>({"nvmlErrorString"});
  n.Shutdown = l.fn<decltype(n.Shutdown)>({"nvmlShutdown"});
  n.SystemGetDriverVersion = l.fn<decltype(n.SystemGetDriverVersion)>({"nvmlSystemGetDriverVersion"});
  n.SystemGetCudaDriverVersion = l.fn<decltype(n.SystemGetCudaDriverVersion)>(
      {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"});
  n.DeviceGetCount = l.fn<decltype(n.DeviceGetCount)>({"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
  n.DeviceGetHandleByIndex = l.fn<decltype(n.DeviceGetHandleByIndex)>(
      {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
}

// Per-device identity, memory, utilisation and compute processes.
void resolve_identity(const Library& l, Nvml& n) {
  n.DeviceGetName = l.fn<decltype(n.DeviceGetName)>({"nvmlDeviceGetName"});
  n.DeviceGetUUID = l.fn<decltype(n.DeviceGetUUID)>({"nvmlDeviceGetUUID"});
  // _v2 and _v3 share the nvmlPciInfo_t layout declared in nvml.h; the unversioned one is older and smaller.
  n.DeviceGetPciInfo =
      l.fn<decltype(n.DeviceGetPciInfo)>({"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"});
  n.DeviceGetMemoryInfo = l.fn<decltype(n.DeviceGetMemoryInfo)>({"nvmlDeviceGetMemoryInfo"});
  n.DeviceGetMemoryInfo_v2 = l.fn<decltype(n.DeviceGetMemoryInfo_v2)>({"nvmlDeviceGetMemoryInfo_v2"});
  n.DeviceGetUtilizationRates =
      l.fn<decltype(n.DeviceGetUtilizationRates)>({"nvmlDeviceGetUtilizationRates"});
  n.DeviceGetComputeRunningProcesses = l.fn<decltype(n.DeviceGetComputeRunningProcesses)>(
      {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"});
  if (!n.DeviceGetComputeRunningProcesses)
    n.DeviceGetComputeRunningProcesses_v1 =
        l.fn<decltype(n.DeviceGetComputeRunningProcesses_v1)>({"nvmlDeviceGetComputeRunningProcesses"});
}

// ECC, page retirement, row remapping and MIG.
void resolve_health(const Library& l, Nvml& n) {
  n.DeviceGetEccMode = l.fn<decltype(n.DeviceGetEccMode)>({"nvmlDeviceGetEccMode"});
  n.DeviceGetTotalEccErrors = l.fn<decltype(n.DeviceGetTotalEccErrors)>({"nvmlDeviceGetTotalEccErrors"});
  n.DeviceGetRetiredPagesPendingStatus =
      l.fn<decltype(n.DeviceGetRetiredPagesPendingStatus)>({"nvmlDeviceGetRetiredPagesPendingStatus"});
  n.DeviceGetRemappedRows = l.fn<decltype(n.DeviceGetRemappedRows)>({"nvmlDeviceGetRemappedRows"});
  n.DeviceGetMigMode = l.fn<decltype(n.DeviceGetMigMode)>({"nvmlDeviceGetMigMode"});
  n.DeviceGetMaxMigDeviceCount =
      l.fn<decltype(n.DeviceGetMaxMigDeviceCount)>({"nvmlDeviceGetMaxMigDeviceCount"});
  n.DeviceGetMigDeviceHandleByIndex =
      l.fn<decltype(n.DeviceGetMigDeviceHandleByIndex)>({"nvmlDeviceGetMigDeviceHandleByIndex"});
}

// NVLink state, version and remote end; the architecture (for the NVLink version).
void resolve_nvlinks(const Library& l, Nvml& n) {
  n.DeviceGetNvLinkState = l.fn<decltype(n.DeviceGetNvLinkState)>({"nvmlDeviceGetNvLinkState"});
  n.DeviceGetNvLinkVersion = l.fn<decltype(n.DeviceGetNvLinkVersion)>({"nvmlDeviceGetNvLinkVersion"});
  n.DeviceGetNvLinkRemotePciInfo =
      l.fn<decltype(n.DeviceGetNvLinkRemotePciInfo)>({"nvmlDeviceGetNvLinkRemotePciInfo_v2"});
  n.DeviceGetNvLinkRemoteDeviceType =
      l.fn<decltype(n.DeviceGetNvLinkRemoteDeviceType)>({"nvmlDeviceGetNvLinkRemoteDeviceType"});
  n.DeviceGetArchitecture = l.fn<decltype(n.DeviceGetArchitecture)>({"nvmlDeviceGetArchitecture"});
}

// PCIe link, NUMA node, CPU affinity, topology and P2P status between devices.
void resolve_placement(const Library& l, Nvml& n) {
  n.DeviceGetCurrPcieLinkGeneration =
      l.fn<decltype(n.DeviceGetCurrPcieLinkGeneration)>({"nvmlDeviceGetCurrPcieLinkGeneration"});
  n.DeviceGetCurrPcieLinkWidth =
      l.fn<decltype(n.DeviceGetCurrPcieLinkWidth)>({"nvmlDeviceGetCurrPcieLinkWidth"});
  n.DeviceGetMaxPcieLinkGeneration =
      l.fn<decltype(n.DeviceGetMaxPcieLinkGeneration)>({"nvmlDeviceGetMaxPcieLinkGeneration"});
  n.DeviceGetMaxPcieLinkWidth =
      l.fn<decltype(n.DeviceGetMaxPcieLinkWidth)>({"nvmlDeviceGetMaxPcieLinkWidth"});
  n.DeviceGetNumaNodeId = l.fn<decltype(n.DeviceGetNumaNodeId)>({"nvmlDeviceGetNumaNodeId"});
  n.DeviceGetCpuAffinity = l.fn<decltype(n.DeviceGetCpuAffinity)>({"nvmlDeviceGetCpuAffinity"});
  n.DeviceGetTopologyCommonAncestor =
      l.fn<decltype(n.DeviceGetTopologyCommonAncestor)>({"nvmlDeviceGetTopologyCommonAncestor"});
  n.DeviceGetP2PStatus = l.fn<decltype(n.DeviceGetP2PStatus)>({"nvmlDeviceGetP2PStatus"});
}

}  // namespace

Result<Nvml> load_nvml(const PathOverride& nvml_lib) {
  auto lib = Library::open({"libnvidia-ml.so.1", "libnvidia-ml.so"}, nvml_lib);
  if (!lib) return lib.error();
  Nvml n;
  n.lib = std::move(*lib);
  const Library& l = n.lib;
  n.Init = reinterpret_cast<decltype(n.Init)>(l.sym({"nvmlInit_v2", "nvmlInit"}, &n.init_symbol));
  if (!n.Init) return Error{"NVML library " + n.lib.path() + " has no nvmlInit_v2/nvmlInit symbol", 0};
  resolve_system(l, n);
  resolve_identity(l, n);
  resolve_health(l, n);
  resolve_nvlinks(l, n);
  resolve_placement(l, n);
  return n;
}

}  // namespace dd::dynlib
