// IdentityWatch (see identity_watch.h).
#include "launch/identity_watch.h"

#include <fmt/format.h>

#include <set>

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

void IdentityWatch::tick(std::vector<LocalWorker>& workers, Clock::time_point t0, bool last) {
  const auto now = Clock::now();
  if (settled_ || (now < next_read_ && !last)) return;
  next_read_ = now + kReadEvery;
  bool all = true;
  for (LocalWorker& mine : workers) {
    if (mine.identity_settled || !mine.proc) continue;  // settled, or never started
    if (mine.proc->exited || last) {
      mine.identity_settled = true;  // what was read before it ended stands
      continue;
    }
    const probe::ProcessIdentity id = probe::read_process_identity(mine.proc->pid);
    if (id.readable) {
      mine.identity = identity_items(id);
      mine.identity_read = true;
    }
    mine.identity_settled = id.nccl_loaded() || now - t0 >= kPatience;
    all = all && mine.identity_settled;
  }
  if (!all) return;
  settled_ = true;
  warn_odd(workers);
}

// Once every worker of the node is read: a rank with another NCCL or an NCCL variable of its own, at once.
void IdentityWatch::warn_odd(std::vector<LocalWorker>& workers) {
  std::vector<LocalWorker*> started;  // an exec may have failed
  for (LocalWorker& w : workers)
    if (w.proc) started.push_back(&w);
  std::vector<std::map<std::string, std::string>*> items;
  for (LocalWorker* w : started) items.push_back(&w->identity);
  add_library_versions(items);
  const JoinedNodes& j = s_.joined;
  const auto& given = j.nodes[size_t(j.node_rank)].env;  // what launch gave them
  std::vector<rules::RankIdentity> ranks;
  for (const LocalWorker* w : started)
    ranks.push_back({.rank = w->rank,
                     .node = j.node_rank,
                     .known = w->identity_read,
                     .items = w->identity,
                     .expected_known = !given.empty(),
                     .expected = parts::identity_of_env(given)});
  for (const rules::OddSetting& odd : rules::odd_settings(ranks))
    say(s_.progress, ProgressKind::warning, rules::odd_setting_text(odd));
}

}  // namespace dd::launch
