// The compact digest of Flight Recorder dumps that fr_analysis.h reasons over. A node summarizes its own
// ranks' dumps (summarize_flight_records), publishes the JSON (a few KB per rank), and node rank 0 merges
// every node's summary (merge_fr_summaries) and analyses the result. The analysis reads nothing but these
// digests, also when it is given whole dumps (analyze_flight_records summarizes first), so the merged
// summaries give exactly the answer all dumps would give in one place.
//
// What a rank's digest keeps per process group, and why:
// - members (pg_config) and desc: who should take part, so a rank that never entered is named;
// - issued / completed: the last collective sequence number it enqueued and the last it saw complete (from
//   the entries and pg_status, whichever is higher; pg_status alone lags): who is ahead, behind, waiting;
// - window: the signature (op, input and output sizes, dtypes) of each of its last kWindowSeqs collective
//   sequence numbers, deduplicated and run-length coded: the first number where ranks disagree is found by
//   comparing these (a desync older than the window is reported at the first disagreement inside it);
// - detail: the last kDetailOps ops and every unfinished one (up to kMaxUnfinished) with state, timestamps
//   and the Python stack (frames outside torch first, capped), for the evidence;
// - arrivals: when it created each of its last kArrivalSeqs collectives (time_created_ns, the moment the
//   rank's Python called it): the rank that arrives last, collective after collective, makes every other one
//   wait (fr_straggler.h); its node, whose clock those times are on (-1: unknown); and with PyTorch's NCCL
//   timing on (TORCH_NCCL_ENABLE_TIMING) each one's time on the GPU, start to end: all ranks end a
//   collective together, so the rank whose kernels run shortest started last, on any clock;
// and per rank its latest op in any group (incl. point-to-point): where it was last seen.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/result.h"
#include "logs/fr/flight_recorder.h"

namespace dd::logs {

inline constexpr int64_t kWindowSeqs = 64;
inline constexpr size_t kDetailOps = 3;
inline constexpr size_t kMaxUnfinished = 4;
inline constexpr size_t kSummaryFrames = 10;
inline constexpr int64_t kArrivalSeqs = 512;

// What must match across ranks for one collective sequence number (coalesced ops joined with '+').
struct FrSignature {
  std::string op;      // "all_reduce" (profiling name without its "nccl:" prefix)
  std::string sizes;   // "in [[1048576]] out [[4,1048576]]"
  std::string dtypes;  // "Float"
  bool operator==(const FrSignature&) const = default;
};

// One op as the evidence shows it.
struct FrOpBrief {
  std::string pg_name;
  int64_t seq = -1;  // collective seq id (p2p: the p2p seq id)
  bool is_p2p = false;
  FrSignature sig;
  std::string state;  // scheduled, started, completed
  int64_t record_id = -1;
  int64_t time_created_ns = -1;
  std::vector<FrFrame> frames;  // user frames first (see kSummaryFrames)
  bool operator==(const FrOpBrief&) const = default;
};

struct FrRun {  // seqs [start, start + count) all had signature sigs[sig]
  int64_t start = 0, count = 0;
  size_t sig = 0;
  bool operator==(const FrRun&) const = default;
};

struct FrPgTrack {
  std::string pg_name, pg_desc;
  std::vector<int> members;
  int64_t issued = -1, completed = -1;
  std::vector<FrSignature> sigs;
  std::vector<FrRun> runs;
  std::vector<FrOpBrief> detail;  // oldest first
  // Created time (ns) of collective seqs arrival_first_seq, arrival_first_seq + 1, ...; -1 where the dump
  // has none. At most kArrivalSeqs, the last ones.
  int64_t arrival_first_seq = -1;
  std::vector<int64_t> arrival_ns;
  // Each of those collectives' GPU time (ns, start to end event; -1 unknown); empty when no entry had one.
  std::vector<int64_t> gpu_ns;
  bool operator==(const FrPgTrack&) const = default;
};

// FrRankSummary::node of a rank whose times were moved onto node rank 0's clock (launch measured each node's
// offset when the nodes met): ranks of every node compare as one clock.
inline constexpr int kClocksAligned = -2;

struct FrRankSummary {
  int rank = -1;
  int node = -1;  // the node whose clock its times are on (launch's node rank); -1: unknown; kClocksAligned
  std::string source, version, comm_lib_version;
  std::vector<FrPgTrack> groups;  // every group of pg_config, and any group its entries name
  bool has_last = false;
  FrOpBrief last;  // its latest op (highest record id) in any group
  std::vector<std::string> warnings;
  bool operator==(const FrRankSummary&) const = default;
};

struct FrSummary {
  std::vector<FrRankSummary> ranks;  // sorted by rank, one per rank
  std::vector<std::string> errors;   // "file: why" for dumps that could not be read
  bool operator==(const FrSummary&) const = default;
};

FrRankSummary summarize_flight_record(const FlightRecord& r);
FrSummary summarize_flight_records(const std::vector<FlightRecord>& records);

// Every node's summary in one: ranks sorted, a rank seen twice kept once (the digest with more ops).
FrSummary merge_fr_summaries(const std::vector<FrSummary>& parts);

// The signature of one seq on one rank, and a short text of it: "all_reduce in [[1024]] Float".
std::string signature_text(const FrSignature& s);
// The same in words: "all_reduce of 1,048,576 float32 (4 MiB)", "all_gather of 1,048,576 float32 (4 MiB)
// into 4,194,304"; signature_text for what it cannot read (coalesced ops, unknown shapes).
std::string signature_words(const FrSignature& s);

// JSON, for publishing through the store. from JSON never throws: a wrong type is an Error.
nlohmann::json fr_summary_to_json(const FrSummary& s);
Result<FrSummary> fr_summary_from_json(const nlohmann::json& j);

}  // namespace dd::logs
