// Human-readable summary of NodeFacts for `distdoctor facts` without --json.
#pragma once
#include <ostream>

#include "probe/facts.h"

namespace dd::probe {

void print_facts_summary(const NodeFacts& f, std::ostream& out);

}  // namespace dd::probe
