// Refusals of requests beyond this node, from its facts (see request_limits.h).
#include "cli/request_limits.h"

#include <fmt/format.h>

#include "common/units.h"

namespace dd::cli {

std::string workers_beyond_node(const std::string& flag, int workers, const probe::NodeFacts& f) {
  const int64_t limit = f.system.nofile_soft;
  if (limit <= 0 || int64_t(workers) * kFilesPerWorker <= limit) return "";
  return fmt::format(
      "{} {}: this node allows {} open files (ulimit -n), enough for at most {} workers ({} each); "
      "give fewer workers or raise the limit",
      flag, workers, limit, limit / kFilesPerWorker, kFilesPerWorker);
}

std::string buffers_beyond_gpu(const std::string& flag, uint64_t bytes, const probe::NodeFacts& f) {
  int64_t smallest_mib = -1;
  for (const auto& g : f.gpu.gpus)
    if (g.memory_total_mib > 0 && (smallest_mib < 0 || g.memory_total_mib < smallest_mib))
      smallest_mib = g.memory_total_mib;
  if (smallest_mib < 0) return "";  // memory unknown: let the run find out
  const uint64_t gpu_bytes = uint64_t(smallest_mib) << 20;
  if (bytes <= gpu_bytes / 2) return "";
  return fmt::format("{} {}: two buffers of {} each (send and receive) do not fit in the GPU's {} of memory",
                     flag, size_in_words(int64_t(bytes)), size_in_words(int64_t(bytes)),
                     size_in_words(smallest_mib << 20));
}

}  // namespace dd::cli
