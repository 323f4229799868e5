// The leader's join window (join_steps.h): wait for every member record, reading each as it comes, so that a
// node started with another job size ends the wait at once (cluster.join.nnodes_differ) and a record that
// cannot be read is named (cluster.join.unreadable_member) instead of dropped as if the node never came.
#include <fmt/format.h>

#include "cluster/join_steps.h"
#include "cluster/node_count.h"
#include "common/json_limits.h"
#include "rendezvous/meeting_wait.h"
#include "report/rank_ranges.h"

namespace dd::cluster::join_detail {

using report::Finding;
using report::Severity;
using namespace std::chrono_literals;

namespace {

constexpr size_t kShownError = 200;  // bytes of a parse error shown (it may quote the record)

CountWords size_words(const JoinConfig& cfg) {
  if (cfg.by_hand) return {.id = "cluster.join.nnodes_differ"};
  return {.id = "cluster.join.nnodes_differ", .who = "rank", .count = "a world size of"};
}

}  // namespace

Result<Arrivals> watch_arrivals(rendezvous::Store& s, const JoinConfig& cfg,
                                Clock::time_point join_deadline) {
  Arrivals a;
  rendezvous::WaitForAll w{.ranks = rendezvous::all_ranks(cfg.world),
                           .until = join_deadline,
                           .store_deadline = cfg.start + cfg.timeout,
                           .poll = cfg.world > 256 ? 100ms : 30ms,
                           .progress_every = 5s};
  if (cfg.progress)
    w.progress = [&](const rendezvous::WaitProgress& p) {
      say(cfg.progress, ProgressKind::progress,
          fmt::format("waiting for {} {} ({:.0f} s of {:.0f} s)",
                      who(cfg.by_hand) + (p.missing.size() > 1 ? "s" : ""), rank_ranges(p.missing),
                      secs(Clock::now() - cfg.start), secs(join_deadline - cfg.start)));
    };
  w.on_arrival = [&](int r) {
    auto text = s.get(cfg.keys.member(r), std::min(cfg.start + cfg.timeout, Clock::now() + 2s));
    std::string why;
    std::optional<Member> m;
    if (text) m = dd::parse_record<Member>(*text, &why);
    if (!m) {
      why = text ? "its record does not parse: " + why
                 : "its record could not be read: " + text.error().message();
      a.unreadable[r] = why.size() > kShownError ? why.substr(0, kShownError) + "…" : why;
      return false;  // it came: count it, and name it
    }
    m->rank = r;  // the key it came under is the rank it claimed
    const CountWords words = size_words(cfg);
    if (!a.size_differs)
      a.size_differs =
          nnodes_differ(words, {cfg.self.rank, cfg.world, cfg.self.hostname}, {r, m->world, m->hostname},
                        fmt::format("from {} {}'s member record in the store", words.who, r));
    a.members.emplace(r, std::move(*m));
    return a.size_differs.has_value();  // a node that counts the job otherwise: no use waiting for the rest
  };
  auto waited = rendezvous::wait_for_all(s, cfg.keys, w);
  if (!waited) return waited.error();
  a.seen.assign(cfg.world, -1);
  for (int r = 0; r < cfg.world; ++r)
    if (const auto& t = waited->arrived[r]) a.seen[r] = secs(*t - cfg.start);
  return a;
}

std::optional<Finding> unreadable_members_finding(const JoinConfig& cfg, const ClusterView& view) {
  if (view.unreadable.empty()) return std::nullopt;
  std::vector<int> ranks;
  Finding f{"cluster.join.unreadable_member", Severity::fail};
  for (const auto& [r, why] : view.unreadable) {
    ranks.push_back(r);
    f.evidence.push_back(fmt::format("{} {}: {}", who(cfg.by_hand), r, why));
  }
  f.title =
      fmt::format("{} {} joined, but {} member record{} cannot be read", who(cfg.by_hand), rank_ranges(ranks),
                  ranks.size() == 1 ? "its" : "their", ranks.size() == 1 ? "" : "s");
  f.fix =
      "Run the same distdoctor version on every node (`distdoctor --version`): a record of another shape "
      "comes from another version, or from a process that holds the job token but is not distdoctor. The "
      "master knows nothing else about such a node: its facts and mesh are left out.";
  if (ranks.size() == 1) f.rank = ranks.front();
  return f;
}

}  // namespace dd::cluster::join_detail
