// oom_other_holder on PyTorch's OutOfMemoryError text (c10/cuda/CUDACachingAllocator.cpp: "Process N has X
// memory in use." for every other process on the GPU, "this process has" for itself).
#include "logs/oom_cause.h"

#include <gtest/gtest.h>

namespace dd::logs {
namespace {

constexpr const char* kOcHeld =  // as recorded on 2x H200 (fixtures/logs/h200x2_different/oom)
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 16.00 GiB. GPU 1 has a total capacity of "
    "139.80 GiB of which 7.49 GiB is free. Process 996 has 131.79 GiB memory in use. Including non-PyTorch "
    "memory, this process has 518.00 MiB memory in use. Of the allocated memory 0 bytes is allocated by "
    "PyTorch";

TEST(LogsOomCause, AnotherProcessHoldingMostOfTheGpu) {
  auto h = oom_other_holder(kOcHeld);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->pid, 996);
  EXPECT_EQ(h->held, "131.79 GiB");
  EXPECT_EQ(h->gpu, 1);
  EXPECT_EQ(h->capacity, "139.80 GiB");
  EXPECT_EQ(oom_holder_text(*h, {{1095, 0}, {1096, 1}}),
            "process 996, not part of this job, holds 131.79 GiB of GPU 1 (139.80 GiB)");
  EXPECT_EQ(oom_holder_text(*h, {{996, 3}}),
            "process 996 (rank 3 of this job) holds 131.79 GiB of GPU 1 (139.80 GiB)");
}

TEST(LogsOomCause, NoOtherProcessOrASmallOneIsNoCause) {
  EXPECT_FALSE(
      oom_other_holder("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
                       "79.19 GiB of which 46.50 MiB is free. Including non-PyTorch memory, this "
                       "process has 79.13 GiB memory in use. Of the allocated memory")
          .has_value());
  // Another rank's CUDA context (500 MiB) beside a process that filled the GPU itself.
  EXPECT_FALSE(
      oom_other_holder("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
                       "79.19 GiB of which 46.50 MiB is free. Process 41 has 500.00 MiB memory in use. "
                       "Including non-PyTorch memory, this process has 78.60 GiB memory in use.")
          .has_value());
  EXPECT_FALSE(oom_other_holder("CUDA error: out of memory").has_value());
  EXPECT_FALSE(oom_other_holder("GPU 3 has a total capacity of Process  has  memory in use").has_value());
}

}  // namespace
}  // namespace dd::logs
