// OpRequest: one run of one collective (size, dtype, repetitions, deadline); RankResult: what one rank
// measured and verified for it.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>

#include "comm/engine/collective.h"
#include "comm/engine/dtype.h"

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
  // The worker replaces `timeout` with one from a measured warm-up (op_deadline.h); `timeout` is then only
  // the supervisor's estimate before the run.
  bool measured_deadline = false;
  // The deadline of one run when the worker measured it (op_deadline.h): a run that takes longer, or an op
  // that shows no progress for this long, has stalled however long the whole op may take. 0: only `timeout`.
  std::chrono::milliseconds run_timeout{0};
  bool corrupt = false;  // test hook: overwrite one output element before the check (proves checks fail)
  // --check all: every timed run is checked too (each then timed on its own between its data preparation
  // and its check, not back to back); false: only the one run before the warm-up is checked.
  bool check_every = false;
};

// Extra time for an op's first run, which may set up connections (NCCL connects lazily per collective).
constexpr std::chrono::milliseconds kFirstRunAllowance{10000};

// How long one library call of `r` may wait: one run's deadline when measured, else the whole op's.
inline std::chrono::milliseconds call_timeout(const OpRequest& r) {
  return r.run_timeout.count() > 0 ? r.run_timeout : r.timeout;
}

// Whether this run's output is compared at all: asked for, and a form whose result is defined
// (in-place alltoall and sendrecv are timed but not checked, as nccl-tests does).
inline bool data_checked(const OpRequest& r) {
  return r.check && (!r.in_place || coll_info(r.coll).in_place_checked);
}

struct RankResult {
  int rank = -1;
  double time_us = 0;        // mean time of one timed iteration
  int64_t wrong = 0;         // elements that differed from the expected value
  int64_t checked = 0;       // elements compared
  int64_t first_wrong = -1;  // index of the first wrong element in the checked output (-1: none)
  void note_wrong_at(int64_t i) { first_wrong = first_wrong < 0 ? i : std::min(first_wrong, i); }
  bool participated = true;
  double alloc_us = 0;  // time spent growing buffers for this run (--timing)
  double wall_us = 0;   // the whole op in the worker: fills, warm-up, timed runs, checks (--timing)
};

}  // namespace dd::comm
