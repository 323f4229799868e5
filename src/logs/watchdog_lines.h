// The hang analysis of lines already split by rank (what a launcher holds: the tail of each rank's log): the
// same reader of PyTorch's watchdog lines as `logs` (FrameworkScanner) and the same analysis
// (analyze_hangs), so `launch` and `logs` name the same rank on the same lines. Pure.
#pragma once
#include <string>
#include <vector>

#include "logs/hang_analysis.h"

namespace dd::logs {

struct RankLines {
  int rank = -1;                                    // the rank whose log this is
  const std::vector<std::string>* lines = nullptr;  // its lines, oldest first
  std::string source;                               // where they come from ("node0.rank1.log"), for evidence
};

// The watchdog records of each rank's lines; a line that names no rank ("[Rank N]", "[rankN]:") is the
// given rank's.
std::vector<WatchdogTimeout> watchdog_records(const std::vector<RankLines>& ranks);

// analyze_hangs over those records, every given rank a known rank of the job (one that printed no watchdog
// line while the others timed out is the missing one).
std::vector<HangVerdict> hang_verdicts(const std::vector<RankLines>& ranks);

// The first verdict that names its culprits (desync, ahead, late, missing); nullptr when none does.
const HangVerdict* culprit_verdict(const std::vector<HangVerdict>& verdicts);

}  // namespace dd::logs
