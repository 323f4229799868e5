// own_gpu_values: each worker's own entry of CUDA_VISIBLE_DEVICES (the node's list, or the CUDA index).
#include "comm/run/own_gpu.h"

#include <algorithm>

#include "comm/run/run_setup.h"
#include "rules/cuda_visible.h"
#include "rules/engine_choice.h"

namespace dd::comm {

namespace {

// Whether CUDA reads the node's CUDA_VISIBLE_DEVICES to its end, so that its entries can be handed out one by
// one (unset: yes).
bool every_entry_read(const probe::NodeFacts& facts) {
  if (!facts.cuda.visible_devices_set) return true;
  using rules::CudaVisible;
  const int ngpu = int(facts.gpu.gpus.size());
  const CudaVisible cv = rules::parse_cuda_visible_devices(facts.cuda.visible_devices, facts.gpu.gpus,
                                                           facts.gpu.gpus.empty() ? -1 : ngpu);
  return cv.mode != CudaVisible::Mode::mig && cv.stop_pos < 0 && !cv.duplicate && cv.count > 0;
}

}  // namespace

std::vector<std::string> own_gpu_values(const RunOptions& opt, const RunLayout& layout,
                                        const probe::NodeFacts& facts) {
  if (opt.engine != rules::EngineKind::nccl) return {};
  if (std::any_of(opt.env.begin(), opt.env.end(),
                  [](const auto& kv) { return kv.first == "CUDA_VISIBLE_DEVICES"; }))
    return {};
  if (!every_entry_read(facts)) return {};
  const std::vector<std::string> entries = rules::visible_gpu_ids(facts);  // as launch --bind-gpu hands out
  std::vector<std::string> out;
  for (const auto& group : layout.groups) {
    if (group.size() != 1) return {};
    const auto at = std::find(layout.local.begin(), layout.local.end(), group[0]);
    if (at == layout.local.end()) return {};
    const size_t local = size_t(at - layout.local.begin());
    const int dev = local < opt.devices.size() ? opt.devices[local] : int(local);
    if (dev < 0 || size_t(dev) >= entries.size()) return {};
    out.push_back(entries[dev]);
  }
  return out;
}

}  // namespace dd::comm
