// Cross-rank rule: every rank's identity from its NCCL lines ("X set by environment to Y" and "NCCL
// version"), compared by rules::odd_settings (the one comparison `launch` also uses): the rank with a setting
// or an NCCL of its own (logs.rank.env_differs). A rank that printed no INFO line (NCCL_DEBUG=WARN) or never
// finished init (the settings NCCL reads in init may not be printed yet) is unknown, not unset.
#include <fmt/format.h>

#include <cstring>
#include <map>

#include "logs/log_finding_ids.h"
#include "logs/log_rules.h"
#include "report/rank_ranges.h"
#include "rules/rank_identity.h"

namespace dd::logs {

using report::Finding;
using report::Severity;

namespace {

struct RankLines {
  rules::RankIdentity settings;  // its NCCL_* variables; known once a process of it finished init
  rules::RankIdentity library;   // its NCCL version; known once printed
};

std::vector<RankLines> ir_identities(const LogsResult& r) {
  std::map<int, RankLines> by_rank;
  for (const auto& p : r.processes) {
    if (p.rank < 0) continue;
    auto [it, fresh] = by_rank.try_emplace(p.rank);
    RankLines& id = it->second;
    if (fresh) id.settings.known = false;
    id.settings.rank = id.library.rank = p.rank;
    id.settings.known |= p.infos > 0 && p.init_complete > 0;
    for (const auto& [k, v] : p.env_settings) id.settings.items.emplace(k, v);
    if (!p.nccl_version.empty()) id.library.items.emplace(rules::kNcclLibraryItem, p.nccl_version);
  }
  std::vector<RankLines> out;
  for (auto& [rank, id] : by_rank) {
    id.library.known = !id.library.items.empty();
    out.push_back(std::move(id));
  }
  return out;
}

// With two ranks neither is singled out: name the one that holds a value where the other has none (a variable
// someone set is the likelier cause than one left alone).
void ir_prefer_set(rules::OddSetting& s) {
  if (s.singled_out || s.name == rules::kNcclLibraryItem) return;
  const auto unset = [](const std::string& v) { return v.empty() || v == "unset"; };
  if (unset(s.value) == unset(s.others_value)) return;  // both set (to different values), or neither
  if (unset(s.value)) {
    std::swap(s.ranks, s.others);
    s.value = s.others_value;
  }
  s.others_value.clear();
  s.singled_out = true;  // the ranks that set it are the ones that differ from NCCL's default
}

// The job hung or failed: a watchdog timeout, a rank that never finished init while another did, a launcher
// that reported failed workers.
bool ir_job_failed(const LogsResult& r) {
  for (const auto& w : r.watchdogs)
    if (!w.op.empty()) return true;
  for (const auto& e : r.exits)
    if (e.code != 0) return true;
  for (const auto& c : r.child_failures)
    if (c.exitcode != 0) return true;
  for (const auto& p : r.processes)
    if (p.infos > 0 && p.comm_inits > 0 && p.init_complete == 0) return true;
  return false;
}

// What the ranks then did, when they hung: "; every rank then timed out in ALLREDUCE SeqNum=1".
std::string ir_then(const LogsResult& r) {
  const WatchdogTimeout* first = nullptr;
  for (const auto& w : r.watchdogs)
    if (!w.op.empty() && (!first || (w.time >= 0 && first->time >= 0 && w.time < first->time))) first = &w;
  if (!first) return "";
  return fmt::format("; the job then hung: ranks timed out in {} SeqNum={}", first->op, first->seq);
}

void identity_rules(const LogsResult& r, std::vector<Finding>& out) {
  std::vector<RankLines> ids = ir_identities(r);
  std::vector<rules::RankIdentity> settings, libraries;
  for (auto& id : ids) {
    settings.push_back(std::move(id.settings));
    libraries.push_back(std::move(id.library));
  }
  std::vector<rules::OddSetting> odd = rules::odd_settings(libraries);
  for (auto& s : rules::odd_settings(settings)) odd.push_back(std::move(s));
  if (odd.empty()) return;
  for (auto& s : odd) ir_prefer_set(s);
  const rules::OddSetting& lead = odd.front();
  const bool failed = ir_job_failed(r);
  const bool library = lead.name == rules::kNcclLibraryItem;
  Finding f = logs_finding(
      "logs.rank.env_differs", failed || library ? Severity::fail : Severity::warn,
      rules::odd_setting_text(lead) + (failed ? ir_then(r) : ""),
      library ? "Give every rank the same NCCL: the one the framework ships (drop the LD_PRELOAD or "
                "LD_LIBRARY_PATH entry that brings another on that rank), or the same build on every node."
              : "Give every rank the same NCCL settings: set them once for the whole job (the launcher's "
                "environment, not a per-rank wrapper), or unset the odd one. A rank with another protocol, "
                "algorithm or transport than its peers can hang the first collective.");
  f.rank = lead.singled_out && lead.ranks.size() == 1 ? lead.ranks.front() : -1;
  for (const auto& s : odd)
    if (f.evidence.size() < 16) f.evidence.push_back(rules::odd_setting_text(s));
  std::vector<int> unknown_ranks;
  for (const auto& s : settings)
    if (!s.known) unknown_ranks.push_back(s.rank);
  if (!unknown_ranks.empty())
    f.evidence.push_back(fmt::format("settings unknown for {} (no NCCL INFO lines through init)",
                                     report::ranks_phrase(unknown_ranks)));
  out.push_back(std::move(f));
}

// The settings told the ranks apart where the watchdog lines could not: the hang rule's "cannot tell" is
// lowered to info and says so.
void settings_tell_apart(std::vector<Finding>& all) {
  for (auto& f : all)
    if (f.id == ids::kHangSamePlace) {
      f.severity = Severity::info;
      if (size_t k = f.title.find(kSamePlaceCannotTell); k != std::string::npos)
        f.title.replace(k, strlen(kSamePlaceCannotTell),
                        "the watchdog lines do not tell the ranks apart (their NCCL settings do)");
    }
}

}  // namespace

LogRule identity_log_rule() {
  return {
      .name = "identity",
      .fn = identity_rules,
      .docs =
          {
              {"logs.rank.env_differs", "One rank runs with an NCCL setting or an NCCL library of its own",
               "NCCL prints one INFO line per variable it takes from the environment ('NCCL_PROTO set by "
               "environment to LL') and its version at init. Compared across ranks (the comparison `launch` "
               "makes from each worker's environment), a rank whose setting or library differs from the "
               "others' is named: another protocol, algorithm, transport or NCCL build on one rank can hang "
               "the first collective, and then the watchdog timeouts only follow from it. A rank that "
               "printed no INFO lines through init (NCCL_DEBUG=WARN, or it never finished init) is left out: "
               "its settings are unknown, not unset."},
          },
      .yields_to_culprit = true,
      .with_others = settings_tell_apart};
}

}  // namespace dd::logs
