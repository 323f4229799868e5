// What `distdoctor explain` says about pasted text (one line or many): the known errors it matches, the
// first cause first, then a short reading of each NCCL information line (interface, HCA, network, version).
#pragma once
#include <string_view>
#include <vector>

#include "logs/catalogue.h"
#include "report/finding.h"

namespace dd::logs {

std::vector<report::Finding> explain_text(std::string_view text, const Catalogue& cat);

}  // namespace dd::logs
