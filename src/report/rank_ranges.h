// Ranks compressed for messages ("2,3,5-9"): the one compressor, used by the join's, launch's, logs' and the
// rules' findings. Pure; in the lowest layer so every folder that names ranks uses the same text.
#pragma once
#include <string>
#include <vector>

namespace dd::report {

// The ranks as given (sorted, no repeats, for the shortest text): runs of three or more as "a-b".
std::string rank_ranges(const std::vector<int>& ranks);

// "rank 3", "ranks 0-2": any order, repeats allowed ({7,0,1,3,4,5,6} -> "ranks 0,1,3-7").
std::string ranks_phrase(std::vector<int> ranks);

}  // namespace dd::report
