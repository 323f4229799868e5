// Strays: processes a launcher adopted as a child subreaper (PR_SET_CHILD_SUBREAPER) that left its workers'
// process groups (a `setsid` child, a daemon) and so outlived the group kill; found by their parent and group
// in /proc (probe/stray_children.h: only probe/ reads the machine), and stopped here (SIGTERM, then SIGKILL
// after a grace) and reaped.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace dd::process {

struct Stray {
  pid_t pid = 0;
  std::string command;  // its command line (at most 160 characters), or "(name)" when that is empty
};

// SIGTERM to each stray and its process group, up to `grace` for them to go, then SIGKILL; reaps them.
void stop_strays(const std::vector<Stray>& strays, std::chrono::milliseconds grace);

}  // namespace dd::process
