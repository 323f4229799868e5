// Who caused a collective hang, from what PyTorch's ProcessGroupNCCL watchdog printed per rank (framework.h):
// per process group, the collective the first ranks to time out wait in, and the rank that caused it: the odd
// one out at that sequence number (another op or size), a rank ahead of the others (it went on: another code
// path), a rank whose own timeout came much later at a higher number (late), or a rank that never issued it
// (its last enqueued work is lower, or it printed nothing while the others timed out). Pure.
#pragma once
#include <string>
#include <vector>

#include "logs/log_facts.h"

namespace dd::logs {

enum class HangKind {
  none,     // nobody timed out in this group
  desync,   // same SeqNum, another op or size than the others (culprit_op says what it issued)
  ahead,    // timed out at a higher SeqNum at the same time as the others: it went past the collective
  late,     // had not issued the collective when the others timed out; timed out itself much later
  missing,  // never issued it: a lower last enqueued work and no timeout, or no watchdog line at all
  unknown,  // every rank timed out in the same collective: the logs do not say who was missing
};

struct HangVerdict {
  HangKind kind = HangKind::none;
  std::string pg;    // the process group ("0(default_pg)"; "" not printed)
  int64_t seq = -1;  // the collective the first ranks timed out in
  std::string op;    // its op and sizes as those ranks issued it
  int64_t numel_in = -1, numel_out = -1;
  std::vector<int> culprits;  // the ranks that caused it (odd, ahead, late or missing)
  std::vector<int> waiters;   // the ranks that timed out waiting in seq
  std::string culprit_op;     // desync: what the culprits issued at seq ("BROADCAST", "ALLGATHER NumelIn=2")
  int64_t culprit_seq = -1;   // ahead, late: the SeqNum the culprit timed out in
  std::string culprit_seq_op;
  int64_t culprit_enqueued = -1;  // late, missing: its last enqueued work when the others timed out
  int64_t waiters_enqueued = -1;  // the highest last enqueued work of the waiters
  bool culprit_silent = false;    // missing: it printed no watchdog or status line at all
  int64_t first_time = -1;        // the first timeout (log_time_key), -1 unknown
  int64_t culprit_time = -1;      // late: the culprit's own timeout
  int64_t timeout_ms = -1;
  std::vector<std::string> evidence;  // the lines it rests on
};

// known_ranks: every rank the logs show (rank prefixes, torchrun's summary): one of the group's ranks that
// printed nothing while the others timed out is the missing one (only for the default or the only group).
std::vector<HangVerdict> analyze_hangs(const std::vector<WatchdogTimeout>& records,
                                       const std::vector<int>& known_ranks);

// "0, 1, 2".
std::string rank_commas(const std::vector<int>& ranks);

// "default_pg" for "0(default_pg)", "PG 3" for "3", "" for "".
std::string pg_name(const std::string& pg);

}  // namespace dd::logs
