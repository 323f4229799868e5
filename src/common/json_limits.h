// Parsing JSON that came from outside this process (a file a user names, a peer through the store, an etcd
// answer, a worker's event line, a Flight Recorder dump): the one place that states how deep it may nest.
// nlohmann::json builds and destroys its values recursively, so a text of 100,000 '[' crashed the process
// (and any token holder could send one to the master); a text nested deeper than kMaxJsonDepth is refused
// before parsing. Sizes are bounded where the bytes are read (the store's frame limit, probe/regular_file's
// ReadLimits), not here.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
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

// What a JSON text would build, measured without building it (one SAX pass): its values (containers and
// scalars, keys not counted) and the bytes of its strings and keys. The pass stops as soon as either passes
// its cap (over set) or the text is not JSON (valid false), so a huge text costs no more than reading it.
struct JsonSize {
  uint64_t values = 0;
  uint64_t text_bytes = 0;
  bool valid = true;
  bool over = false;
};
JsonSize measure_json(std::string_view text, uint64_t max_values, uint64_t max_text_bytes);

// True when every floating-point number in j is finite and within int32's range: nlohmann converts a float
// to an int field with a plain cast, which is undefined behaviour for 1e43 or NaN. Peer records hold no
// larger float (their times and timeouts are seconds; wall clocks are integers).
bool floats_fit_int(const nlohmann::json& j);

// A record a peer published (a hello, a node's record, a heartbeat): parsed and converted to T, or nullopt
// with `why` set (not JSON, too deep, a float out of range, or a field of the wrong type, which from_json
// throws for). Every peer record goes through here, so no token holder can crash the reader with a record of
// the wrong shape.
template <typename T>
std::optional<T> parse_record(std::string_view text, std::string* why = nullptr) {
  try {
    nlohmann::json j = parse_json(text);
    if (!floats_fit_int(j)) {
      if (why) *why = "a number out of range";
      return std::nullopt;
    }
    return j.get<T>();
  } catch (const std::exception& e) {
    if (why) *why = e.what();
    return std::nullopt;
  }
}

}  // namespace dd
