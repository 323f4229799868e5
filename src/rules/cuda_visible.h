// CUDA_VISIBLE_DEVICES as CUDA reads it, as a pure function (cuda_visible_parse.cc; exposed for tests).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "probe/facts.h"

namespace dd::rules {

struct CudaVisible {
  enum class Mode { all, indices, uuids, mig };
  Mode mode = Mode::all;
  std::vector<int> nvml_indices;     // visible GPUs as NVML indices, in CUDA order (indices/uuids modes)
  std::vector<std::string> mig_ids;  // MIG mode: the ids as given (not checked)
  int count = -1;                    // devices CUDA will see; -1 unknown (no GPU list, or MIG)
  int stop_pos = -1;                 // 0-based entry where CUDA stopped; -1 none
  std::string stop_entry;            // that entry
  std::string stop_reason;  // "empty", "not a number", "negative", "out of range", "unknown UUID", ...
  int ignored = 0;          // entries after stop_pos that CUDA never reads
  bool duplicate = false;   // a repeated device: CUDA then shows no device at all
  std::string duplicate_entry;
};

// gpus: the NVML GPU list (index, uuid); ngpu < 0 means the GPU count is unknown (no range/UUID checks).
CudaVisible parse_cuda_visible_devices(const std::optional<std::string>& value,
                                       const std::vector<probe::Gpu>& gpus, int ngpu);

}  // namespace dd::rules
