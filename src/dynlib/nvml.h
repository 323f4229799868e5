// NVML, loaded at run time: the few types, constants and functions distdoctor uses, declared from NVML's
// documented ABI (no nvml.h needed), resolved with versioned names first (nvmlInit_v2 before nvmlInit).
#pragma once
#include <cstddef>
#include <string>

#include "common/result.h"
#include "dynlib/library.h"

namespace dd::dynlib {

using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr nvmlReturn_t kNvmlErrorNotSupported = 3;
constexpr nvmlReturn_t kNvmlErrorInsufficientSize = 7;
constexpr unsigned long long kNvmlValueNotAvailable = ~0ULL;

struct nvmlPciInfo_t {  // nvmlPciInfo_st as of the _v2/_v3 API
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};
struct nvmlMemory_t {
  unsigned long long total, free, used;
};
// nvmlDeviceGetMemoryInfo_v2's: the memory the driver reserves for itself (615 MiB on an idle H200) apart.
// Which of `used` it is counted in has changed between drivers; total - free - reserved is what is allocated
// either way.
struct nvmlMemory_v2_t {
  unsigned int version;
  unsigned long long total, reserved, free, used;
};
// NVML_STRUCT_VERSION(Memory, 2): the struct's size, and the version in the top byte.
constexpr unsigned kNvmlMemoryV2 = unsigned(sizeof(nvmlMemory_v2_t)) | (2u << 24);
struct nvmlUtilization_t {
  unsigned int gpu, memory;
};
struct nvmlProcessInfo_v1_t {  // nvmlDeviceGetComputeRunningProcesses (no suffix)
  unsigned int pid;
  unsigned long long usedGpuMemory;
};
struct nvmlProcessInfo_t {  // _v2 and _v3
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

static_assert(sizeof(nvmlPciInfo_t) == 68 && offsetof(nvmlPciInfo_t, busId) == 36, "NVML ABI: nvmlPciInfo_t");
static_assert(sizeof(nvmlProcessInfo_t) == 24 && sizeof(nvmlProcessInfo_v1_t) == 16,
              "NVML ABI: process info");

// nvmlGpuTopologyLevel_t
enum NvmlTopo {
  kTopoInternal = 0,
  kTopoSingle = 10,
  kTopoMultiple = 20,
  kTopoHostbridge = 30,
  kTopoNode = 40,
  kTopoSystem = 50
};
constexpr int kNvmlP2PCapsIndexRead = 0;
constexpr int kNvmlNvlinkMaxLinks = 18;
constexpr int kNvmlNvlinkDeviceTypeGpu = 0, kNvmlNvlinkDeviceTypeSwitch = 2;
constexpr int kNvmlMemoryErrorUncorrected = 1;
constexpr int kNvmlVolatileEcc = 0, kNvmlAggregateEcc = 1;

// Function table; any entry may be null when the driver's NVML lacks it.
struct Nvml {
  Library lib;
  std::string init_symbol;
  const char* (*ErrorString)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*Init)() = nullptr;
  nvmlReturn_t (*Shutdown)() = nullptr;
  nvmlReturn_t (*SystemGetDriverVersion)(char*, unsigned) = nullptr;
  nvmlReturn_t (*SystemGetCudaDriverVersion)(int*) = nullptr;
  nvmlReturn_t (*DeviceGetCount)(unsigned*) = nullptr;
  nvmlReturn_t (*DeviceGetHandleByIndex)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*DeviceGetName)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*DeviceGetUUID)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*DeviceGetPciInfo)(nvmlDevice_t, nvmlPciInfo_t*) = nullptr;
  nvmlReturn_t (*DeviceGetMemoryInfo)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*DeviceGetMemoryInfo_v2)(nvmlDevice_t, nvmlMemory_v2_t*) = nullptr;  // drivers since 510
  nvmlReturn_t (*DeviceGetUtilizationRates)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
  nvmlReturn_t (*DeviceGetComputeRunningProcesses)(nvmlDevice_t, unsigned*,
                                                   nvmlProcessInfo_t*) = nullptr;  // v3/v2
  nvmlReturn_t (*DeviceGetComputeRunningProcesses_v1)(nvmlDevice_t, unsigned*,
                                                      nvmlProcessInfo_v1_t*) = nullptr;
  nvmlReturn_t (*DeviceGetEccMode)(nvmlDevice_t, int*, int*) = nullptr;
  nvmlReturn_t (*DeviceGetTotalEccErrors)(nvmlDevice_t, int, int, unsigned long long*) = nullptr;
  nvmlReturn_t (*DeviceGetRetiredPagesPendingStatus)(nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*DeviceGetRemappedRows)(nvmlDevice_t, unsigned*, unsigned*, unsigned*, unsigned*) = nullptr;
  nvmlReturn_t (*DeviceGetMigMode)(nvmlDevice_t, unsigned*, unsigned*) = nullptr;
  nvmlReturn_t (*DeviceGetMaxMigDeviceCount)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*DeviceGetMigDeviceHandleByIndex)(nvmlDevice_t, unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*DeviceGetNvLinkState)(nvmlDevice_t, unsigned, int*) = nullptr;
  nvmlReturn_t (*DeviceGetNvLinkVersion)(nvmlDevice_t, unsigned, unsigned*) = nullptr;
  nvmlReturn_t (*DeviceGetNvLinkRemotePciInfo)(nvmlDevice_t, unsigned, nvmlPciInfo_t*) = nullptr;
  nvmlReturn_t (*DeviceGetNvLinkRemoteDeviceType)(nvmlDevice_t, unsigned, int*) = nullptr;
  nvmlReturn_t (*DeviceGetArchitecture)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*DeviceGetCurrPcieLinkGeneration)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*DeviceGetCurrPcieLinkWidth)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*DeviceGetMaxPcieLinkGeneration)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*DeviceGetMaxPcieLinkWidth)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*DeviceGetNumaNodeId)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*DeviceGetCpuAffinity)(nvmlDevice_t, unsigned, unsigned long*) = nullptr;
  nvmlReturn_t (*DeviceGetTopologyCommonAncestor)(nvmlDevice_t, nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*DeviceGetP2PStatus)(nvmlDevice_t, nvmlDevice_t, int, int*) = nullptr;

  // "NVML_ERROR_..." text for a return code, also when nvmlErrorString is missing.
  std::string error_string(nvmlReturn_t r) const;
};

// Loads libnvidia-ml.so.1 (or the override, e.g. $DISTDOCTOR_NVML_LIB as probe/tool_env.h read it) and
// resolves the table; nvmlInit is NOT called.
Result<Nvml> load_nvml(const PathOverride& nvml_lib);

}  // namespace dd::dynlib
