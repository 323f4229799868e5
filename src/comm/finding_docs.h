// Long-form docs of every finding id the collective tests emit (comm.*), for `distdoctor explain`.
#pragma once
#include <vector>

#include "rules/rule.h"

namespace dd::comm {

const std::vector<rules::FindingDoc>& comm_finding_docs();

}  // namespace dd::comm
