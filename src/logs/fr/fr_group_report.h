// Per process group view of Flight Recorder digests (internal to fr_analysis.cc, exposed for tests): who
// takes part, where each rank is, the first disagreeing seq, and the frontier some ranks wait on.
#pragma once
#include <vector>

#include "logs/fr/fr_analysis.h"

namespace dd::logs {

// One report per process group any digest names, sorted by group name.
std::vector<FrGroupReport> fr_group_reports(const FrSummary& s);

}  // namespace dd::logs
