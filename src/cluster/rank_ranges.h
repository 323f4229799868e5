// Ranks compressed for messages ("2,3,5-9"): the one compressor, used by the join's, launch's and bench's
// findings. Pure; in its own file so readers of peer records (launch/hang_watch.cc) need nothing of the join.
#pragma once
#include <string>
#include <vector>

namespace dd::cluster {

// The ranks as given (sorted, no repeats, for the shortest text): runs of three or more as "a-b".
std::string rank_ranges(const std::vector<int>& ranks);

}  // namespace dd::cluster
