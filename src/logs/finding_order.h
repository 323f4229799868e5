// Root cause first: orders the findings of `logs` (and of match_text) by severity, then by when they happened
// across ranks, and marks the findings that follow from the first cause (a watchdog timeout after a peer
// died, connection resets on the survivors, SIGTERM/exit -15 from the launcher, generic NCCL error codes) as
// its consequences: placed after the causes, lowered to info, "(consequence of ID)" after the title and a
// "consequence of ID: title" evidence line last.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "report/finding.h"

namespace dd::logs {

// A finding with when it happened (log_time_key; -1 unknown) and whether it came from the catalogue.
struct TimedFinding {
  report::Finding finding;
  int64_t time = -1;
  bool from_catalogue = false;
};

// True for ids that usually follow from another failure rather than cause one.
bool is_consequence_kind(std::string_view id);

// Orders causes first (most severe, then earliest, catalogue matches before rule summaries), then the
// consequences of the first fail cause (earliest first). lower: also lower consequences to info and add
// the "consequence of" line (logs does; match_text only reorders).
std::vector<report::Finding> root_cause_first(std::vector<TimedFinding> v, bool lower);

}  // namespace dd::logs
