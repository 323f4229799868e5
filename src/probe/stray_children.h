// Finding a launcher's strays (process/strays.h): its live children that left its process group, read from
// /proc/PID/stat (parent, group, state) and /proc/PID/cmdline; process/ stops them.
#pragma once
#include <sys/types.h>

#include <vector>

#include "probe/fs.h"
#include "process/strays.h"

namespace dd::probe {

// Live children of this process outside its own process group, except `exclude` (e.g. the orphan guard),
// sorted by pid. `fs` reads /proc (tests may pass a recorded tree; the pids then are the tree's).
std::vector<process::Stray> find_strays(const std::vector<pid_t>& exclude = {});
std::vector<process::Stray> find_strays(const Fs& fs, pid_t self, pid_t group,
                                        const std::vector<pid_t>& exclude = {});

}  // namespace dd::probe
