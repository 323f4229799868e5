// Long-form docs of every finding id the collective tests emit (comm.*), for `distdoctor explain`.
#pragma once
#include <vector>

#include "report/finding_doc.h"

namespace dd::comm {

const std::vector<report::FindingDoc>& comm_finding_docs();

}  // namespace dd::comm
