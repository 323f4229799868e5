// LogFacts: what the logs say, per process (host+pid, with the rank where NCCL prints it) and per file.
// Plain data with a JSON form; the rules of log_rules.h turn it into findings.
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dd::logs {

// Calls per collective ("AllReduce" -> n); looked up by string_view on the hot path.
using OpCounts = std::map<std::string, uint64_t, std::less<>>;

// Where something was seen: "file:line".
struct Where {
  std::string file;
  uint64_t line = 0;
  std::string str() const { return file + ":" + std::to_string(line); }
};

// At most this many environment settings are kept per process (ProcessFacts::env_settings).
inline constexpr size_t kMaxEnvSettings = 64;

struct ProcessFacts {
  std::string file;  // first file it appeared in
  std::string host;
  int64_t pid = -1;
  int rank = -1;  // from "comm ... rank N nranks M", Init COMPLETE, "Init timings", or a "[rankN]:" prefix
  int nranks = -1;
  int cuda_dev = -1;
  std::string bus_id;        // "busId 60" of the first communicator init ("... - Init START")
  std::string comm_id;       // its "commId 0x...": ranks of one communicator share it
  std::string nccl_version;  // "2.28.9+cuda12.9"
  // Variables NCCL said it took from the environment ("NCCL_PROTO set by environment to LL"): name -> value.
  std::map<std::string, std::string, std::less<>> env_settings;
  int cuda_driver = -1;  // cudaDriverVersion, e.g. 12080
  std::string bootstrap_if, bootstrap_ip;
  std::string network;                   // "Using network X": IB, Socket, or a plugin's name
  std::vector<std::string> net_devices;  // from "NET/<name> : Using [0]dev..." (first list seen)
  std::vector<std::string> ib_devices;   // IB HCAs NCCL listed (NET/IB : Using ...)
  std::string oob_if, oob_ip;            // "; OOB eth0:10.0.0.1<0>" from NET/IB
  std::string net_plugin;                // "internal" (no plugin found) or the plugin's name
  int gdr = -1;                          // GPU Direct RDMA: 1 on, 0 off, -1 not said
  std::map<std::string, uint32_t> channel_transports;  // "P2P/CUMEM" -> channels
  uint32_t comm_inits = 0;                             // communicator init starts seen
  uint32_t init_complete = 0;                          // "Init COMPLETE" lines
  Where first_init_complete;
  double init_total_s = -1;          // "Init timings ... total X"
  std::string init_timings;          // the timings text after "total"
  OpCounts coll_counts;              // NCCL_DEBUG_SUBSYS=COLL: op -> calls
  std::vector<OpCounts> iterations;  // the same, split on --iteration-pattern
  uint64_t nccl_lines = 0;
  uint64_t infos = 0;  // NCCL INFO lines: none under NCCL_DEBUG=WARN, where Init COMPLETE is never printed
  uint64_t warns = 0;
  std::string first_warn;
  Where first_warn_at;
  std::vector<std::string> error_trace;  // "init.cc:1234 -> 2" lines (first few)
  Where last_at;
  std::string label() const;  // "host:pid (rank r)"
};

struct FileFacts {
  std::string path;
  uint64_t bytes = 0;
  uint64_t lines = 0;
  uint64_t nccl_lines = 0;
  uint64_t truncated_lines = 0;
  uint64_t longest_line = 0;
  uint64_t nul_bytes = 0;
  bool gzip = false;
  std::string error;  // could not be read (fully)
  std::string last_line;
  uint32_t init_complete = 0;
  std::vector<std::string> processes;  // labels of processes seen in this file
  // A limit this file reached that holds for the whole run ("" none): what was lumped or left out, and why.
  std::string capped;
};

// What PyTorch's ProcessGroupNCCL printed about one rank: a watchdog timeout (op set), or only where the rank
// stood (last enqueued/completed work, on a dump signal), or only that it prepared a debug-info dump.
struct WatchdogTimeout {
  Where at;
  int rank = -1;
  int64_t seq = -1;
  std::string op;
  int64_t timeout_ms = -1;
  int64_t ran_ms = -1;
  int64_t last_enqueued = -1;
  int64_t last_completed = -1;
  int64_t numel_in = -1, numel_out = -1;
  std::string pg;              // process group: "0(default_pg)" from "[PG ID 0 PG GUID 0(default_pg) Rank 3]"
  int64_t time = -1;           // log_time_key of the line
  bool dump_only = false;      // "preparing to dump debug info": a dump was requested, nothing else said
  bool dump_prepared = false;  // the rank printed "preparing to dump debug info" (Flight Recorder dump)
  std::string dump_path;       // "Finished writing NCCLPG debug info to PATH" (TORCH_CPP_LOG_LEVEL=INFO)
};

// One failure from torchrun's ChildFailedError summary.
struct ChildFailure {
  Where at;
  std::string host;
  int rank = -1;
  int local_rank = -1;
  int exitcode = 0;
  int64_t pid = -1;
  std::string time;
  bool root_cause = false;  // listed under "Root Cause (first observed failure):"
};

// How far one rank got, from its own lines (a per-rank file, or "[rankN]:" lines of a shared console): the
// input to the cross-rank progress rules (rank_rules.cc). Times are log_time_key() values, -1 unknown.
struct RankProgress {
  int rank = -1;     // -1: a file whose rank is not known (then `file` names it)
  std::string file;  // first file it appeared in
  uint64_t lines = 0;
  Where last_at;
  int64_t last_time = -1;
  std::string last_line;       // last non-NCCL line (capped)
  bool nccl_seen = false;      // NCCL printed something: init began
  Where init_marker_at;        // last "Start initializing NCCL communicator" (MindSpore); line 0: none
  bool waiting_peers = false;  // a launcher's "Waiting peer start..." with no pod start after it
  std::string exception;       // the exception line of its first Python traceback ("" none)
  Where exception_at;          // where that traceback starts
  int64_t exception_time = -1;
  std::string peer_lost;  // first sign that a peer went away ("Connection closed by remote peer")
  Where peer_lost_at;
  int64_t peer_lost_time = -1;
  std::string waiting_in;  // "ALLREDUCE SeqNum=42" from a failed/timed-out WorkNCCL
};

// A process exit a launcher reported: torchrun ("failed (exitcode: -6) local_rank: 0 (pid: 517)", "Sending
// process 518 closing signal SIGTERM"), Paddle ("Exit code -15"), mpirun ("process rank 1 ... exited on
// signal 9").
struct ExitEvent {
  Where at;
  int64_t time = -1;
  int rank = -1;
  int local_rank = -1;
  int64_t pid = -1;
  int code = 0;              // exit code, or -signal
  bool by_launcher = false;  // the launcher sent it SIGTERM (a consequence of another failure)
};

void to_json(nlohmann::json& j, const ProcessFacts& p);
void to_json(nlohmann::json& j, const RankProgress& r);
void to_json(nlohmann::json& j, const ExitEvent& e);
void to_json(nlohmann::json& j, const FileFacts& f);
void to_json(nlohmann::json& j, const WatchdogTimeout& w);
void to_json(nlohmann::json& j, const ChildFailure& c);

}  // namespace dd::logs
