// /proc/PID/stat ids and this process' lineage (see proc_ids.h).
#include "probe/proc_ids.h"

#include <sstream>
#include <vector>

#include "common/redact.h"

namespace dd::probe {

std::optional<ProcIds> parse_proc_stat_ids(const std::string& stat) {
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return std::nullopt;
  ProcIds ids;
  const size_t open = stat.find('(');
  if (open < paren) ids.name = stat.substr(open + 1, paren - open - 1);
  std::istringstream head(stat.substr(0, open));
  if (!(head >> ids.pid)) return std::nullopt;
  std::istringstream rest(stat.substr(paren + 1));
  std::string state;
  if (!(rest >> state >> ids.ppid >> ids.pgid >> ids.sid)) return std::nullopt;
  ids.state = state.empty() ? '?' : state[0];
  return ids;
}

std::string read_proc_command(const Fs& fs, const std::string& pid) {
  constexpr size_t kMax = 200;
  auto raw = fs.read("/proc/" + pid + "/cmdline");
  if (!raw) return "";
  // Another process's arguments are untrusted text: "--api-key X" is hidden here, where it enters.
  return redact_command_line(raw->substr(0, kMax));
}

std::optional<ProcIds> read_proc_ids(const Fs& fs, const std::string& pid) {
  auto stat = fs.read("/proc/" + pid + "/stat");
  if (!stat) return std::nullopt;
  return parse_proc_stat_ids(*stat);
}

void read_process_lineage(const Fs& fs, HostFacts& h) {
  auto self = read_proc_ids(fs, "self");
  if (!self) return;
  h.pid = self->pid;
  h.ppid = self->ppid;
  h.pgid = self->pgid;
  h.sid = self->sid;
  h.ancestors.clear();
  h.ancestor_commands.clear();
  int64_t next = self->ppid;
  while (next > 1 && h.ancestors.size() < 64) {
    h.ancestors.push_back(next);
    h.ancestor_commands.push_back(read_proc_command(fs, std::to_string(next)));
    auto up = read_proc_ids(fs, std::to_string(next));
    if (!up || up->ppid == next) break;
    next = up->ppid;
  }
}

}  // namespace dd::probe
