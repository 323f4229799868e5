// Liveness during the join protocol: which members left after they joined (their live key went with their
// store connection), waits that stop waiting for them, and the finding that names them.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cluster/join_steps.h"

namespace dd::cluster::join_detail {

using namespace std::chrono_literals;

std::vector<int> gone_ranks(rendezvous::Store& s, const std::vector<int>& ranks, Clock::time_point until) {
  std::vector<std::string> keys;
  for (int r : ranks) keys.push_back(k("~live", r));
  auto have = s.check(keys, until);
  std::vector<int> gone;
  if (!have) return gone;  // the store itself failed: the callers' own deadlines name that
  for (size_t i = 0; i < ranks.size() && i < have->size(); ++i)
    if (!(*have)[i]) gone.push_back(ranks[i]);
  return gone;
}

std::vector<int> wait_unless_gone(rendezvous::Store& s, std::vector<int> ranks,
                                  const std::function<std::string(int)>& key_of, Clock::time_point until) {
  std::vector<int> lost;
  while (!ranks.empty()) {
    std::vector<std::string> keys;
    for (int r : ranks) keys.push_back(key_of(r));
    if (s.wait(keys, std::min(until, Clock::now() + 250ms))) break;
    if (Clock::now() >= until) break;
    auto have = s.check(keys, until);
    if (!have) break;
    std::vector<int> waiting;
    for (size_t i = 0; i < ranks.size(); ++i)
      if (!(*have)[i]) waiting.push_back(ranks[i]);
    for (int r : gone_ranks(s, waiting, until)) {
      lost.push_back(r);
      std::erase(waiting, r);
    }
    ranks = std::move(waiting);
  }
  return lost;
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
