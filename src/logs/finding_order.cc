// Root-cause-first ordering of findings (finding_order.h): a stable sort of causes, the root named by
// report::first_failure, then the consequences marked by report::mark_consequence.
#include "logs/finding_order.h"

#include <algorithm>
#include <array>

#include "logs/catalogue.h"
#include "logs/log_finding_ids.h"
#include "report/first_failure.h"

namespace dd::logs {

namespace {

// Rule ids that report a failure seen from the survivors' side (the catalogue's entries say it themselves:
// CatalogueEntry::role).
constexpr std::array<std::string_view, 6> kConsequenceRuleIds = {
    ids::kTorchrunFailures, ids::kWatchdogSummary, ids::kCollDesync,
    ids::kInitIncomplete,   ids::kInitPartial,     ids::kNcclWarn};

// Whether a time may be at or after the root's. Keys are microseconds; one on a whole second most likely came
// from a clock printed to the second (NCCL's "[2026-11-27 23:01:33]"), so it stands for that whole second.
bool may_follow(int64_t t, int64_t root) {
  constexpr int64_t kSecond = 1'000'000;
  return t >= root || (t % kSecond == 0 && t + kSecond > root);
}

bool fo_before(const TimedFinding& a, const TimedFinding& b) {
  if (a.finding.severity != b.finding.severity) return a.finding.severity > b.finding.severity;
  int64_t ta = a.time < 0 ? INT64_MAX : a.time, tb = b.time < 0 ? INT64_MAX : b.time;
  if (ta != tb) return ta < tb;
  return a.from_catalogue > b.from_catalogue;
}

}  // namespace

bool is_consequence_kind(std::string_view id) {
  if (const CatalogueEntry* e = Catalogue::builtin().find(id)) return e->has_role(CatalogueRole::consequence);
  return std::find(kConsequenceRuleIds.begin(), kConsequenceRuleIds.end(), id) != kConsequenceRuleIds.end();
}

std::vector<report::Finding> root_cause_first(std::vector<TimedFinding> v, bool lower) {
  std::vector<TimedFinding> causes, later, consequences;
  for (auto& t : v) (is_consequence_kind(t.finding.id) ? later : causes).push_back(std::move(t));
  std::stable_sort(causes.begin(), causes.end(), fo_before);
  // The root: the first failure among the causes (report::first_failure), when it is a fail.
  std::vector<report::Failure> failures;
  for (const auto& t : causes) failures.push_back({t.time, t.finding.severity, false});
  const auto root = report::first_failure(failures, {.consequence_may_lead = false});
  const bool has_root = root && causes[*root].finding.severity == report::Severity::fail;
  if (has_root) std::rotate(causes.begin(), causes.begin() + long(*root), causes.begin() + long(*root) + 1);
  const int64_t root_time = has_root ? causes.front().time : -1;
  for (auto& t : later) {
    // A consequence kind that happened before the root cause is not its consequence.
    bool follows = has_root && (t.time < 0 || root_time < 0 || may_follow(t.time, root_time));
    if (!follows) {
      causes.push_back(std::move(t));
      continue;
    }
    if (lower) report::mark_consequence(t.finding, causes.front().finding);  // the evidence keeps its order
    consequences.push_back(std::move(t));
  }
  // The root stays in front; the causes behind it (and earlier consequence kinds) by severity and time.
  std::stable_sort(causes.begin() + (has_root ? 1 : 0), causes.end(), fo_before);
  // Lowered consequences are all info: earliest first. Kept at their own severity (match_text), the most
  // severe first, then the earliest, so the list still reads from the worst down.
  std::stable_sort(consequences.begin(), consequences.end(),
                   [lower](const TimedFinding& a, const TimedFinding& b) {
                     if (!lower && a.finding.severity != b.finding.severity)
                       return a.finding.severity > b.finding.severity;
                     int64_t ta = a.time < 0 ? INT64_MAX : a.time, tb = b.time < 0 ? INT64_MAX : b.time;
                     return ta < tb;
                   });
  std::vector<report::Finding> out;
  for (auto& t : causes) out.push_back(std::move(t.finding));
  for (auto& t : consequences) out.push_back(std::move(t.finding));
  return out;
}

}  // namespace dd::logs
