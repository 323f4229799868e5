// Reasoning across ranks over Flight Recorder digests (fr_summary.h): per process group, the first
// collective sequence number where ranks disagree (op, sizes, dtypes), who waits where, who is behind or
// ahead; then the cause, the odd one out rather than the majority:
// - desync: at the first disagreeing seq the minority took another path (a tie goes to the side that went
//   further, as a rank that went on past the point took the other path); kind op, size or dtype;
// - pg_desync: a rank that never issued the seq the others wait for, and whose latest op is in another
//   process group (one the others never entered);
// - behind: a rank that never issued the seq the others wait for and sits in no collective (compute, data
//   loading, a sleep, a stuck thread: outside NCCL);
// - missing_dump: the others wait for ranks whose dumps are absent;
// - stuck: every member issued the same matching collective and none completed it (nothing to blame in
//   the records: the network, a GPU or NCCL itself).
// Pure functions: no I/O, the same digests always give the same answer.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "logs/fr/flight_recorder.h"
#include "logs/fr/fr_straggler.h"
#include "logs/fr/fr_summary.h"

namespace dd::logs {

struct FrSide {  // ranks that did the same thing at one seq
  FrSignature sig;
  std::vector<int> ranks;
};

struct FrMismatch {
  int64_t seq = -1;
  std::string kind;           // "op", "size" or "dtype": the first field that differs
  std::vector<FrSide> sides;  // the expected (majority) side first
  std::vector<int> odd_ranks;
  bool ambiguous = false;     // a tie that going further did not settle
  int64_t window_start = -1;  // the lowest seq every compared rank still had
};

struct FrRankPos {  // one rank in one group
  int rank = -1;
  int64_t issued = -1, completed = -1;
  bool dumped = true;
};

struct FrGroupReport {
  std::string pg_name, pg_desc;
  std::vector<int> members;
  std::vector<FrRankPos> positions;  // members with a dump, by rank
  std::vector<int> no_dump;          // members without one
  int64_t frontier = -1;             // the first seq some member waits on (-1: nothing unfinished)
  std::string frontier_op;           // what the waiting ranks issued there
  FrSignature frontier_sig;          // the same as a signature
  std::vector<int> waiting, behind, ahead;
  bool has_mismatch = false;
  FrMismatch mismatch;
};

struct FrCulprit {
  std::string kind;  // desync, size_mismatch, dtype_mismatch, pg_desync, behind, missing_dump, stuck
  std::vector<int> ranks;
  std::string pg_name, pg_desc;
  int64_t seq = -1;
  FrSignature did;           // what the culprit did at seq (empty when it issued nothing there)
  FrSignature expected;      // what the others did there
  std::vector<int> waiting;  // ranks that wait on the culprit
  FrOpBrief where;           // the culprit's op the stack is from (its op at seq, else its latest)
  bool has_where = false;
  std::string detail;  // one sentence
};

struct FrAnalysis {
  std::vector<int> ranks;     // ranks with a digest
  std::vector<int> expected;  // every rank a pg_config names, and the ranks above
  std::vector<int> missing;   // expected without a digest
  std::vector<FrGroupReport> groups;
  std::vector<FrCulprit> culprits;      // causes, the surest first
  std::vector<FrStraggler> stragglers;  // ranks the others waited for, collective after collective
  bool unfinished = false;              // some collective was not completed on some rank
  int64_t entries = 0;                  // ops in the digests' windows, summed
  std::vector<std::string> errors;      // dumps that could not be read
  std::vector<std::string> versions;
};

FrAnalysis analyze_fr_summary(const FrSummary& s);
FrAnalysis analyze_flight_records(const std::vector<FlightRecord>& records);  // summarize, then analyse

// "0-2,5" for ranks {0,1,2,5}.
std::string rank_list(const std::vector<int>& ranks);
// No member of the group with a dump completed any of its collectives: its frontier is the first one the
// ranks issued (where they stopped), and there is no "last completed" to name.
bool fr_none_completed(const FrGroupReport& g);

// "broadcast (site-packages/torch/distributed/distributed_c10d.py:2968) <- <module> (train.py:69)"
std::string frames_text(const std::vector<FrFrame>& frames, size_t max = 4);

nlohmann::json fr_analysis_json(const FrAnalysis& a);

}  // namespace dd::logs
