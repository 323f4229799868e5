// Device-side data handling for the correctness checks: fill inputs with the known pattern, poison
// outputs, and count the elements that differ from the expected value (all on the GPU, every element).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "comm/engine/dtype.h"
#include "comm/engine/pattern.h"

namespace dd::comm {

// p[j] = input_value(coll, rank, j) for j < count.
cudaError_t launch_fill_input(Dtype t, void* p, uint64_t count, Coll coll, int rank, cudaStream_t s);
// p[j] = value for j < count.
cudaError_t launch_fill_const(Dtype t, void* p, uint64_t count, int value, cudaStream_t s);
// d_wrong[0] += number of j < count with p[j] != expected_value(x, j) (where checked); d_wrong[1] =
// min(d_wrong[1], the smallest such j). Callers set d_wrong[0] = 0 and d_wrong[1] = ~0 before the first
// check.
cudaError_t launch_check(Dtype t, const void* p, uint64_t count, const ExpectCtx& x,
                         unsigned long long* d_wrong, cudaStream_t s);

}  // namespace dd::comm
