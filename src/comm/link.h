// Link limits for bandwidth comparison: NVLink count/version and PCIe generation/width of each GPU (from the
// node's facts: the gpu probe reads NVML with a deadline), and the per-direction bandwidth a collective can
// hope for.
#pragma once
#include <string>
#include <vector>

#include "probe/facts.h"

namespace dd::comm {

struct GpuLink {
  int index = -1;
  std::string name;
  int nvlinks_active = 0;
  int nvlink_version = -1;  // as NVML reports it (see nvlink_generation)
  int pcie_gen = -1;
  int pcie_width = -1;
};

struct LinkFacts {
  bool nvml_ok = false;
  std::string error;
  std::vector<GpuLink> gpus;
};

// The link facts of the node's GPUs (nvml_ok false and error set when NVML could not be read).
// GpuLink::nvlink_version holds NVML's version value, as bench has always reported it.
LinkFacts link_facts_from(const probe::GpuFacts& gpu);

// NVML's nvmlNvlinkVersion value of an NVLink generation (1-5), the inverse of nvlink_generation.
int nvml_nvlink_version(int generation);

// NVLink generation (1-5) of an NVML version value (NVML counts 2.2 and 3.1 too: H100/H200 report 6 = 4.0).
int nvlink_generation(int nvml_version);
// GB/s per direction of one NVLink of this NVML version (NVLink 2-4: 25, 5: 50; unknown: 25).
double nvlink_gbps_per_link(int nvml_version);
// GB/s per direction of a PCIe link (after encoding); 0 when unknown.
double pcie_gbps(int gen, int width);

struct LinkLimit {
  double gbps = 0;          // per-direction limit for GPU-to-GPU traffic inside the node
  std::string description;  // "NVLink 4 x18 = 450 GB/s"
};
// The weakest GPU's limit among the first `ngpus` GPUs: NVLink when every GPU has active links, else PCIe.
LinkLimit intra_node_limit(const LinkFacts& f, int ngpus);

}  // namespace dd::comm
