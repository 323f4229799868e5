// Link facts from the node's GPU facts, and link math.
#include "comm/link.h"

#include <algorithm>
#include <cstdio>

namespace dd::comm {

LinkFacts link_facts_from(const probe::GpuFacts& gpu) {
  LinkFacts f;
  f.nvml_ok = gpu.nvml_loaded;
  f.error = gpu.nvml_error;
  if (!f.nvml_ok) return f;
  for (const auto& g : gpu.gpus) {
    GpuLink l;
    l.index = g.index;
    l.name = g.name;
    l.nvlinks_active = std::max(g.nvlinks_active, 0);
    l.nvlink_version = l.nvlinks_active > 0 ? nvml_nvlink_version(g.nvlink_version) : -1;
    l.pcie_gen = g.pcie_gen;
    l.pcie_width = g.pcie_width;
    f.gpus.push_back(l);
  }
  return f;
}

int nvml_nvlink_version(int generation) {
  static const int nvml[] = {-1, 1, 2, 4, 6, 7};
  return generation >= 1 && generation <= 5 ? nvml[generation] : -1;
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
