// The hang culprit's methods shared between the files that hold them (internal to src/launch; pure): each
// fills a HangCulprit and returns true when it singles out ranks. hang_culprit.h lists them, strongest first.
#pragma once
#include <string>

#include "launch/hang_culprit.h"
#include "launch/launch_facts.h"

namespace dd::launch::culprit {

// The nodes' Flight Recorder digests merged and analysed (hang_culprit.cc).
bool by_flight_recorder(const AttemptRecord& a, HangCulprit& c);
// Ranks that ended while the others wait; a rank with another NCCL or NCCL setting (odd_rank_culprit.cc).
bool by_early_exit(const AttemptRecord& a, HangCulprit& c);
bool by_identity(const AttemptRecord& a, HangCulprit& c);

}  // namespace dd::launch::culprit
