// FindingDoc: the long form of a finding id, printed by `distdoctor explain ID`. One kind of table for every
// part that emits findings (rules, the collective passes, launch, log analysis, NCCL information lines, the
// cluster join); cli/finding_registry.h puts them together.
#pragma once
#include <string>

namespace dd::report {

struct FindingDoc {
  std::string id;
  std::string title;        // short
  std::string explanation;  // what it means, why it matters, how to fix; several sentences
  std::string fix = {};     // what to do, as `explain ID` prints it under "Fix:" ("" = the explanation says)
};

}  // namespace dd::report
