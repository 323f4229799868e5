// The last step of a rendezvous: wait until every rank's key has come (its member record, or a later step's
// answer such as check's mesh results), under one deadline, naming the ranks still missing when it passes.
// The caller says how it shows progress and when to give up early (a stop signal); with liveness on it stops
// waiting for a member whose live key went with its connection (embedded TCP store; other stores keep live
// keys, so there the wait runs to its deadline).
#pragma once
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rendezvous/meeting_keys.h"
#include "rendezvous/store.h"

namespace dd::rendezvous {

struct WaitProgress {
  const std::vector<int>& missing;  // ranks whose key has not come, ascending
  size_t arrived = 0;               // how many of the ranks' keys have come
  size_t total = 0;
};

struct WaitForAll {
  std::vector<int> ranks;       // whose keys to wait for
  std::string what = "member";  // each rank's key: keys.of(what, rank)
  Deadline until;               // the wait ends then; the ranks still missing go to WaitOutcome::missing
  Deadline store_deadline{};    // each store call's deadline (default: until)
  std::optional<std::chrono::milliseconds> call_slice;  // at most this long per store call (stop is polled)
  std::chrono::milliseconds poll{100};                  // pause between rounds
  // The ranks have joined (each set keys.live(rank)): stop waiting for one whose live key is gone.
  bool liveness = false;
  // Called after a round that still misses someone: when the arrived count changed (progress_on_change,
  // the first round included), and when progress_every passed since it was last called (or since the start).
  std::function<void(const WaitProgress&)> progress;
  std::chrono::milliseconds progress_every{10000};
  bool progress_on_change = false;
  std::function<bool()> stop;  // asked before each round: true ends the wait (WaitOutcome::stopped)
  // Called once for each rank, in the round its key is first seen (the caller may read what came, such as the
  // member record); true ends the wait after that round (WaitOutcome::stopped): what came shows that waiting
  // for the rest is pointless.
  std::function<bool(int rank)> on_arrival;
};

struct WaitOutcome {
  std::vector<std::optional<Clock::time_point>> arrived;  // arrived[i]: when ranks[i]'s key was first seen
  std::vector<int> missing;  // ranks whose key had not come when the wait ended (empty: all came)
  std::vector<int> gone;     // liveness: ranks that left before their key came
  bool stopped = false;      // ended by the stop predicate or by on_arrival
};

// An Error only when the store fails before the deadline (or before its first answer); a deadline that
// passes is an outcome with `missing` set, as of the last answer.
Result<WaitOutcome> wait_for_all(Store& s, const MeetingKeys& keys, const WaitForAll& w);

// The ranks among `ranks` whose live key is gone now (none when the store cannot answer: the callers' own
// deadlines name that).
std::vector<int> gone_ranks(Store& s, const MeetingKeys& keys, const std::vector<int>& ranks, Deadline until);

// 0, 1, .., world-1.
std::vector<int> all_ranks(int world);

}  // namespace dd::rendezvous
