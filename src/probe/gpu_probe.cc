// GPU probe through NVML: per-GPU facts (gpu_device.cc), then the pairwise P2P status and topology matrices.
#include "probe/gpu_probe.h"

#include <algorithm>

#include "probe/gpu_device.h"
#include "probe/gpu_labels.h"
#include "probe/tool_env.h"

namespace dd::probe {
namespace {

using dynlib::kNvmlSuccess;
using dynlib::Nvml;
using dynlib::nvmlDevice_t;
using dynlib::nvmlReturn_t;

// Driver version, CUDA driver version and the GPU count; false (with f.nvml_error) when the count fails.
bool read_system(const Nvml& n, GpuFacts& f, unsigned& count) {
  char buf[256] = {0};
  if (n.SystemGetDriverVersion && n.SystemGetDriverVersion(buf, sizeof(buf) - 1) == kNvmlSuccess)
    f.driver_version = trim_nul(buf, sizeof(buf));
  int cuda = 0;
  if (n.SystemGetCudaDriverVersion && n.SystemGetCudaDriverVersion(&cuda) == kNvmlSuccess)
    f.cuda_driver_version = cuda;
  if (!n.DeviceGetCount || n.DeviceGetCount(&count) != kNvmlSuccess) {
    f.nvml_error = "nvmlDeviceGetCount failed";
    return false;
  }
  return true;
}

// Without nvmlDeviceGetNvLinkRemoteDeviceType, a link to a bus id that is no GPU of ours ends at an NVSwitch.
void resolve_unknown_link_types(const std::vector<Gpu>& gpus, std::vector<LinkMap>& links) {
  for (auto& lm : links) {
    if (!lm.type_unknown) continue;
    for (auto it = lm.to_bus.begin(); it != lm.to_bus.end();) {
      bool is_gpu = false;
      for (const auto& g : gpus) is_gpu = is_gpu || normalize_bus_id(g.pci_bus_id) == it->first;
      if (is_gpu) {
        ++it;
        continue;
      }
      lm.to_switch += it->second;
      it = lm.to_bus.erase(it);
    }
  }
}

// NVLinks joining GPUs i and j: direct links, plus the links both have into NVSwitches.
int nvlinks_between(const std::vector<LinkMap>& links, const Gpu& gj, size_t i, size_t j) {
  int nv = 0;
  auto it = links[i].to_bus.find(normalize_bus_id(gj.pci_bus_id));
  if (it != links[i].to_bus.end()) nv += it->second;
  if (links[i].to_switch > 0 && links[j].to_switch > 0)
    nv += std::min(links[i].to_switch, links[j].to_switch);
  return nv;
}

// `nvidia-smi topo -p2p r` and `nvidia-smi topo -m` matrices.
void fill_pair_matrices(const Nvml& n, const std::vector<nvmlDevice_t>& handles,
                        const std::vector<LinkMap>& links, GpuFacts& f) {
  const size_t ng = handles.size();
  f.p2p_read.assign(ng, std::vector<std::string>(ng));
  f.topology.assign(ng, std::vector<std::string>(ng));
  for (size_t i = 0; i < ng; ++i)
    for (size_t j = 0; j < ng; ++j) {
      if (i == j) {
        f.p2p_read[i][j] = f.topology[i][j] = "X";
        continue;
      }
      if (!handles[i] || !handles[j]) continue;
      int st = -1;
      if (n.DeviceGetP2PStatus &&
          n.DeviceGetP2PStatus(handles[i], handles[j], dynlib::kNvmlP2PCapsIndexRead, &st) == kNvmlSuccess)
        f.p2p_read[i][j] = p2p_status_label(st);
      int level = -1;
      if (n.DeviceGetTopologyCommonAncestor &&
          n.DeviceGetTopologyCommonAncestor(handles[i], handles[j], &level) != kNvmlSuccess)
        level = -1;
      f.topology[i][j] = topology_label(level, nvlinks_between(links, f.gpus[j], i, j));
    }
}

}  // namespace

GpuFacts probe_gpu_with(const Nvml& n, const Fs& fs) {
  GpuFacts f;
  f.nvml_library = n.lib.path();
  if (nvmlReturn_t r = n.Init(); r != kNvmlSuccess) {
    f.nvml_error = n.init_symbol + " failed: " + n.error_string(r);
    return f;
  }
  f.nvml_loaded = true;
  unsigned count = 0;
  if (!read_system(n, f, count)) {
    if (n.Shutdown) n.Shutdown();
    return f;
  }
  std::vector<nvmlDevice_t> handles;
  std::vector<LinkMap> links;
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t d = nullptr;
    nvmlReturn_t r = n.DeviceGetHandleByIndex ? n.DeviceGetHandleByIndex(i, &d) : -1;
    Gpu g;
    g.index = int(i);
    LinkMap lm;
    if (r != kNvmlSuccess) {  // e.g. a GPU that fell off the bus; keep its slot so indices stay NVML's
      g.name = "(unavailable: " + n.error_string(r) + ")";
      d = nullptr;
    } else {
      read_gpu(n, d, fs, g, lm);
    }
    f.gpus.push_back(std::move(g));
    handles.push_back(d);
    links.push_back(std::move(lm));
  }
  resolve_unknown_link_types(f.gpus, links);
  fill_pair_matrices(n, handles, links, f);
  if (n.Shutdown) n.Shutdown();
  return f;
}

GpuFacts probe_gpu(const Fs& fs) { return probe_gpu(fs, {tool_env().nvml_lib, "DISTDOCTOR_NVML_LIB"}); }

GpuFacts probe_gpu(const Fs& fs, const dynlib::PathOverride& nvml_lib) {
  auto nvml = dynlib::load_nvml(nvml_lib);
  if (!nvml) {
    GpuFacts f;
    f.nvml_error = nvml.error().message();
    return f;
  }
  return probe_gpu_with(*nvml, fs);
}

}  // namespace dd::probe
