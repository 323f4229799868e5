// Who caused a hang, from the evidence the node agents gathered (pure, over AttemptRecord). A hang has one
// cause and many witnesses; the methods, strongest first:
//  1. the process state: ranks stopped (state T or t in /proc) run nothing, and leave no stack or dump;
//  2. an early exit: ranks that ended (status 0, or a failure that did not stop the job) while the others
//  went
//     on and wait: they will never enter the collective the others wait in;
//  3. the Flight Recorder: the node summaries' cross-rank verdict (the first sequence number where ranks
//     disagree, the ranks that never issued it);
//  4. the watchdog lines the ranks printed: at one SeqNum, the odd one out whose op (or number) differs took
//     another path; ranks that printed none while the others timed out never reached the collective;
//  5. identity: a rank with another NCCL library, an NCCL variable or LD_PRELOAD of its own
//     (rules/rank_identity.h);
//  6. the Python stacks: ranks outside any collective while the others wait inside one; else the ranks that
//     wait at another line of the user's code than the majority;
//  7. collective counts (NCCL_DEBUG_SUBSYS=COLL): the ranks behind;
//  8. CPU: ranks idle (under 2% of a core) while silent.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "launch/launch_facts.h"
#include "logs/hang_analysis.h"

namespace dd::launch {

struct HangCulprit {
  std::vector<int> ranks;  // the ranks that caused it; empty = none stands out
  std::string why;         // "BROADCAST at SeqNum 7 where ranks 0-2 called ALLREDUCE: it took another path"
  std::string method;      // "process state", "exit", "flight recorder", "watchdog lines", "identity",
                           // "stacks", "collective counts", "cpu"
  std::string collective;  // "BROADCAST SeqNum=7" when known
  int64_t fewest = -1;     // collective counts: the lowest count when counts differ, else -1
  std::vector<std::string> evidence;  // lines that back it (per-rank watchdog lines, stacks' positions)
};

HangCulprit hang_culprit(const AttemptRecord& a);

// "T (stopped)", "t (tracing stop)": a process that runs nothing until it is continued.
bool is_stopped_state(const std::string& proc_state);

// The watchdog lines of the ranks still running (their tails), analysed as `logs` analyses a log
// (logs/watchdog_lines.h): one verdict per process group where ranks timed out.
std::vector<logs::HangVerdict> watchdog_verdicts(const AttemptRecord& a);

}  // namespace dd::launch
