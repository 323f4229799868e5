// Each node's clock against node rank 0's, measured through the job's store when the nodes meet (issue 39):
// the Flight Recorder's times are each node's wall clock, and a rank is only compared with ranks on other
// nodes once their offsets are known. Node rank 0 asks each other node in turn (a "ping" key it sets with its
// clock read just before; the node, waiting on it, answers with its own clock; node rank 0 reads the answer):
// offset = their clock - the middle of the round trip, error = half the round trip. Node rank 0 then
// publishes every offset in one key, which the others read. A node that does not answer within the time
// allowed has no offset (NaN): its ranks are compared on its own clock only, as before.
#pragma once
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "logs/fr/fr_summary.h"
#include "rendezvous/meeting_keys.h"
#include "rendezvous/store.h"

namespace dd::launch {

struct ClockOffset {
  double offset_ms = NAN;  // this node's clock minus node rank 0's
  double error_ms = NAN;   // half the round trip it was measured over: the offset is within +- this
  bool operator==(const ClockOffset&) const = default;
};
void to_json(nlohmann::json& j, const ClockOffset& c);
void from_json(const nlohmann::json& j, ClockOffset& c);

inline constexpr auto kClockMeasureTime = std::chrono::seconds(3);  // node rank 0's whole round, at most

// One per node rank (node rank 0: 0 +- 0). Every node calls it once, after all have joined; `keys` is the
// meeting's (kLaunchKeys); `until` at least twice kClockMeasureTime away (node rank 0 asks for at most
// kClockMeasureTime, then publishes). An error only when the store fails for this node; a node that did not
// answer in time is NaN in the result.
Result<std::vector<ClockOffset>> measure_clock_offsets(rendezvous::Store& store,
                                                       const rendezvous::MeetingKeys& keys, int node_rank,
                                                       int nnodes,
                                                       std::chrono::steady_clock::time_point until);

// Offsets measured to within this are used to compare ranks across nodes (the straggler margin is 1 ms).
inline constexpr double kAlignMaxErrorMs = 2.0;

// Moves every rank's arrivals onto node rank 0's clock and marks them logs::kClocksAligned, when the ranks
// come from two nodes or more and every one of those nodes has an offset known within kAlignMaxErrorMs;
// otherwise leaves `s` as it is (each node compared on its own clock). Returns whether it aligned them.
bool align_fr_clocks(logs::FrSummary& s, const std::vector<ClockOffset>& offsets);

}  // namespace dd::launch
