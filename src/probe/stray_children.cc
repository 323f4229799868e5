// find_strays (see stray_children.h): one pass over /proc/PID/stat (parent, group, session, state), the
// descendants of this process by parent links, then the processes in the groups and sessions they made.
#include "probe/stray_children.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "probe/proc_ids.h"

namespace dd::probe {

namespace {

constexpr size_t kCommandChars = 160;
constexpr int kMaxDepth = 4096;  // parent links followed from one process (a loop in a recorded tree ends)

// Its command line, NULs and control characters as spaces (read_proc_command redacts secrets), else "(name)".
std::string command_of(const Fs& fs, const std::string& pid, const std::string& name) {
  std::string cmd = read_proc_command(fs, pid).substr(0, kCommandChars);
  for (char& c : cmd)
    if (!std::isprint(static_cast<unsigned char>(c))) c = ' ';
  while (!cmd.empty() && cmd.back() == ' ') cmd.pop_back();
  if (!cmd.empty()) return cmd;
  return name.empty() ? "(?)" : "(" + name + ")";
}

bool is_pid_name(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// Whether pid's parent links reach self (memo: pid -> 1 yes, 0 no).
bool descends(int64_t pid, int64_t self, const std::map<int64_t, ProcIds>& procs,
              std::map<int64_t, char>& memo) {
  std::vector<int64_t> path;
  bool yes = false;
  for (int64_t at = pid; path.size() < size_t(kMaxDepth);) {
    if (auto m = memo.find(at); m != memo.end()) {
      yes = m->second;
      break;
    }
    path.push_back(at);
    auto p = procs.find(at);
    if (p == procs.end() || p->second.ppid <= 0 || p->second.ppid == at) break;
    if (p->second.ppid == self) {
      yes = true;
      break;
    }
    at = p->second.ppid;
  }
  for (int64_t p : path) memo[p] = yes;
  return yes;
}

}  // namespace

std::vector<process::Stray> find_strays(const Fs& fs, pid_t self, pid_t group,
                                        const std::vector<pid_t>& exclude,
                                        const std::vector<pid_t>& job_groups) {
  std::vector<process::Stray> out;
  auto names = fs.list("/proc");
  if (!names) return out;
  std::map<int64_t, ProcIds> procs;
  for (const auto& name : *names)
    if (is_pid_name(name))
      if (auto ids = read_proc_ids(fs, name)) procs[ids->pid] = std::move(*ids);
  std::map<int64_t, char> memo;
  std::set<int64_t> job_ids(job_groups.begin(), job_groups.end());  // ids of the job's groups and sessions
  std::set<int64_t> below;                                          // descendants of self
  for (const auto& [pid, ids] : procs)
    if (pid != self && descends(pid, self, procs, memo)) {
      below.insert(pid);
      job_ids.insert(pid);
    }
  job_ids.erase(self);
  job_ids.erase(group);
  for (pid_t p : exclude) job_ids.erase(p);
  for (const auto& [pid, ids] : procs) {
    const bool ours = below.count(pid) || job_ids.count(ids.pgid) || job_ids.count(ids.sid);
    if (!ours || pid == self || ids.pgid == group || ids.state == 'Z') continue;
    if (std::find(exclude.begin(), exclude.end(), pid_t(pid)) != exclude.end()) continue;
    const pid_t job_group = job_ids.count(ids.pgid) && ids.pgid > 1 ? pid_t(ids.pgid) : 0;
    out.push_back({pid_t(pid), job_group, command_of(fs, std::to_string(pid), ids.name)});
  }
  return out;  // sorted: the map's order
}

std::vector<process::Stray> find_strays(const std::vector<pid_t>& exclude,
                                        const std::vector<pid_t>& job_groups) {
  return find_strays(*make_real_fs(), ::getpid(), ::getpgrp(), exclude, job_groups);
}

}  // namespace dd::probe
