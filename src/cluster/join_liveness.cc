// Members that left the run after they joined (their live key went with their store connection:
// rendezvous::gone_ranks, rendezvous::wait_for_all with liveness): looked at again after the mesh for as long
// as its slowest link suggests, their probes dropped, and the finding that names them.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <thread>

#include "cluster/join_steps.h"
#include "rendezvous/meeting_wait.h"

namespace dd::cluster::join_detail {

using namespace std::chrono_literals;

std::chrono::milliseconds liveness_grace(const MeshResult& mesh) {
  double slowest = 0;
  for (const auto& p : mesh.probes)
    if (p.ok) slowest = std::max(slowest, p.connect_ms);
  return std::min(std::chrono::milliseconds(int64_t(slowest * 3)), std::chrono::milliseconds(2000));
}

std::vector<int> gone_after_mesh(rendezvous::Store& s, const JoinConfig& cfg, const std::vector<int>& ranks,
                                 std::chrono::milliseconds grace, Clock::time_point read_by) {
  const auto until = Clock::now() + grace;
  const auto poll = cfg.world > 256 ? 100ms : 20ms;
  for (;;) {
    std::vector<int> gone = rendezvous::gone_ranks(s, cfg.keys, ranks, read_by);
    if (!gone.empty() || Clock::now() >= until) return gone;
    std::this_thread::sleep_for(std::min<Clock::duration>(poll, until - Clock::now()));
  }
}

void drop_lost_probes(ClusterView& view, const std::vector<int>& lost) {
  std::vector<int> nodes;  // node indexes of the lost members
  for (size_t i = 0; i < view.nodes.size(); ++i)
    if (std::ranges::count(lost, view.nodes[i].lead.rank)) nodes.push_back(static_cast<int>(i));
  std::erase_if(view.mesh.probes, [&](const MeshProbe& p) {
    return std::ranges::count(nodes, p.from) > 0 || std::ranges::count(nodes, p.to) > 0;
  });
}

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
