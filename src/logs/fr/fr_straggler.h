// The rank that makes every other one wait (issue 39), from the Flight Recorder digests' arrivals: for each
// collective every rank of a process group took part in, each rank's lateness is the time it created the
// collective after the earliest rank did. A rank that comes last at most collectives, by a margin, is the
// straggler: the others sat in the collective for it. A rank that only became last after a while (a rank
// that turns slow: fail-slow) is named with the collective and the time it started.
//
// Times are compared only on one clock: the ranks of one node (FrRankSummary::node), or all of them when no
// node is known (dumps given to `logs`; the finding says so). Where arrivals name no one and the dumps have
// GPU times (TORCH_NCCL_ENABLE_TIMING), those are compared across all ranks of a group, any node: a
// collective ends together everywhere, so the rank whose kernel ran shortest started it last (a slower or
// shared GPU, whose enqueue times agree with the others'). Pure functions.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "logs/fr/fr_summary.h"

namespace dd::logs {

struct FrStraggler {
  std::string pg_name, pg_desc;
  int rank = -1;
  int node = -1;                 // the clock compared on (-1: all ranks as one)
  std::vector<int> others;       // the ranks compared with it
  size_t compared = 0;           // collectives every compared rank created (in the window below)
  size_t waited = 0;             // of them, those where a rank came last by at least kStragglerMarginNs (in
                                 // the others every rank came within that margin: nobody waited)
  size_t last = 0;               // of those, where it came last
  double late_ms = 0;            // its median lateness over the waited ones
  double others_late_ms = 0;     // the others' median lateness (how close they are to each other)
  double others_wait_share = 0;  // the part of their time the others spent waiting for it (0..1)
  double span_s = 0;             // how long the compared collectives took, first to last
  int64_t first_seq = -1;        // the window: from this collective seq ...
  int64_t last_seq = -1;         // ... to this one
  bool fail_slow = false;        // it came last only from first_seq on; before, it kept up
  int64_t before_from_seq = -1;  // with fail_slow: where the compared collectives began
  double slow_after_s = 0;       // with fail_slow: seconds from before_from_seq to first_seq
  double before_late_ms = 0;     // with fail_slow: its median lateness before
  bool on_gpu = false;           // found from GPU times: its kernels start late, "late" is on the GPU
  size_t timed = 0;              // with on_gpu: the collectives every rank timed; `compared` are those of
                                 // them one rank started last (by the margin), the others start together
};

// Named when it comes last at kStragglerLastShare of at least kStragglerMinCompared collectives where a rank
// waited (and those are a tenth of the compared ones at least), late by a median of kStragglerMinLateMs or
// more.
inline constexpr size_t kStragglerMinCompared = 8;
inline constexpr double kStragglerLastShare = 0.6;
inline constexpr double kStragglerMinLateMs = 5;
inline constexpr int64_t kStragglerMarginNs = 1'000'000;  // last by less than this is a tie
// A rank that kept up and then came last is named once it has been late for this long: shorter is a hiccup (a
// pause, a checkpoint, another process for a moment). 4 Gloo ranks on 16 shared cores, 30 s healthy: one rank
// 20 ms late in the last 27 steps (1.5 s) of 561.
inline constexpr double kFailSlowMinSpanS = 3.0;

std::vector<FrStraggler> find_stragglers(const FrSummary& s);

// "rank 1 arrives last at 100% of 120 collectives of group 0 (default_pg), 250 ms late (median): rank 0
// spends 99% of its time waiting for it"
std::string straggler_text(const FrStraggler& g);

}  // namespace dd::logs
