// Rule: the CUDA driver (libcuda.so.1, cuInit) is usable where NVML sees GPUs. A cuInit failure that
// CUDA_VISIBLE_DEVICES explains (a repeated device, every GPU hidden) is that finding's consequence, not a
// second cause: it is then info and names the cuda.visible_devices finding.
#include <fmt/format.h>

#include "rules/cuda_visible.h"
#include "rules/node_rules.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

// The cuda.visible_devices id whose finding explains a failing cuInit, or ""; `shown` gets the value.
std::string visible_devices_cause(const probe::NodeFacts& f, std::string& shown) {
  auto value = env_value(f, "CUDA_VISIBLE_DEVICES");
  if (!value && f.cuda.visible_devices_set) value = f.cuda.visible_devices;
  if (!value) return "";
  shown = fmt::format("CUDA_VISIBLE_DEVICES=\"{}\"", *value);
  const int ngpu = f.gpu.nvml_loaded ? static_cast<int>(f.gpu.gpus.size()) : -1;
  const CudaVisible cv = parse_cuda_visible_devices(value, f.gpu.gpus, ngpu);
  if (cv.duplicate) return "cuda.visible_devices.duplicate";
  if (cv.mode == CudaVisible::Mode::indices && cv.stop_pos == 0) return "cuda.visible_devices.empty";
  return "";
}

std::vector<Finding> check_cuda_driver(const probe::NodeFacts& f, const CheckOptions& opt) {
  if (f.gpu.gpus.empty()) return {};
  if (!f.cuda.driver_loaded && !f.cuda.driver_error.empty()) {
    std::string shown;
    const std::string cause = visible_devices_cause(f, shown);
    if (!cause.empty())
      return {{"cuda.driver_unusable",
               Severity::info,
               fmt::format("cuInit fails ({}): consequence of {}, not a driver fault", f.cuda.driver_error,
                           cause),
               {f.cuda.driver_error, "caused by " + cause, shown},
               ""}};
    return {{"cuda.driver_unusable",
             Severity::fail,
             fmt::format("NVML sees {} GPU(s) but the CUDA driver cannot be used: {}", f.gpu.gpus.size(),
                         f.cuda.driver_error),
             {f.cuda.driver_error,
              fmt::format("driver {} (CUDA {}.{})", f.gpu.driver_version, f.gpu.cuda_driver_version / 1000,
                          (f.gpu.cuda_driver_version % 1000) / 10)},
             "Check dmesg for Xid errors; on NVSwitch systems start nvidia-fabricmanager (cuInit error 802 "
             "\"system "
             "not yet initialized\"); match the container's CUDA to the driver (error 803/804)"}};
  }
  if (!f.cuda.init_probed && opt.collective_pass) return {};  // the pass's workers test CUDA
  if (!f.cuda.init_probed)
    return {
        {"cuda.driver_not_probed",
         Severity::info,
         "CUDA driver not initialised by this check (cuInit skipped; NVML sees the GPUs)",
         {},
         "Run `distdoctor check --cuda-init` (or --collectives) to test cuInit and CUDA's device count too"}};
  if (f.cuda.driver_loaded)
    return {{"cuda.driver_ok",
             Severity::ok,
             fmt::format("CUDA driver usable, {} device(s) visible", f.cuda.device_count),
             {}}};
  return {};
}

}  // namespace

NodeRule cuda_driver_rule() {
  return {
      "cuda.driver",
      check_cuda_driver,
      {{"cuda.driver_ok", "CUDA driver usable", "libcuda.so.1 loaded and cuInit succeeded."},
       {"cuda.driver_not_probed", "CUDA driver not initialised by this check",
        "cuInit takes about 0.6 s on a 4x H100 node, five times every other probe together, so `check` leaves "
        "it out; NVML still reports every GPU, and CUDA_VISIBLE_DEVICES is checked against NVML's list (indices, "
        "UUIDs, repeats). `check --cuda-init` or `check --collectives` also tests that CUDA itself initialises "
        "(Fabric Manager, container CUDA newer than the driver, GPUs off the bus)."},
       {"cuda.driver_unusable", "CUDA driver unusable",
        "NVML sees GPUs but cuInit fails, so no CUDA program (and no NCCL) can run. Common causes: Fabric "
        "Manager not running on NVSwitch machines (error 802), a container CUDA newer than the driver "
        "(803/804), a GPU fallen off the bus, or CUDA_VISIBLE_DEVICES hiding every GPU (error 100). When "
        "CUDA_VISIBLE_DEVICES explains the failure (a repeated device: error 101; every GPU hidden: error "
        "100) "
        "this finding is only info and names that cuda.visible_devices finding, the one to fix."}}};
}

}  // namespace dd::rules
