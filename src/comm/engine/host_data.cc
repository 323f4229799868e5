// Host data handling: patterns, poison, checks and sums on CPU buffers of the four test types.
#include "comm/engine/host_data.h"

namespace dd::comm {

namespace {
void put(Dtype t, void* p, uint64_t i, double v) {
  switch (t) {
    case Dtype::f32:
      static_cast<float*>(p)[i] = float(v);
      break;
    case Dtype::i32:
      static_cast<int32_t*>(p)[i] = int32_t(v);
      break;
    case Dtype::f16:
      static_cast<uint16_t*>(p)[i] = float_to_half(float(v));
      break;
    case Dtype::bf16:
      static_cast<uint16_t*>(p)[i] = float_to_bf16(float(v));
      break;
  }
}
}  // namespace

double host_get(Dtype t, const void* p, uint64_t i) {
  switch (t) {
    case Dtype::f32:
      return static_cast<const float*>(p)[i];
    case Dtype::i32:
      return static_cast<const int32_t*>(p)[i];
    case Dtype::f16:
      return half_to_float(static_cast<const uint16_t*>(p)[i]);
    case Dtype::bf16:
      return bf16_to_float(static_cast<const uint16_t*>(p)[i]);
  }
  return 0;
}

void host_fill_input(Dtype t, void* p, uint64_t count, Coll coll, int rank) {
  for (uint64_t i = 0; i < count; ++i) put(t, p, i, input_value(coll, rank, i));
}

void host_fill_const(Dtype t, void* p, uint64_t count, int value) {
  for (uint64_t i = 0; i < count; ++i) put(t, p, i, value);
}

int64_t host_check(Dtype t, const void* p, uint64_t count, const ExpectCtx& x, int64_t* first) {
  int64_t bad = 0;
  for (uint64_t i = 0; i < count; ++i) {
    bool checked;
    int e = expected_value(x, i, &checked);
    if (checked && host_get(t, p, i) != double(e) && bad++ == 0 && first) *first = int64_t(i);
  }
  return bad;
}

void host_sum(Dtype t, void* out, const void* a, const void* b, size_t n) {
  switch (t) {
    case Dtype::f32:
      for (size_t i = 0; i < n; ++i)
        static_cast<float*>(out)[i] = static_cast<const float*>(a)[i] + static_cast<const float*>(b)[i];
      break;
    case Dtype::i32:
      for (size_t i = 0; i < n; ++i)
        static_cast<int32_t*>(out)[i] = static_cast<const int32_t*>(a)[i] + static_cast<const int32_t*>(b)[i];
      break;
    case Dtype::f16:
    case Dtype::bf16:
      for (size_t i = 0; i < n; ++i) put(t, out, i, float(host_get(t, a, i) + host_get(t, b, i)));
      break;
  }
}

}  // namespace dd::comm
