// The finding that names the members who left the run after they joined (their live key went with their store
// connection: rendezvous::gone_ranks, rendezvous::wait_for_all with liveness).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cluster/join_steps.h"

namespace dd::cluster::join_detail {

report::Finding lost_members_finding(const JoinConfig& cfg, const std::vector<Member>& members,
                                     const std::vector<int>& lost) {
  std::vector<std::string> names, evidence;
  for (int r : lost) {
    auto m = std::find_if(members.begin(), members.end(), [r](const Member& x) { return x.rank == r; });
    // "node1(1)" as the other cluster findings name nodes; "node rank 1" when the host is not known.
    std::string name = m != members.end() && !m->hostname.empty() ? fmt::format("{}({})", m->hostname, r)
                                                                  : fmt::format("{} {}", who(cfg.by_hand), r);
    names.push_back(name);
    evidence.push_back(
        fmt::format("{} {} ({}): joined, then its connection to the master closed (pid {} there)",
                    who(cfg.by_hand), r, name, m != members.end() ? m->pid : 0));
  }
  return report::Finding{
      "cluster.node.lost",
      report::Severity::fail,
      fmt::format("{} left the run after joining", fmt::join(names, ", ")),
      evidence,
      "Its process ended mid-run: killed (look for the OOM killer in `dmesg` there), crashed (its own "
      "output says why), or its host lost the network. Run `distdoctor check` on that node alone, then again "
      "across the nodes.",
      "",
      lost.size() == 1 ? lost.front() : -1};
}

}  // namespace dd::cluster::join_detail
