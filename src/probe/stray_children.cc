// find_strays (see stray_children.h): every /proc/PID whose stat names this process as parent, another
// process group, and a state other than zombie.
#include "probe/stray_children.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>

#include "probe/proc_ids.h"

namespace dd::probe {

namespace {

constexpr size_t kCommandChars = 160;

// Its command line, NULs and control characters as spaces (read_proc_command redacts secrets), else "(name)".
std::string command_of(const Fs& fs, const std::string& pid, const std::string& name) {
  std::string cmd = read_proc_command(fs, pid).substr(0, kCommandChars);
  for (char& c : cmd)
    if (!std::isprint(static_cast<unsigned char>(c))) c = ' ';
  while (!cmd.empty() && cmd.back() == ' ') cmd.pop_back();
  if (!cmd.empty()) return cmd;
  return name.empty() ? "(?)" : "(" + name + ")";
}

}  // namespace

std::vector<process::Stray> find_strays(const Fs& fs, pid_t self, pid_t group,
                                        const std::vector<pid_t>& exclude) {
  std::vector<process::Stray> out;
  auto names = fs.list("/proc");
  if (!names) return out;
  for (const auto& name : *names) {
    if (name.empty() || !std::all_of(name.begin(), name.end(),
                                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      continue;
    auto ids = read_proc_ids(fs, name);
    if (!ids || ids->ppid != self || ids->pgid == group || ids->state == 'Z') continue;
    const pid_t pid = pid_t(ids->pid);
    if (std::find(exclude.begin(), exclude.end(), pid) != exclude.end()) continue;
    out.push_back({pid, command_of(fs, name, ids->name)});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.pid < b.pid; });
  return out;
}

std::vector<process::Stray> find_strays(const std::vector<pid_t>& exclude) {
  return find_strays(*make_real_fs(), ::getpid(), ::getpgrp(), exclude);
}

}  // namespace dd::probe
