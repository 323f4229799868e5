// read_proc_stat: /proc/PID/stat parsed after the last ')' (the command name may hold spaces and
// parentheses); read_proc adds /proc/PID/wchan and a stopped process's stop signal from its threads.
#include "probe/proc_probe.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <vector>

#include "probe/regular_file.h"

namespace dd::probe {
namespace {

// /proc/PID/{stat,wchan} through the one safe opener (a few hundred bytes; capped at 64 KiB all the same).
std::string read_small_file(const std::string& path, bool& ok) {
  auto text = read_regular_file(path, ReadLimits{.max_bytes = 64 << 10, .deadline = std::chrono::seconds(1)});
  ok = bool(text);
  return ok ? std::move(text->text) : std::string();
}

const char* proc_state_word(char state) {
  switch (state) {
    case 'R':
      return "running";
    case 'S':
      return "sleeping";
    case 'D':
      return "disk sleep";
    case 'T':
      return "stopped";
    case 't':
      return "tracing stop";
    case 'X':
      return "dead";
    case 'Z':
      return "zombie";
    case 'P':
      return "parked";
    case 'I':
      return "idle";
    default:
      return "unknown";
  }
}

// Field 52 of a stat line (exit_code: a stopped thread's stop signal, an exiting one's wait status), given
// its fields from 3 on; `absent` when the line has no such field.
int exit_code_field(const std::vector<std::string>& fields, int absent = 0) {
  return fields.size() >= 52 - 2 ? int(std::strtol(fields[52 - 3].c_str(), nullptr, 10)) : absent;
}

// PF_EXITING in the flags of stat field 9 (include/linux/sched.h): set as do_exit begins.
constexpr unsigned long kPfExiting = 0x4;

// Fields from 3 (state) on of a stat line; false when it cannot be parsed.
bool stat_fields(const std::string& stat, std::vector<std::string>& fields) {
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return false;
  std::istringstream rest(stat.substr(paren + 1));
  for (std::string f; rest >> f;) fields.push_back(f);
  return fields.size() >= 18 && fields[0].size() == 1;
}

// The stop signal of a stopped process: only the thread that dequeued it records it (at most 512 threads).
int stop_signal_of_threads(const std::string& dir) {
  DIR* d = ::opendir((dir + "/task").c_str());
  if (!d) return 0;
  int sig = 0;
  int seen = 0;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.' || ++seen > 512) continue;
    bool ok = false;
    std::vector<std::string> fields;
    if (!stat_fields(read_small_file(dir + "/task/" + e->d_name + "/stat", ok), fields)) continue;
    if (int code = exit_code_field(fields); code > 0 && code < 65) {
      sig = code;
      break;
    }
  }
  ::closedir(d);
  return sig;
}

}  // namespace

ProcSnapshot read_proc_stat(pid_t pid, const std::string& proc_root) {
  ProcSnapshot snap;
  const std::string dir = proc_root + "/" + std::to_string(pid);
  bool ok = false;
  const std::string stat = read_small_file(dir + "/stat", ok);
  if (!ok || stat.empty()) {
    snap.error = "no such process";
    return snap;
  }
  // Fields from 3 (state) on; field N is fields[N - 3].
  std::vector<std::string> fields;
  if (!stat_fields(stat, fields)) {
    snap.error = "cannot parse " + dir + "/stat";
    return snap;
  }
  snap.state = fields[0][0];
  snap.state_name = std::string(1, snap.state) + " (" + proc_state_word(snap.state) + ")";
  const double ticks = double(::sysconf(_SC_CLK_TCK));
  snap.cpu_s = (std::strtod(fields[14 - 3].c_str(), nullptr) + std::strtod(fields[15 - 3].c_str(), nullptr)) /
               (ticks > 0 ? ticks : 100);
  snap.threads = int(std::strtol(fields[20 - 3].c_str(), nullptr, 10));
  if (snap.state == 'T' || snap.state == 't') snap.stop_signal = exit_code_field(fields);
  snap.exiting = snap.state == 'Z' || snap.state == 'X' ||
                 (std::strtoul(fields[9 - 3].c_str(), nullptr, 10) & kPfExiting) != 0;
  if (snap.exiting) snap.exit_status = exit_code_field(fields, -1);
  snap.ok = true;
  return snap;
}

ProcSnapshot read_proc(pid_t pid, const std::string& proc_root) {
  ProcSnapshot snap = read_proc_stat(pid, proc_root);
  if (!snap.ok) return snap;
  const std::string dir = proc_root + "/" + std::to_string(pid);
  if ((snap.state == 'T' || snap.state == 't') && (snap.stop_signal <= 0 || snap.stop_signal >= 65))
    snap.stop_signal = stop_signal_of_threads(dir);
  bool ok = false;
  std::string wchan = read_small_file(dir + "/wchan", ok);
  while (!wchan.empty() && (wchan.back() == '\n' || wchan.back() == ' ')) wchan.pop_back();
  snap.wchan = wchan == "0" ? "" : wchan;
  return snap;
}

}  // namespace dd::probe
