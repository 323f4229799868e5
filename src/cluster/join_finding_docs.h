// The long form of every cluster.join.* id (`distdoctor explain`); the join emits them, no rule does.
#pragma once
#include <vector>

#include "report/finding_doc.h"

namespace dd::cluster {

const std::vector<report::FindingDoc>& join_finding_docs();

}  // namespace dd::cluster
