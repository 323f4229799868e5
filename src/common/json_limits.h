// Parsing JSON that came from outside this process (a file a user names, a peer through the store, an etcd
// answer, a worker's event line, a Flight Recorder dump): the one place that states how deep it may nest.
// nlohmann::json builds and destroys its values recursively, so a text of 100,000 '[' crashed the process (and
// any token holder could send one to the master); a text nested deeper than kMaxJsonDepth is refused before
// parsing. Sizes are bounded where the bytes are read (the store's frame limit, probe/regular_file's
// ReadLimits), not here.
#pragma once
#include <nlohmann/json.hpp>
#include <string_view>

namespace dd {

inline constexpr int kMaxJsonDepth = 64;  // our deepest document (facts, reports) nests under 10 levels

// The deepest nesting of objects and arrays in a JSON text (strings and escapes skipped), counting up to
// limit + 1 at the most (so a huge text costs one pass and stops early).
int json_depth(std::string_view text, int limit = kMaxJsonDepth);

// json::parse, after the depth check: throws std::invalid_argument ("JSON nested deeper than 64 levels") or
// nlohmann's parse_error, both std::exception.
nlohmann::json parse_json(std::string_view text);
// The same without exceptions: a discarded value (is_discarded()) when too deep or not JSON.
nlohmann::json parse_json_or_discarded(std::string_view text);

}  // namespace dd
