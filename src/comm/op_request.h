// OpRequest: one run of one collective (size, dtype, repetitions, deadline); RankResult: what one rank
// measured and verified for it.
#pragma once
#include <chrono>
#include <cstdint>

#include "comm/collective.h"
#include "comm/dtype.h"

namespace dd::comm {

struct OpRequest {
  Coll coll = Coll::all_reduce;
  Dtype dtype = Dtype::f32;
  uint64_t bytes = 0;
  bool in_place = false;
  int warmup = 1;
  int iters = 1;
  bool check = true;  // poison, run once, count wrong elements, then time
  int root = 0;
  int pair_a = -1, pair_b = -1;  // sendrecv between two ranks only (per-pair matrix); -1 = ring
  std::chrono::milliseconds timeout{10000};
  bool corrupt = false;  // test hook: overwrite one output element before the check (proves checks fail)
};

struct RankResult {
  int rank = -1;
  double time_us = 0;   // mean time of one timed iteration
  int64_t wrong = 0;    // elements that differed from the expected value
  int64_t checked = 0;  // elements compared
  bool participated = true;
};

}  // namespace dd::comm
