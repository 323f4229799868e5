// read_proc: /proc/PID/stat parsed after the last ')' (the command name may hold spaces and parentheses) and
// /proc/PID/wchan.
#include "probe/proc_probe.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace dd::probe {
namespace {

std::string read_small_file(const std::string& path, bool& ok) {
  std::ifstream f(path);
  ok = bool(f);
  std::stringstream ss;
  if (ok) ss << f.rdbuf();
  return ss.str();
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

}  // namespace

ProcSnapshot read_proc(pid_t pid, const std::string& proc_root) {
  ProcSnapshot snap;
  const std::string dir = proc_root + "/" + std::to_string(pid);
  bool ok = false;
  const std::string stat = read_small_file(dir + "/stat", ok);
  if (!ok || stat.empty()) {
    snap.error = "no such process";
    return snap;
  }
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos) {
    snap.error = "cannot parse " + dir + "/stat";
    return snap;
  }
  // Fields from 3 (state) on; field N is fields[N - 3].
  std::istringstream rest(stat.substr(paren + 1));
  std::vector<std::string> fields;
  for (std::string f; rest >> f;) fields.push_back(f);
  if (fields.size() < 18 || fields[0].size() != 1) {
    snap.error = "cannot parse " + dir + "/stat";
    return snap;
  }
  snap.state = fields[0][0];
  snap.state_name = std::string(1, snap.state) + " (" + proc_state_word(snap.state) + ")";
  const double ticks = double(::sysconf(_SC_CLK_TCK));
  snap.cpu_s = (std::strtod(fields[14 - 3].c_str(), nullptr) + std::strtod(fields[15 - 3].c_str(), nullptr)) /
               (ticks > 0 ? ticks : 100);
  snap.threads = int(std::strtol(fields[20 - 3].c_str(), nullptr, 10));
  std::string wchan = read_small_file(dir + "/wchan", ok);
  while (!wchan.empty() && (wchan.back() == '\n' || wchan.back() == ' ')) wchan.pop_back();
  snap.wchan = wchan == "0" ? "" : wchan;
  snap.ok = true;
  return snap;
}

}  // namespace dd::probe
