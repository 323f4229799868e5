// Rule: GPU health: uncorrectable ECC errors, pending page retirement, pending/failed row remapping, MIG
// mode.
#include <fmt/format.h>

#include "rules/node_rules.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

// Memory health of one GPU: uncorrectable ECC errors, pending page retirement, row remapping.
void add_memory_health(const probe::Gpu& g, std::vector<Finding>& out) {
  std::string who = fmt::format("GPU{} {} ({})", g.index, g.pci_bus_id, g.uuid);
  if (g.ecc_uncorrected_volatile > 0) {
    out.push_back(
        {"gpu.ecc.uncorrectable",
         Severity::fail,
         fmt::format("GPU{} has {} uncorrectable ECC error(s) since boot", g.index,
                     g.ecc_uncorrected_volatile),
         {who, fmt::format("ecc uncorrected volatile {}, aggregate {}", g.ecc_uncorrected_volatile,
                           g.ecc_uncorrected_aggregate)},
         fmt::format("Drain the GPU; reset it (nvidia-smi -r -i {}) or reboot; if errors return, RMA it",
                     g.index)});
  } else if (g.ecc_uncorrected_aggregate > 0) {
    out.push_back({"gpu.ecc.history",
                   Severity::info,
                   fmt::format("GPU{} had {} uncorrectable ECC error(s) in its lifetime (none since boot)",
                               g.index, g.ecc_uncorrected_aggregate),
                   {who}});
  }
  if (g.retired_pages_pending == 1)
    out.push_back(
        {"gpu.ecc.retirement_pending",
         Severity::fail,
         fmt::format("GPU{} has page retirement pending: memory errors until the GPU is reset", g.index),
         {who},
         fmt::format("nvidia-smi -r -i {} (no process on it) or reboot", g.index)});
  if (g.remapped_rows_failure == 1)
    out.push_back({"gpu.ecc.remap_failed",
                   Severity::fail,
                   fmt::format("GPU{} failed to remap a memory row: it cannot repair itself", g.index),
                   {who},
                   "Take the GPU out of service and RMA it"});
  else if (g.remapped_rows_pending == 1)
    out.push_back({"gpu.ecc.remap_pending",
                   Severity::fail,
                   fmt::format("GPU{} has a row remapping pending: needs a reset", g.index),
                   {who},
                   fmt::format("nvidia-smi -r -i {} (no process on it) or reboot", g.index)});
}

std::vector<Finding> check_gpu_health(const probe::NodeFacts& f, const CheckOptions&) {
  std::vector<Finding> out;
  if (f.gpu.gpus.empty()) return out;
  std::vector<std::string> mig;
  for (const auto& g : f.gpu.gpus) {
    add_memory_health(g, out);
    if (g.mig_mode == 1) mig.push_back(fmt::format("GPU{}", g.index));
  }
  if (!mig.empty())
    out.push_back(
        {"gpu.mig.enabled", Severity::warn,
         fmt::format("MIG is enabled on {}: NCCL cannot use NVLink/P2P between MIG instances", join(mig)),
         mig,
         "For multi-GPU training disable MIG: nvidia-smi -i N -mig 0 (then reset the GPU); with MIG, give "
         "each process one instance by its MIG-UUID"});
  if (out.empty())
    out.push_back({"gpu.health.ok",
                   Severity::ok,
                   fmt::format("{} GPU(s): no uncorrectable ECC error, no pending retirement/remap, MIG off",
                               f.gpu.gpus.size()),
                   {}});
  return out;
}

}  // namespace

NodeRule gpu_health_rule() {
  return {
      "gpu.health",
      check_gpu_health,
      {{"gpu.health.ok", "GPU memory healthy", "No uncorrectable ECC error, retirement or remap pending."},
       {"gpu.ecc.uncorrectable", "Uncorrectable ECC errors",
        "The GPU reported uncorrectable (double-bit) memory errors since the driver loaded. Kernels on it "
        "can "
        "fail with \"uncorrectable ECC error encountered\" (Xid 48/63/94) and hang the whole job. Reset or "
        "replace the GPU."},
       {"gpu.ecc.history", "Past uncorrectable ECC errors",
        "The lifetime counter shows uncorrectable errors, but none since boot."},
       {"gpu.ecc.retirement_pending", "Page retirement pending",
        "Pages with errors are marked for retirement, which only takes effect after a GPU reset or reboot."},
       {"gpu.ecc.remap_pending", "Row remapping pending",
        "A row remap (A100/H100 and later) is pending and takes effect at the next GPU reset."},
       {"gpu.ecc.remap_failed", "Row remapping failed",
        "The GPU ran out of spare rows; the memory error cannot be repaired. The GPU needs service."},
       {"gpu.mig.enabled", "MIG enabled",
        "With Multi-Instance GPU on, CUDA sees MIG instances rather than the GPU, one instance per process, "
        "and "
        "NCCL cannot use P2P/NVLink between instances. Multi-GPU training normally wants MIG off."}}};
}

}  // namespace dd::rules
