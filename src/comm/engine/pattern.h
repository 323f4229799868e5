// The data patterns of the correctness checks, shared by host code and CUDA kernels: every rank's input
// is a known function of (rank, index) and every output element has an exact expected value.
// Values are small integers, so float, bfloat16, half and int32 all hold them and their sums exactly:
// reducing collectives use "narrow" inputs in [-2, 2] (sums exact in bfloat16 up to 128 ranks, half
// up to 1024), the others "wide" inputs in [-125, 125] so a chunk from the wrong rank is caught.
#pragma once
#include <cstddef>
#include <cstdint>

#ifdef __CUDACC__
#define DD_HD __host__ __device__ inline
#else
#define DD_HD inline
#endif

namespace dd::comm {

enum class Coll : int {
  all_reduce = 0,
  all_gather = 1,
  reduce_scatter = 2,
  broadcast = 3,
  reduce = 4,
  alltoall = 5,
  sendrecv = 6,
};

inline constexpr int kPoison = -1000;  // written to outputs before each checked run; never a valid value
inline constexpr int kMaxExactBf16Ranks = 128;

DD_HD int narrow_value(int rank, uint64_t i) { return int((i + uint64_t(rank)) % 5) - 2; }
DD_HD int wide_value(int rank, uint64_t i) { return int((i * 7 + uint64_t(rank) * 13) % 251) - 125; }

// Sum over ranks 0..n-1 of narrow_value(k, i), in O(1).
DD_HD int narrow_sum(int n, uint64_t i) {
  int full = n / 5, rem = n % 5, s = full * 10;
  for (int k = 0; k < rem; ++k) s += int((i + uint64_t(k)) % 5);
  return s - 2 * n;
}

DD_HD bool coll_reduces(Coll c) {
  return c == Coll::all_reduce || c == Coll::reduce_scatter || c == Coll::reduce;
}

// Input element i of `rank` for collective c.
DD_HD int input_value(Coll c, int rank, uint64_t i) {
  return coll_reduces(c) ? narrow_value(rank, i) : wide_value(rank, i);
}

struct ExpectCtx {
  Coll coll;
  int rank;
  int nranks;
  int root;        // broadcast / reduce
  int peer;        // sendrecv: the rank this one receives from
  uint64_t chunk;  // elements per rank chunk (all_gather, reduce_scatter, alltoall)
};

// Expected output element i of ctx.rank; sets *checked = false where the output is undefined (reduce,
// non-root).
DD_HD int expected_value(const ExpectCtx& x, uint64_t i, bool* checked) {
  *checked = true;
  switch (x.coll) {
    case Coll::all_reduce:
      return narrow_sum(x.nranks, i);
    case Coll::all_gather:
      return wide_value(int(i / x.chunk), i % x.chunk);
    case Coll::reduce_scatter:
      return narrow_sum(x.nranks, uint64_t(x.rank) * x.chunk + i);
    case Coll::broadcast:
      return wide_value(x.root, i);
    case Coll::reduce:
      if (x.rank != x.root) *checked = false;
      return narrow_sum(x.nranks, i);
    case Coll::alltoall:
      return wide_value(int(i / x.chunk), uint64_t(x.rank) * x.chunk + i % x.chunk);
    case Coll::sendrecv:
      return wide_value(x.peer, i);
  }
  *checked = false;
  return 0;
}

}  // namespace dd::comm
