// Finding what a launcher's job left behind (process/strays.h): every live process that descends from the
// launcher (by the parent links of /proc/PID/stat: as a child subreaper it gets back what its workers'
// processes orphan, so a process that forks and exits to change its pid stays below it), or that is in a
// process group or session the job made; process/ stops them.
#pragma once
#include <sys/types.h>

#include <vector>

#include "probe/fs.h"
#include "process/strays.h"

namespace dd::probe {

// Live processes that descend from this one or whose process group or session id is the pid of such a
// process or one of `job_groups` (the workers' own groups, whose leaders are gone); except those in this
// process's own group, `exclude` (e.g. the orphan guard) and zombies. Sorted by pid. Each names its group
// when that group is the job's (Stray::group; 0 when it joined another's). `fs` reads /proc (tests may pass a
// recorded tree; the pids then are the tree's).
std::vector<process::Stray> find_strays(const std::vector<pid_t>& exclude = {},
                                        const std::vector<pid_t>& job_groups = {});
std::vector<process::Stray> find_strays(const Fs& fs, pid_t self, pid_t group,
                                        const std::vector<pid_t>& exclude = {},
                                        const std::vector<pid_t>& job_groups = {});

}  // namespace dd::probe
