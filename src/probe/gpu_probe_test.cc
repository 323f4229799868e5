// GPU probe against a fake NVML table: two H200-like GPUs on an NVSwitch, a third on PCIe only, one GPU
// whose handle fails, symbols missing; plus the pure label helpers.
#include "probe/gpu_probe.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>

#include "probe/gpu_labels.h"

namespace dd::probe {
namespace {

using namespace dd::dynlib;

const std::string kGpuRoot = std::string(DD_FIXTURE_DIR) + "/sysfs/node1";
nvmlDevice_t dev(uintptr_t i) { return reinterpret_cast<nvmlDevice_t>(i + 1); }
unsigned idx(nvmlDevice_t d) { return unsigned(reinterpret_cast<uintptr_t>(d) - 1); }
const char* kBus[] = {"00000000:18:00.0", "00000000:2A:00.0", "00000000:9A:00.0"};

Nvml fake_nvml() {
  Nvml n;
  n.Init = [] { return 0; };
  n.ErrorString = [](nvmlReturn_t) { return "fake"; };
  n.SystemGetDriverVersion = [](char* b, unsigned l) {
    std::strncpy(b, "580.95.05", l);
    return 0;
  };
  n.SystemGetCudaDriverVersion = [](int* v) {
    *v = 13000;
    return 0;
  };
  n.DeviceGetCount = [](unsigned* c) {
    *c = 4;
    return 0;
  };
  n.DeviceGetHandleByIndex = [](unsigned i, nvmlDevice_t* d) {
    *d = dev(i);
    return i == 3 ? 15 : 0;
  };
  n.DeviceGetName = [](nvmlDevice_t, char* b, unsigned l) {
    std::strncpy(b, "NVIDIA H200", l);
    return 0;
  };
  n.DeviceGetUUID = [](nvmlDevice_t d, char* b, unsigned l) {
    if (idx(d) >= 100)
      std::snprintf(b, l, "MIG-%u", idx(d));
    else
      std::snprintf(b, l, "GPU-0000000%u-aaaa", idx(d));
    return 0;
  };
  n.DeviceGetPciInfo = [](nvmlDevice_t d, nvmlPciInfo_t* p) {
    std::strcpy(p->busId, kBus[idx(d)]);
    return 0;
  };
  n.DeviceGetMemoryInfo = [](nvmlDevice_t d, nvmlMemory_t* m) {
    m->total = 143771ULL << 20;
    m->used = idx(d) == 1 ? 70000ULL << 20 : 0;
    return 0;
  };
  n.DeviceGetComputeRunningProcesses = [](nvmlDevice_t d, unsigned* c, nvmlProcessInfo_t* p) {
    if (idx(d) != 1) {
      *c = 0;
      return 0;
    }
    if (*c < 2) {
      *c = 2;
      return kNvmlErrorInsufficientSize;
    }
    *c = 2;
    p[0] = {4242, 69000ULL << 20, 0, 0};
    p[1] = {999999, kNvmlValueNotAvailable, 0, 0};
    return 0;
  };
  n.DeviceGetEccMode = [](nvmlDevice_t, int* c, int* p) {
    *c = *p = 1;
    return 0;
  };
  n.DeviceGetTotalEccErrors = [](nvmlDevice_t d, int, int counter, unsigned long long* v) {
    *v = (idx(d) == 2 && counter == kNvmlAggregateEcc) ? 3 : 0;
    return 0;
  };
  n.DeviceGetRemappedRows = [](nvmlDevice_t d, unsigned* a, unsigned* b, unsigned* pend, unsigned* fail) {
    *a = *b = 0;
    *pend = idx(d) == 2;
    *fail = 0;
    return 0;
  };
  n.DeviceGetMigMode = [](nvmlDevice_t d, unsigned* c, unsigned* p) {
    if (idx(d) != 2) return kNvmlErrorNotSupported;
    *c = *p = 1;
    return 0;
  };
  n.DeviceGetMaxMigDeviceCount = [](nvmlDevice_t, unsigned* c) {
    *c = 7;
    return 0;
  };
  n.DeviceGetMigDeviceHandleByIndex = [](nvmlDevice_t, unsigned i, nvmlDevice_t* m) {
    *m = dev(100 + i);
    return i < 2 ? 0 : 6;  // two MIG devices exist
  };
  // GPUs 0 and 1: 18 NVLinks each to NVSwitches (link 17 of GPU 1 down); GPU 2: no NVLink.
  n.DeviceGetNvLinkState = [](nvmlDevice_t d, unsigned l, int* s) {
    if (idx(d) == 2) return kNvmlErrorNotSupported;
    *s = !(idx(d) == 1 && l == 17);
    return 0;
  };
  n.DeviceGetNvLinkVersion = [](nvmlDevice_t, unsigned, unsigned* v) {
    *v = 7;
    return 0;
  };  // Hopper quirk
  n.DeviceGetArchitecture = [](nvmlDevice_t, unsigned* a) {
    *a = 9;
    return 0;
  };
  n.DeviceGetNvLinkRemoteDeviceType = [](nvmlDevice_t, unsigned, int* t) {
    *t = kNvmlNvlinkDeviceTypeSwitch;
    return 0;
  };
  n.DeviceGetCurrPcieLinkGeneration = [](nvmlDevice_t, unsigned* v) {
    *v = 5;
    return 0;
  };
  n.DeviceGetCurrPcieLinkWidth = [](nvmlDevice_t, unsigned* v) {
    *v = 16;
    return 0;
  };
  n.DeviceGetNumaNodeId = [](nvmlDevice_t d, unsigned* v) {
    *v = idx(d) / 2;
    return 0;
  };
  n.DeviceGetCpuAffinity = [](nvmlDevice_t, unsigned size, unsigned long* m) {
    for (unsigned i = 0; i < size; ++i) m[i] = 0;
    m[0] = 0xFFFFFFFFFFFFFFFFUL;  // 0-63
    m[1] = 0x3;                   // 64-65
    return 0;
  };
  n.DeviceGetTopologyCommonAncestor = [](nvmlDevice_t a, nvmlDevice_t b, int* l) {
    *l = (idx(a) / 2 == idx(b) / 2) ? kTopoNode : kTopoSystem;
    return 0;
  };
  n.DeviceGetP2PStatus = [](nvmlDevice_t a, nvmlDevice_t b, int, int* s) {
    *s = (idx(a) == 2 || idx(b) == 2) ? 3 : 0;
    return 0;
  };
  return n;
}

TEST(GpuProbe, FakeNvmlTwoSwitchedGpusAndOneOnPcie) {
  auto fs = make_real_fs(kGpuRoot);
  GpuFacts f = probe_gpu_with(fake_nvml(), *fs);
  ASSERT_TRUE(f.nvml_loaded) << f.nvml_error;
  EXPECT_EQ(f.driver_version, "580.95.05");
  EXPECT_EQ(f.cuda_driver_version, 13000);
  ASSERT_EQ(f.gpus.size(), 4u);
  const Gpu& g0 = f.gpus[0];
  EXPECT_EQ(g0.name, "NVIDIA H200");
  EXPECT_EQ(g0.uuid, "GPU-00000000-aaaa");
  EXPECT_EQ(g0.pci_bus_id, "00000000:18:00.0");
  EXPECT_EQ(g0.memory_total_mib, 143771);
  EXPECT_EQ(g0.nvlinks_total, 18);
  EXPECT_EQ(g0.nvlinks_active, 18);
  EXPECT_EQ(g0.nvlink_version, 4);
  EXPECT_EQ(g0.mig_mode, -1);
  EXPECT_EQ(g0.ecc_enabled, 1);
  EXPECT_EQ(g0.retired_pages_pending, -1);  // symbol missing
  EXPECT_EQ(g0.utilization_pct, -1);        // symbol missing
  EXPECT_EQ(g0.cpu_affinity, "0-65");
  EXPECT_EQ(g0.numa_node, 0);
  const Gpu& g1 = f.gpus[1];
  EXPECT_EQ(g1.nvlinks_active, 17);
  EXPECT_EQ(g1.memory_used_mib, 70000);
  ASSERT_EQ(g1.processes.size(), 2u);
  EXPECT_EQ(g1.processes[0].pid, 4242);
  EXPECT_EQ(g1.processes[0].name, "python3");  // from the tree's /proc/4242/comm
  EXPECT_EQ(g1.processes[0].used_mib, 69000);
  EXPECT_EQ(g1.processes[1].name, "");
  EXPECT_EQ(g1.processes[1].used_mib, -1);
  const Gpu& g2 = f.gpus[2];
  EXPECT_EQ(g2.nvlinks_total, 0);  // NVML answers, but no link exists
  EXPECT_EQ(g2.nvlinks_active, 0);
  EXPECT_EQ(g2.ecc_uncorrected_aggregate, 3);
  EXPECT_EQ(g2.remapped_rows_pending, 1);
  EXPECT_EQ(g2.mig_mode, 1);
  EXPECT_EQ(g2.mig_uuids, (std::vector<std::string>{"MIG-100", "MIG-101"}));
  EXPECT_TRUE(g0.mig_uuids.empty());
  EXPECT_NE(f.gpus[3].name.find("unavailable"), std::string::npos);

  std::vector<std::vector<std::string>> topo = {
      {"X", "NV17", "SYS", ""}, {"NV17", "X", "SYS", ""}, {"SYS", "SYS", "X", ""}, {"", "", "", "X"}};
  EXPECT_EQ(f.topology, topo);
  std::vector<std::vector<std::string>> p2p = {
      {"X", "OK", "TNS", ""}, {"OK", "X", "TNS", ""}, {"TNS", "TNS", "X", ""}, {"", "", "", "X"}};
  EXPECT_EQ(f.p2p_read, p2p);
  nlohmann::json j = f;  // round-trips
  EXPECT_EQ(j.get<GpuFacts>().topology, topo);
}

// An idle H200: the driver keeps 615 MiB, which NVML's v1 query counts as used with no process listed (read
// as a process in exit: the probe waited 1 s on every idle H200, issue 38); the v2 query reports it apart.
TEST(GpuProbe, TheDriversReservationIsNotAProcessInExit) {
  auto fs = make_real_fs(kGpuRoot);
  Nvml n = fake_nvml();
  n.DeviceGetComputeRunningProcesses = [](nvmlDevice_t, unsigned* c, nvmlProcessInfo_t*) {
    *c = 0;
    return 0;
  };
  n.DeviceGetMemoryInfo = [](nvmlDevice_t, nvmlMemory_t* m) {
    m->total = 143771ULL << 20, m->used = 615ULL << 20, m->free = m->total - m->used;
    return 0;
  };
  auto t0 = std::chrono::steady_clock::now();
  GpuFacts before = probe_gpu_with(n, *fs);
  const double v1_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(before.gpus[0].memory_used_mib, 615);
  EXPECT_GE(v1_s, 0.9) << "without v2 the wait is paid (what the v2 query saves)";
  n.DeviceGetMemoryInfo_v2 = [](nvmlDevice_t, dynlib::nvmlMemory_v2_t* m) {
    if (m->version != dynlib::kNvmlMemoryV2) return 25;  // NVML_ERROR_ARGUMENT_VERSION_MISMATCH
    m->total = 143771ULL << 20, m->reserved = 615ULL << 20, m->used = 0, m->free = m->total - m->reserved;
    return 0;
  };
  t0 = std::chrono::steady_clock::now();
  GpuFacts f = probe_gpu_with(n, *fs);
  const double v2_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(f.gpus[0].memory_used_mib, 0);
  EXPECT_EQ(f.gpus[0].memory_reserved_mib, 615);
  EXPECT_EQ(f.gpus[0].memory_total_mib, 143771);
  EXPECT_LT(v2_s, 0.5) << "no wait on an idle GPU";
  // A driver that counts the reservation in `used` as well: the same answer.
  n.DeviceGetMemoryInfo_v2 = [](nvmlDevice_t, dynlib::nvmlMemory_v2_t* m) {
    m->total = 143771ULL << 20, m->reserved = 615ULL << 20, m->used = (615ULL + 2048) << 20;
    m->free = m->total - m->used;
    return 0;
  };
  EXPECT_EQ(probe_gpu_with(n, *fs).gpus[0].memory_used_mib, 2048);
}

TEST(GpuProbe, InitFailureIsAnError) {
  Nvml n;
  n.Init = [] { return 9; };  // NVML_ERROR_DRIVER_NOT_LOADED
  n.init_symbol = "nvmlInit_v2";
  GpuFacts f = probe_gpu_with(n, *make_real_fs(kGpuRoot));
  EXPECT_FALSE(f.nvml_loaded);
  EXPECT_EQ(f.nvml_error, "nvmlInit_v2 failed: NVML error 9");
}

TEST(GpuProbe, NoLibraryIsAnErrorNotACrash) {
  // DISTDOCTOR_NVML_LIB is read once by tool_env(); hand the probe the value it would have read.
  GpuFacts f = probe_gpu(*make_real_fs(), {"/nonexistent/libnvidia-ml.so.1", "DISTDOCTOR_NVML_LIB"});
  EXPECT_FALSE(f.nvml_loaded);
  EXPECT_NE(f.nvml_error.find("DISTDOCTOR_NVML_LIB"), std::string::npos) << f.nvml_error;
}

TEST(GpuLabels, Labels) {
  EXPECT_EQ(p2p_status_label(0), "OK");
  EXPECT_EQ(p2p_status_label(1), "CNS");
  EXPECT_EQ(p2p_status_label(3), "TNS");
  EXPECT_EQ(p2p_status_label(5), "NS");
  EXPECT_EQ(p2p_status_label(42), "U");
  EXPECT_EQ(topology_label(kTopoSingle, 0), "PIX");
  EXPECT_EQ(topology_label(kTopoMultiple, 0), "PXB");
  EXPECT_EQ(topology_label(kTopoHostbridge, 0), "PHB");
  EXPECT_EQ(topology_label(kTopoSystem, 18), "NV18");
  EXPECT_EQ(topology_label(-1, 0), "");
  EXPECT_EQ(cpu_list_from_mask({0b1011}), "0-1,3");
  EXPECT_EQ(cpu_list_from_mask({0}), "");
  EXPECT_EQ(normalize_bus_id("00000000:2A:00.0"), "0000:2a:00.0");
  EXPECT_EQ(normalize_bus_id("0000:2a:00.0"), "0000:2a:00.0");
  EXPECT_EQ(normalize_bus_id("2A:00.0"), "0000:2a:00.0");
  EXPECT_EQ(nvlink_major_version(7, 9), 4);  // Hopper reporting a 5.0 code
  EXPECT_EQ(nvlink_major_version(6, -1), 4);
  EXPECT_EQ(nvlink_major_version(4, -1), 3);
  EXPECT_EQ(nvlink_major_version(0, -1), -1);
}

}  // namespace
}  // namespace dd::probe
