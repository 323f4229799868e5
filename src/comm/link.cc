// NVML reads for link limits (dlopen, our own declarations of the few NVML calls used) and link math.
#include "comm/link.h"

#include <dlfcn.h>

#include <cstdio>

namespace dd::comm {

namespace {
using nvmlDevice = void*;
using InitFn = int (*)();
using CountFn = int (*)(unsigned*);
using HandleFn = int (*)(unsigned, nvmlDevice*);
using NameFn = int (*)(nvmlDevice, char*, unsigned);
using LinkStateFn = int (*)(nvmlDevice, unsigned, int*);
using LinkVersionFn = int (*)(nvmlDevice, unsigned, unsigned*);
using PcieFn = int (*)(nvmlDevice, unsigned*);
constexpr unsigned kMaxNvlinks = 18;
}  // namespace

LinkFacts read_link_facts() {
  LinkFacts f;
  void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    f.error = "cannot load libnvidia-ml.so.1";
    return f;
  }
  auto init = reinterpret_cast<InitFn>(dlsym(h, "nvmlInit_v2"));
  auto count = reinterpret_cast<CountFn>(dlsym(h, "nvmlDeviceGetCount_v2"));
  auto handle = reinterpret_cast<HandleFn>(dlsym(h, "nvmlDeviceGetHandleByIndex_v2"));
  auto name = reinterpret_cast<NameFn>(dlsym(h, "nvmlDeviceGetName"));
  auto state = reinterpret_cast<LinkStateFn>(dlsym(h, "nvmlDeviceGetNvLinkState"));
  auto version = reinterpret_cast<LinkVersionFn>(dlsym(h, "nvmlDeviceGetNvLinkVersion"));
  auto gen = reinterpret_cast<PcieFn>(dlsym(h, "nvmlDeviceGetCurrPcieLinkGeneration"));
  auto width = reinterpret_cast<PcieFn>(dlsym(h, "nvmlDeviceGetCurrPcieLinkWidth"));
  if (!init || !count || !handle || init() != 0) {
    f.error = "nvmlInit failed";
    return f;
  }
  unsigned n = 0;
  count(&n);
  for (unsigned i = 0; i < n; ++i) {
    GpuLink g;
    g.index = int(i);
    nvmlDevice d = nullptr;
    if (handle(i, &d) != 0) continue;
    char buf[96] = {0};
    if (name && name(d, buf, sizeof buf) == 0) g.name = buf;
    for (unsigned l = 0; state && l < kMaxNvlinks; ++l) {
      int active = 0;
      if (state(d, l, &active) != 0) continue;
      if (active) {
        ++g.nvlinks_active;
        unsigned v = 0;
        if (version && version(d, l, &v) == 0) g.nvlink_version = int(v);
      }
    }
    unsigned x = 0;
    if (gen && gen(d, &x) == 0) g.pcie_gen = int(x);
    if (width && width(d, &x) == 0) g.pcie_width = int(x);
    f.gpus.push_back(g);
  }
  f.nvml_ok = true;
  return f;
}

// NVML's nvmlNvlinkVersion values: 1 = 1.0, 2 = 2.0, 3 = 2.2, 4 = 3.0, 5 = 3.1, 6 = 4.0, 7 = 5.0
// (an H200 reports 6). Generation as people name it: 1, 2, 2, 3, 3, 4, 5.
int nvlink_generation(int nvml_version) {
  static const int gen[] = {0, 1, 2, 2, 3, 3, 4, 5};
  return nvml_version >= 1 && nvml_version <= 7 ? gen[nvml_version] : 0;
}

double nvlink_gbps_per_link(int nvml_version) {
  switch (nvlink_generation(nvml_version)) {
    case 1:
      return 20.0;
    case 5:
      return 50.0;
    default:
      return 25.0;  // NVLink 2, 3, 4 (and versions this table does not know)
  }
}

double pcie_gbps(int gen, int width) {
  static const double lane[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.563};
  if (gen < 1 || gen > 6 || width <= 0) return 0;
  return lane[gen] * width;
}

LinkLimit intra_node_limit(const LinkFacts& f, int ngpus) {
  LinkLimit best;
  if (!f.nvml_ok || f.gpus.empty()) return best;
  int n = std::min<int>(ngpus, int(f.gpus.size()));
  bool all_nvlink = n > 0;
  for (int i = 0; i < n; ++i) all_nvlink &= f.gpus[i].nvlinks_active > 0;
  double lim = -1;
  char desc[128] = {0};
  for (int i = 0; i < n; ++i) {
    const GpuLink& g = f.gpus[i];
    double v = all_nvlink ? g.nvlinks_active * nvlink_gbps_per_link(g.nvlink_version)
                          : pcie_gbps(g.pcie_gen, g.pcie_width);
    if (lim < 0 || v < lim) {
      lim = v;
      if (all_nvlink)
        snprintf(desc, sizeof desc, "NVLink %d x%d = %.0f GB/s per direction",
                 nvlink_generation(g.nvlink_version), g.nvlinks_active, v);
      else
        snprintf(desc, sizeof desc, "PCIe gen%d x%d = %.1f GB/s per direction", g.pcie_gen, g.pcie_width, v);
    }
  }
  if (lim > 0) {
    best.gbps = lim;
    best.description = desc;
  }
  return best;
}

}  // namespace dd::comm
