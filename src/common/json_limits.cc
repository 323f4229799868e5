// json_depth, parse_json, parse_json_or_discarded (see json_limits.h).
#include "common/json_limits.h"

#include <stdexcept>
#include <string>

namespace dd {

int json_depth(std::string_view text, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest && (deepest = depth) > limit) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

nlohmann::json parse_json(std::string_view text) {
  if (json_depth(text) > kMaxJsonDepth)
    throw std::invalid_argument("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  return nlohmann::json::parse(text);
}

nlohmann::json parse_json_or_discarded(std::string_view text) {
  if (json_depth(text) > kMaxJsonDepth) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text, nullptr, false);
}

bool floats_fit_int(const nlohmann::json& j) {
  if (j.is_number_float()) {
    double d = j.get<double>();
    return d >= -2147483648.0 && d <= 2147483647.0;  // false for NaN too
  }
  if (j.is_structured())
    for (const auto& v : j)
      if (!floats_fit_int(v)) return false;
  return true;
}

}  // namespace dd
