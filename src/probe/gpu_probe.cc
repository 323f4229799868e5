// GPU probe through NVML: per-GPU facts (gpu_device.cc), then the pairwise P2P status and topology matrices.
#include "probe/gpu_probe.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <latch>
#include <thread>

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

// `nvidia-smi topo -p2p r`: one query per pair, mirrored (the read capability is the same both ways), a row
// per thread; it needs only the handles, so it runs beside the per-GPU reads.
void fill_p2p_matrix(const Nvml& n, const std::vector<nvmlDevice_t>& handles, GpuFacts& f) {
  const size_t ng = handles.size();
  f.p2p_read.assign(ng, std::vector<std::string>(ng));
  std::vector<std::thread> rows;
  for (size_t i = 0; i < ng; ++i)
    rows.emplace_back([&, i] {
      f.p2p_read[i][i] = "X";
      for (size_t j = i + 1; j < ng; ++j) {
        int st = -1;
        if (handles[i] && handles[j] && n.DeviceGetP2PStatus &&
            n.DeviceGetP2PStatus(handles[i], handles[j], dynlib::kNvmlP2PCapsIndexRead, &st) == kNvmlSuccess)
          f.p2p_read[i][j] = p2p_status_label(st);
      }
    });
  for (auto& r : rows) r.join();
  for (size_t i = 0; i < ng; ++i)
    for (size_t j = 0; j < i; ++j) f.p2p_read[i][j] = f.p2p_read[j][i];
}

// `nvidia-smi topo -m`: NVLinked pairs are "NV#" whatever their PCIe path, so NVML's PCIe topology query (its
// lazy topology discovery cost 50-100 ms on 4x H100) runs only for the others.
void fill_topology(const Nvml& n, const std::vector<nvmlDevice_t>& handles, const std::vector<LinkMap>& links,
                   GpuFacts& f) {
  const size_t ng = handles.size();
  f.topology.assign(ng, std::vector<std::string>(ng));
  for (size_t i = 0; i < ng; ++i)
    for (size_t j = 0; j < ng; ++j) {
      if (i == j) {
        f.topology[i][j] = "X";
        continue;
      }
      if (!handles[i] || !handles[j]) continue;
      const int nv = nvlinks_between(links, f.gpus[j], i, j);
      int level = -1;
      if (nv == 0 && n.DeviceGetTopologyCommonAncestor &&
          n.DeviceGetTopologyCommonAncestor(handles[i], handles[j], &level) != kNvmlSuccess)
        level = -1;
      f.topology[i][j] = topology_label(level, nv);
    }
}

}  // namespace

// Each GPU's facts in its own thread, beside the P2P matrix (NVML is thread-safe; on 4x H100 one GPU's
// queries took 20-50 ms, and serially they were most of `check`'s time), then the topology labels. With
// DISTDOCTOR_PROBE_TIMING the phases go to stderr.
GpuFacts probe_gpu_with(const Nvml& n, const Fs& fs, bool shutdown) {
  GpuFacts f;
  f.nvml_library = n.lib.path();
  const auto t0 = std::chrono::steady_clock::now();
  auto ms = [](std::chrono::steady_clock::time_point a) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - a)
        .count();
  };
  // (nvmlInitWithFlags(NO_ATTACH) is no shortcut: NVML then counts 0 GPUs, 4x H100.)
  if (nvmlReturn_t r = n.Init(); r != kNvmlSuccess) {
    f.nvml_error = n.init_symbol + " failed: " + n.error_string(r);
    return f;
  }
  const auto t_init = ms(t0);
  f.nvml_loaded = true;
  unsigned count = 0;
  if (!read_system(n, f, count)) {
    if (n.Shutdown) n.Shutdown();
    return f;
  }
  std::vector<nvmlDevice_t> handles(count, nullptr);
  std::vector<LinkMap> links(count);
  f.gpus.resize(count);
  const auto t1 = std::chrono::steady_clock::now();
  {
    // Getting a handle attaches the GPU (about 5 ms each on H100): in each GPU's own thread; the P2P queries
    // start once every handle is there.
    std::latch have_handles(count);
    std::vector<std::thread> workers;
    workers.emplace_back([&] {
      have_handles.wait();
      fill_p2p_matrix(n, handles, f);
    });
    for (unsigned i = 0; i < count; ++i)
      workers.emplace_back([&, i] {
        Gpu& g = f.gpus[i];
        g.index = int(i);
        nvmlDevice_t d = nullptr;
        nvmlReturn_t r = n.DeviceGetHandleByIndex ? n.DeviceGetHandleByIndex(i, &d) : -1;
        if (r == kNvmlSuccess) handles[i] = d;
        have_handles.count_down();
        if (r != kNvmlSuccess) {  // e.g. a GPU that fell off the bus; keep its slot so indices stay NVML's
          g.name = "(unavailable: " + n.error_string(r) + ")";
          return;
        }
        read_gpu(n, d, fs, g, links[i]);
      });
    for (auto& w : workers) w.join();
  }
  const auto t_gpus = ms(t1);
  resolve_unknown_link_types(f.gpus, links);
  const auto t2 = std::chrono::steady_clock::now();
  fill_topology(n, handles, links, f);
  const auto t_pairs = ms(t2);
  const auto t3 = std::chrono::steady_clock::now();
  if (shutdown && n.Shutdown) n.Shutdown();
  if (tool_env().probe_timing)
    std::fprintf(stderr, "nvml phases (ms): init %lld, %u GPUs and P2P %lld, topology %lld, shutdown %lld\n",
                 static_cast<long long>(t_init), count, static_cast<long long>(t_gpus),
                 static_cast<long long>(t_pairs), static_cast<long long>(ms(t3)));
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
  return probe_gpu_with(*nvml, fs, false);  // a probe child: its exit lets NVML go, and nobody waits for it
}

}  // namespace dd::probe
