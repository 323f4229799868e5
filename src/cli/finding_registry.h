// The one registry of finding docs: every part that emits findings declares its ids with title and
// explanation (report::FindingDoc); this puts the tables together for `explain` and its --list, and the
// registry test checks that every id the code emits is among them.
#pragma once
#include <vector>

#include "report/finding_doc.h"

namespace dd::cli {

// Rules (node and cluster), the cluster join, the collective passes, launch, log analysis, NCCL information
// lines. The known-error catalogue (data/known_errors.json) is the other source `explain` reads.
std::vector<report::FindingDoc> all_finding_docs();

}  // namespace dd::cli
