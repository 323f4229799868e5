// Strays: processes a launch's job left behind outside its workers' process groups (a `setsid` child, a
// daemon, a process that forks and exits again and again so that its pid changes) and that so outlive the
// group kill. Found in /proc (probe/stray_children.h: only probe/ reads the machine) by a scan the caller
// passes in, and stopped here: SIGTERM, SIGKILL after a grace, scan after scan until one finds nothing.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace dd::process {

struct Stray {
  pid_t pid = 0;
  pid_t group = 0;      // its process group when the job made it (signalled whole with it), else 0
  std::string command;  // its command line (at most 160 characters), or "(name)" when that is empty
};

struct StraysStopped {
  std::vector<Stray> found;  // every process a scan found, in the order found, at most kStraysNamed
  size_t more = 0;           // found beyond those
  std::vector<Stray> left;   // what the last scan still found when the deadline passed (state D, EPERM)
  int scans = 0;
};

constexpr size_t kStraysNamed = 32;

// Stops what `scan` finds: SIGTERM to each and to its group, a scan every 10 ms (each new one gets SIGTERM
// too) until one finds nothing (and the next, 2 ms later, agrees) or `grace` has passed (or cut_short, when
// given, returns true: a second Ctrl-C); then SIGKILL to what each scan finds, scan after scan, until one
// finds nothing, for at most 1 s and 2000 scans. Those that are this process's children are reaped.
StraysStopped stop_strays(const std::function<std::vector<Stray>()>& scan, std::chrono::milliseconds grace,
                          const std::function<bool()>& cut_short = {});

}  // namespace dd::process
