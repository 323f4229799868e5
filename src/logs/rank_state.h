// Where each rank stands at the end of the logs, from RankProgress, the NCCL processes of that rank, the
// watchdog records and the launchers' exits: stopped (an exception or an exit of its own), waiting (a
// timeout, a lost peer, init without Init COMPLETE), or neither. Input of the progress rules (rank_rules.cc).
#pragma once
#include <string>
#include <vector>

#include "logs/analyze.h"

namespace dd::logs {

struct RankState {
  const RankProgress* progress = nullptr;
  std::string who;      // "rank 1", or the file name when the rank is unknown
  std::string stopped;  // why it ended by itself: "raised ValueError: bad shape (r1.log:12)"
  int64_t stopped_time = -1;
  bool root_cause = false;   // torchrun marked it as the first observed failure
  std::string waits;         // why it waited: "timed out in ALLREDUCE SeqNum=42", "in NCCL init"
  bool by_launcher = false;  // the launcher stopped it (SIGTERM) after another failure
  bool watchdog_abort =
      false;  // SIGABRT after its own watchdog timeout: PyTorch took it down (a consequence)
  bool init_started = false, init_complete = false;
  uint64_t collectives = 0;  // NCCL_DEBUG_SUBSYS=COLL calls of its processes
};

std::vector<RankState> rank_states(const LogsResult& r);

}  // namespace dd::logs
