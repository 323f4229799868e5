// fold_same_failure (see finding_fold.h).
#include "logs/finding_fold.h"

#include <algorithm>

#include "logs/finding_order.h"
#include "logs/log_finding_ids.h"
#include "report/first_failure.h"

namespace dd::logs {

namespace {

using report::Finding;
using report::Severity;

constexpr std::string_view kStoppedFirst = ids::kRankStoppedFirst;

bool starts_with(const std::string& s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }

// The same rank and node, or one of them unknown.
bool same_place(const Finding& a, const Finding& b) {
  return (a.rank < 0 || b.rank < 0 || a.rank == b.rank) &&
         (a.node.empty() || b.node.empty() || a.node == b.node);
}

// Whether `f` (a later fail) reports `root`'s failure again.
bool restates(const Finding& f, const Finding& root) {
  if (!same_place(f, root)) return false;
  if (f.id == root.id) return true;        // one error matched twice (launch, then logs)
  if (f.id == kStoppedFirst) return true;  // the stop of the rank the root names
  if (starts_with(root.id, ids::kHangPrefix) && starts_with(f.id, ids::kFrPrefix))  // two views of one hang
    return root.rank >= 0 && f.rank == root.rank;
  // launch's diagnosis of its failed rank: the failure's fix already names the catalogue entry.
  return root.id == kDiagnosedRankFailureId && root.fix.find("(" + f.id + ";") != std::string::npos;
}

// torchrun names the first rank to exit its "root cause"; when the root is another rank's, say what it is.
void correct_torchrun_root(Finding& f, const Finding& root) {
  if (f.id != ids::kTorchrunFailures || root.rank < 0) return;
  const std::string said = "; root cause: rank ";
  const size_t at = f.title.find(said);
  if (at == std::string::npos || f.title.compare(at + said.size(), std::to_string(root.rank).size() + 1,
                                                 std::to_string(root.rank) + " ") == 0)
    return;
  f.title.replace(at, said.size(), "; the first to exit (torchrun's \"root cause\"): rank ");
}

}  // namespace

bool may_be_error_of(const Finding& specific, const Finding& stop, const Catalogue& cat) {
  return specific.severity == Severity::fail && specific.consequence_of.empty() &&
         cat.find(specific.id) != nullptr && !is_consequence_kind(specific.id) && same_place(specific, stop);
}

void fold_same_failure(std::vector<Finding>& v, const Catalogue& cat) {
  auto root = std::find_if(v.begin(), v.end(), [](const Finding& f) { return f.severity == Severity::fail; });
  if (root == v.end()) return;
  // The rank that stopped first leads only when no error of that rank is known: the error leads with it.
  if (root->id == kStoppedFirst) {
    auto error =
        std::find_if(root + 1, v.end(), [&](const Finding& f) { return may_be_error_of(f, *root, cat); });
    if (error != v.end()) std::rotate(root, error, error + 1);
  }
  for (auto it = root + 1; it != v.end(); ++it) {
    if (it->severity == Severity::fail && it->consequence_of.empty() && restates(*it, *root))
      report::fold_into(*it, *root);
    correct_torchrun_root(*it, *root);
  }
}

}  // namespace dd::logs
