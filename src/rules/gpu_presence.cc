// Rule: is there an NVIDIA driver (NVML) and at least one GPU?
#include <fmt/format.h>

#include "rules/node_rules.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

static std::vector<Finding> check_gpu_presence(const probe::NodeFacts& f, const CheckOptions&) {
  if (!f.gpu.nvml_loaded) {
    return {Finding{"gpu.nvml_missing",
                    Severity::warn,
                    "NVIDIA driver library (NVML) not available",
                    {f.gpu.nvml_error},
                    "Install the NVIDIA driver on this node, or run in a container with the NVIDIA runtime "
                    "(--gpus all). Without it no GPU job can run here."}};
  }
  if (f.gpu.gpus.empty()) {
    return {Finding{"gpu.none",
                    Severity::warn,
                    "NVML loaded but reports no GPU",
                    {fmt::format("driver {}", f.gpu.driver_version)},
                    "Check that the GPUs are visible to this container/cgroup (nvidia-smi -L)."}};
  }
  return {Finding{"gpu.present", Severity::ok,
                  fmt::format("{} GPU(s), driver {}", f.gpu.gpus.size(), f.gpu.driver_version)}};
}

NodeRule gpu_presence_rule() {
  return {
      "gpu.presence",
      check_gpu_presence,
      {{"gpu.nvml_missing", "NVML (libnvidia-ml.so.1) could not be loaded",
        "distdoctor reads GPUs through NVML, the library nvidia-smi uses. It is part of the NVIDIA driver. "
        "If it cannot be loaded there is no driver on this node (or the container was started without the "
        "NVIDIA runtime), so no CUDA or NCCL program can use a GPU here."},
       {"gpu.none", "NVML reports no GPU",
        "The driver is present but no GPU is visible: the container may lack --gpus, or the GPUs fell off "
        "the bus (check dmesg for Xid errors)."},
       {"gpu.present", "GPUs found", "NVML sees at least one GPU."}}};
}

}  // namespace dd::rules
