// The cause of a GPU out-of-memory error when PyTorch's message names it: the caching allocator lists every
// process on the device ("GPU 1 has a total capacity of 139.80 GiB of which 7.49 GiB is free. Process 996 has
// 131.79 GiB memory in use. Including non-PyTorch memory, this process has 518.00 MiB memory in use.", see
// c10/cuda/CUDACachingAllocator.cpp); another process holding most of the GPU is the cause. Pure.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dd::logs {

struct OomHolder {
  int64_t pid = -1;      // the other process
  std::string held;      // "131.79 GiB", as printed
  int gpu = -1;          // "GPU 1" (the index inside the process's CUDA_VISIBLE_DEVICES)
  std::string capacity;  // "139.80 GiB"
};

// The process other than the one that failed that holds the most memory of the GPU, when it holds at least
// half of the GPU's capacity, or more than the failing process itself; nullopt otherwise.
std::optional<OomHolder> oom_other_holder(std::string_view message);

// "process 996, not part of this job, holds 131.79 GiB of GPU 1 (139.80 GiB)"; job_pids: the pids the logs
// show for the job's ranks (a holder among them is named as a rank of the job).
std::string oom_holder_text(const OomHolder& h, const std::vector<std::pair<int64_t, int>>& job_pids);

}  // namespace dd::logs
