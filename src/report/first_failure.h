// "Who failed first": the one rule that names the cause of a failure several processes saw, used by a pass's
// workers (comm/run/run_watch), a launched job's ranks (launch/attempt_layout), the findings of a log
// (logs/finding_order) and a cross-node phase's nodes (rules/cluster_collectives); and the one way each marks
// what followed from that cause.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/finding.h"

namespace dd::report {

// One failure as the caller saw it.
struct Failure {
  int64_t time = -1;  // when, on any clock the caller keeps (larger is later); -1 unknown: sorts last
  Severity severity = Severity::fail;
  // It usually follows from another failure: an abort or broken pipe after a peer died, a connection reset,
  // a timeout waiting for a peer, a node that only waited for another node's ranks.
  bool consequence = false;
};

struct FirstFailureRule {
  // A failure that is not a consequence but came more than `window` after the earliest failure does not take
  // the cause from it (a worker that aborted first, then another killed long after). -1: no window.
  int64_t window = -1;
  // When no failure qualifies as a cause, the earliest consequence is the cause (false: there is none).
  bool consequence_may_lead = true;
};

// The index of the cause in `v`: of the failures that are not consequences (within the window), the most
// severe, then the earliest, then the first listed; else, when the rule allows it, the earliest failure.
// nullopt when `v` is empty or nothing qualifies.
std::optional<size_t> first_failure(const std::vector<Failure>& v, FirstFailureRule rule = {});

// "consequence of ID: TITLE", the evidence line that ties a finding to its cause.
std::string consequence_line(const Finding& cause);

// Marks `f` as following from `cause`: the consequence line as its last evidence line, " (consequence of
// WHO)" after its title (WHO: the cause's id unless given) and its severity lowered to at most info.
void mark_consequence(Finding& f, const Finding& cause, std::string_view who = {});

// Folds `f` into `root`, when both report one failure (the rank that stopped first behind the error it
// stopped on, the Flight Recorder's view of a hang the logs already named, one error matched twice): `root`
// gains "also ID: TITLE" (f's, cut) as evidence; `f` is lowered to at most info, its consequence_of set and
// "same failure as ID: TITLE" (root's) as its last evidence line, " (same failure as ID)" after its title.
void fold_into(Finding& f, Finding& root);

}  // namespace dd::report
