// The words for a hang verdict (hang_analysis.h), shared by `logs` (logs.hang.*) and launch's hang report:
// who caused it, in which collective, and the sentence that says so.
#pragma once
#include <string>
#include <vector>

#include "logs/hang_analysis.h"

namespace dd::logs {

// "rank 3", "ranks 0, 1, 2".
std::string rank_words(const std::vector<int>& ranks);

// " on default_pg", "" when the verdict names no process group.
std::string pg_suffix(const HangVerdict& v);

// "rank 3 called BROADCAST where ranks 0, 1, 2 called ALLREDUCE at SeqNum 7 on default_pg: rank 3 took
// another code path"; "" for HangKind::none and unknown.
std::string hang_verdict_title(const HangVerdict& v);

// The collective the culprits are at: what they issued instead (desync: "BROADCAST SeqNum=7"), where they
// went on to (ahead: "ALLREDUCE SeqNum=9"), else the one the others wait in ("ALLREDUCE SeqNum=7").
std::string hang_verdict_collective(const HangVerdict& v);

}  // namespace dd::logs
