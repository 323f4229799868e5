// The node agent's identity watch: each local worker's environment and loaded NCCL library, read from /proc
// while it starts (until it has loaded NCCL, or kPatience has passed), kept for the records, and compared
// across the node's ranks once all are read: a rank with another NCCL or an NCCL variable of its own is
// named at once, before any hang. The job-wide comparison, across nodes, is in the report (report_parts).
#include <fmt/format.h>

#include <set>

#include "launch/attempt_agent.h"
#include "launch/job_settings.h"
#include "launch/report_parts.h"
#include "probe/process_identity.h"
#include "rules/rank_identity.h"

namespace dd::launch {

using namespace std::chrono_literals;

namespace {

constexpr auto kPatience = 10s;     // a worker that has not loaded NCCL by then is read as it is (its library
                                    // is read again when a hang is declared)
constexpr auto kReadEvery = 500ms;  // /proc reads of the workers not yet settled

}  // namespace

std::map<std::string, std::string> identity_items(const probe::ProcessIdentity& id) {
  // As the nodes' environments are compared (job_settings.h), so a rank's values and its node's read alike.
  std::map<std::string, std::string> items;
  for (const auto& [name, value] : env_for_compare(id.env))
    if (rules::identity_variable(name)) items[name] = value;
  if (auto it = id.libraries.find("libnccl"); it != id.libraries.end())
    items[rules::kNcclLibraryItem] = it->second;
  return items;
}

namespace {

// When the node's ranks load NCCL from different files, each path gets the version inside it ("PATH
// (2.28.3+cuda12.9)"): a scan of a file of hundreds of MB, done only then, once per file.
void add_library_versions(std::vector<std::map<std::string, std::string>*> ranks) {
  std::set<std::string> paths;
  for (auto* items : ranks)
    if (auto it = items->find(rules::kNcclLibraryItem); it != items->end()) paths.insert(it->second);
  if (paths.size() < 2) return;
  for (auto* items : ranks)
    if (auto it = items->find(rules::kNcclLibraryItem); it != items->end())
      if (const std::string v = probe::nccl_file_version(it->second); !v.empty())
        it->second = fmt::format("{} ({})", it->second, v);
}

}  // namespace

void AttemptAgent::watch_identities(bool last) {
  const auto now = Clock::now();
  if (identities_settled_ || (now < next_identity_read_ && !last)) return;
  next_identity_read_ = now + kReadEvery;
  bool all = true;
  for (size_t i = 0; i < sup_.workers().size() && i < workers_.size(); ++i) {
    LocalWorker& mine = workers_[i];
    if (mine.identity_settled) continue;
    if (proc(i).exited || last) {
      mine.identity_settled = true;  // what was read before it ended stands
      continue;
    }
    const probe::ProcessIdentity id = probe::read_process_identity(proc(i).pid);
    if (id.readable) {
      mine.identity = identity_items(id);
      mine.identity_read = true;
    }
    mine.identity_settled = id.nccl_loaded() || now - t0_ >= kPatience;
    all = all && mine.identity_settled;
  }
  if (!all) return;
  identities_settled_ = true;
  warn_odd_identities();
}

// Once every worker of the node is read: a rank with another NCCL or an NCCL variable of its own, at once.
void AttemptAgent::warn_odd_identities() {
  const size_t started = std::min(sup_.workers().size(), workers_.size());  // an exec may have failed
  std::vector<std::map<std::string, std::string>*> items;
  for (size_t i = 0; i < started; ++i) items.push_back(&workers_[i].identity);
  add_library_versions(items);
  const auto& given = joined().nodes[size_t(joined().node_rank)].env;  // what launch gave them
  std::vector<rules::RankIdentity> ranks;
  for (size_t i = 0; i < started; ++i) {
    const LocalWorker& w = workers_[i];
    ranks.push_back({.rank = w.rank,
                     .node = joined().node_rank,
                     .known = w.identity_read,
                     .items = w.identity,
                     .expected_known = !given.empty(),
                     .expected = parts::identity_of_env(given)});
  }
  for (const rules::OddSetting& odd : rules::odd_settings(ranks))
    say(s_.progress, ProgressKind::warning, rules::odd_setting_text(odd));
}

}  // namespace dd::launch
