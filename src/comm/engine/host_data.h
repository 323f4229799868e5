// Host-side twins of the device kernels, for the Gloo engine (CPU buffers) and for tests: fill inputs
// with the known pattern, poison outputs, count wrong elements, and sum two buffers of a given type.
#pragma once
#include <cstdint>

#include "comm/engine/dtype.h"
#include "comm/engine/pattern.h"

namespace dd::comm {

void host_fill_input(Dtype t, void* p, uint64_t count, Coll coll, int rank);
void host_fill_const(Dtype t, void* p, uint64_t count, int value);
// Elements that differ from the expected pattern; *first (when given) gets the index of the first one, or
// stays as it is when none differs.
int64_t host_check(Dtype t, const void* p, uint64_t count, const ExpectCtx& x, int64_t* first = nullptr);
// out[i] = a[i] + b[i] (out may alias a or b); the shape of Gloo's reduce function.
void host_sum(Dtype t, void* out, const void* a, const void* b, size_t n);
// Element i as a float (exact for the pattern's values).
double host_get(Dtype t, const void* p, uint64_t i);

}  // namespace dd::comm
