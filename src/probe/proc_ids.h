// Which processes belong together: a process' parent, process group and session from /proc/PID/stat, and
// this process' lineage (its ancestors), so rules can tell the job being checked from other processes on a
// GPU. Reads only through Fs.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "probe/facts.h"
#include "probe/fs.h"

namespace dd::probe {

struct ProcIds {
  int64_t pid = 0;
  int64_t ppid = 0;
  int64_t pgid = 0;
  int64_t sid = 0;
  char state = '?';  // R S D T Z ...
  std::string name;  // the command name between the parentheses
};

// Fields 1 and 4-6 of a /proc/PID/stat line (parsed after the last ')': the name may hold spaces and
// parentheses); nullopt when malformed.
std::optional<ProcIds> parse_proc_stat_ids(const std::string& stat);

// /proc/<pid>/cmdline through fs: argv joined by spaces, cut at 200 bytes; "" when unreadable.
std::string read_proc_command(const Fs& fs, const std::string& pid);

// /proc/<pid>/stat through fs; pid may be "self".
std::optional<ProcIds> read_proc_ids(const Fs& fs, const std::string& pid);

// This process' pid, ppid, pgid, sid and ancestors with their command lines (parent first, up to but without
// pid 1; at most 64).
// Run in the process itself (not in a probe child). Leaves h unchanged where /proc is unreadable.
void read_process_lineage(const Fs& fs, HostFacts& h);

}  // namespace dd::probe
