// Rule: orphaned System V shared-memory segments (nattch 0), with the ipcrm commands to free them.
#include <fmt/format.h>

#include "rules/node_rules.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

std::vector<Finding> check_sysv(const probe::NodeFacts& f, const CheckOptions&) {
  const auto& segs = f.system.sysv_orphans;
  if (segs.empty()) return {};
  int64_t total = 0;
  std::vector<std::string> ev, cmds;
  for (const auto& s : segs) {
    if (s.nattch != 0) continue;
    total += s.bytes;
    ev.push_back(fmt::format("shmid {} key {} {} uid {} creator pid {}", s.shmid, s.key, human_bytes(s.bytes),
                             s.uid, s.cpid));
    cmds.push_back(fmt::format("ipcrm -m {}", s.shmid));
  }
  if (cmds.empty()) return {};
  // Small leftovers are common and harmless; large ones eat memory that the job needs.
  bool big = total >= 64LL * 1024 * 1024 || cmds.size() >= 16;
  return {{"sys.sysv_shm.orphaned", big ? Severity::warn : Severity::info,
           fmt::format("{} orphaned SysV shared-memory segment(s) (nattch 0) hold {}", cmds.size(),
                       human_bytes(total)),
           ev, join(cmds, "; ") + "   (after checking no job of yours still needs them: ipcs -m)"}};
}

}  // namespace

NodeRule sysv_shm_rule() {
  return {"sys.sysv_shm",
          check_sysv,
          {{"sys.sysv_shm.orphaned", "Orphaned SysV shared memory",
            "Segments with no process attached (nattch 0), usually left by crashed training jobs. They keep "
            "their "
            "memory until removed or the machine reboots, and a restarted job may fail to create segments. "
            "Remove "
            "each with ipcrm -m SHMID (listed in the fix)."}}};
}

}  // namespace dd::rules
