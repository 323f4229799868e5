// One rank's PyTorch Flight Recorder dump as plain data. A dump is what ProcessGroupNCCL (or the gloo/c10d
// hooks) writes to <TORCH_FR_DUMP_TEMP_FILE><rank>: a pickled dict (or, from _dump_nccl_trace_json, the
// same dict as JSON) holding version, pg_config, pg_status and the ring buffer's entries (docs/
// flight_recorder.md). Parsing is tolerant: a field that is missing or of another type keeps its default,
// and the dump's version is kept so readers can judge. The rank is not in the dump: it comes from the file
// name (<prefix><rank>) or from whoever asked for the dump.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "logs/fr/pickle_reader.h"

namespace dd::logs {

struct FrFrame {
  std::string name;  // Python function
  std::string file;
  int64_t line = -1;
  bool operator==(const FrFrame&) const = default;
};

// One recorded collective or point-to-point op (one kernel launch; coalesced ops share a seq id).
struct FrEntry {
  int64_t record_id = -1;  // position in the ring buffer's history
  int64_t pg_id = -1;      // ProcessGroupNCCL uid (the key of pg_status)
  std::string pg_name;     // process group name (the key of pg_config)
  std::string pg_desc;     // "default_pg", "undefined", or the desc the user gave new_group
  int64_t collective_seq_id = -1;
  int64_t p2p_seq_id = -1;
  int64_t op_id = -1;
  std::string op;  // profiling_name: "nccl:all_reduce", "nccl:send 0->1", "nccl:coalesced"
  std::vector<std::vector<int64_t>> input_sizes, output_sizes;
  std::vector<std::string> input_dtypes, output_dtypes;  // "Float", "BFloat16", ...
  std::string state;                                     // "scheduled", "started", "completed" ("" unknown)
  int64_t time_created_ns = -1;
  int64_t time_started_ns = -1;    // when the watchdog saw it start; -1 not seen
  int64_t time_completed_ns = -1;  // when the watchdog saw it complete; -1 not seen
  double duration_ms = -1;         // only with TORCH_NCCL_ENABLE_TIMING
  int64_t timeout_ms = -1;
  bool is_p2p = false;
  bool retired = false;  // left the watchdog's list (a retired, not completed entry timed out)
  std::string thread_name;
  std::vector<FrFrame> frames;  // innermost first, as recorded (capped at kMaxFrames)

  bool completed() const { return state == "completed"; }
  bool operator==(const FrEntry&) const = default;
};

// A process group as pg_config describes it.
struct FrGroup {
  std::string name;
  std::string desc;
  std::vector<int> ranks;  // global ranks
  bool operator==(const FrGroup&) const = default;
};

// pg_status: the last sequence numbers ProcessGroupNCCL enqueued, saw start and saw complete (-1 unknown).
struct FrGroupStatus {
  int64_t pg_id = -1;
  int64_t last_enqueued = -1, last_started = -1, last_completed = -1;
  bool operator==(const FrGroupStatus&) const = default;
};

struct FlightRecord {
  int rank = -1;                 // from the file name or the caller; -1 unknown
  std::string source;            // file it came from ("" when built in memory)
  std::string format;            // "pickle" or "json"
  std::string version;           // the dump's own version ("2.10"); "" when absent
  std::string comm_lib_version;  // NCCL version as the dump says it ("2.28.9"); "" when absent
  std::vector<FrGroup> groups;
  std::vector<FrGroupStatus> status;
  std::vector<FrEntry> entries;       // oldest first
  std::vector<std::string> warnings;  // fields that were missing or odd, capped
  bool operator==(const FlightRecord&) const = default;
};

inline constexpr size_t kMaxFrames = 64;            // per entry
inline constexpr size_t kMaxFrEntries = 1'000'000;  // per dump
inline constexpr size_t kMaxFrGroups = 100'000;     // per dump

// FlightRecord from a decoded dump (the dict PyTorch pickles or writes as JSON). Error only when it is not
// a dump at all (not an object, or none of version, pg_config, entries).
Result<FlightRecord> flight_record_from_dump(const nlohmann::json& dump);

// FlightRecord from the bytes of a dump file: a pickle (0x80 first) or JSON ('{' first).
Result<FlightRecord> parse_flight_record(std::string_view bytes, const PickleLimits& limits = {});

// Reads a dump file (through probe/regular_file.h: regular files only, at most limits.max_input_bytes,
// bounded in time) and parses it; rank from the file name, source = path.
Result<FlightRecord> read_flight_record_file(const std::string& path, const PickleLimits& limits = {});

// True when bytes look like a dump: a pickle, or JSON whose first 64 KiB name "pg_config".
bool looks_like_flight_record(std::string_view head);

// The rank a dump file name ends with: "nccl_trace_rank_3" -> 3, "fr_trace_12" -> 12, "dump_7.json" -> 7
// (one extension is skipped); -1 when the base name does not end in digits.
int rank_from_dump_name(std::string_view path);

// The record's own JSON form (round-trips: from_json(to_json(r)) == r).
void to_json(nlohmann::json& j, const FrFrame& f);
void from_json(const nlohmann::json& j, FrFrame& f);
void to_json(nlohmann::json& j, const FrEntry& e);
void from_json(const nlohmann::json& j, FrEntry& e);
void to_json(nlohmann::json& j, const FrGroup& g);
void from_json(const nlohmann::json& j, FrGroup& g);
void to_json(nlohmann::json& j, const FrGroupStatus& s);
void from_json(const nlohmann::json& j, FrGroupStatus& s);
void to_json(nlohmann::json& j, const FlightRecord& r);
void from_json(const nlohmann::json& j, FlightRecord& r);

}  // namespace dd::logs
