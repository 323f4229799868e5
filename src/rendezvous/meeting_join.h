// The first two steps of a rendezvous over any Store, under a MeetingKeys prefix: claim a rank (a counter, so
// a rank claimed twice is seen by both sides), then publish this member in one round trip: its live key, what
// must be readable before it counts as arrived (node facts, job settings), then its member record.
#pragma once
#include <string>
#include <vector>

#include "rendezvous/meeting_keys.h"
#include "rendezvous/store.h"

namespace dd::rendezvous {

// Adds 1 to keys.claim(rank): 1 = this process is the first to claim the rank, more = another holds it.
Result<int64_t> claim_rank(Store& s, const MeetingKeys& keys, int rank, Deadline deadline);

// One Store::pipeline: keys.live(rank) (on the embedded TCP store it goes with this connection, so a member
// whose process died is seen gone), then `before` in order, then keys.member(rank) = record. Whoever sees the
// member key finds what came before it.
Status publish_member(Store& s, const MeetingKeys& keys, int rank, const std::string& record,
                      const std::vector<StoreOp>& before, Deadline deadline);

}  // namespace dd::rendezvous
