// Reading NodeFacts back from JSON (`check --facts FILE`, the facts a node publishes to the cluster leader),
// checked: facts hold whole numbers only, so a fraction, 1e300 or a number too large for its field is an
// error naming the field, never a silently truncated value (nor the undefined float-to-int conversion
// nlohmann's plain get<> makes of 1e300).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "common/result.h"
#include "probe/facts.h"

namespace dd::probe {

// No node has more GPUs than this; a facts file that says so is refused (the rules list one entry per GPU).
inline constexpr int kMaxGpusPerNode = 1024;

// A bare NodeFacts object, as `distdoctor facts --json` writes it.
Result<NodeFacts> facts_from_json(const nlohmann::json& j);

// A facts file's text: a bare NodeFacts or a whole report with a "facts" member (`check --json` output).
Result<NodeFacts> facts_from_text(const std::string& text);

}  // namespace dd::probe
