// The --fault test hook of worker processes: "RANK:KIND[@OP]" makes a rank die, stall, stop itself
// (sigstop: state T), never join, exit or corrupt its output at a given point, so tests can prove every
// failure path is named.
#pragma once
#include <string>
#include <vector>

namespace dd::comm {

// Acts on the hook when it names one of `ranks` at this point ("init", or "op" with its index): may not
// return.
void maybe_fault(const std::string& fault, const std::vector<int>& ranks, const std::string& point, int op);

// Whether the hook is "R:kind@op" for one of `ranks` (e.g. "corrupt" at this op).
bool fault_matches(const std::string& fault, const std::vector<int>& ranks, const std::string& kind, int op);

}  // namespace dd::comm
