// json_depth, parse_json, parse_json_or_discarded, measure_json (see json_limits.h).
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

namespace {

// nlohmann's SAX interface: each event counts; returning false ends the parse.
struct Measure {
  using json = nlohmann::json;
  JsonSize& size;
  uint64_t max_values, max_text;

  bool value() {
    if (++size.values <= max_values) return true;
    size.over = true;
    return false;
  }
  bool text(size_t n) {
    size.text_bytes += n;
    if (size.text_bytes <= max_text) return true;
    size.over = true;
    return false;
  }
  bool null() { return value(); }
  bool boolean(bool) { return value(); }
  bool number_integer(json::number_integer_t) { return value(); }
  bool number_unsigned(json::number_unsigned_t) { return value(); }
  bool number_float(json::number_float_t, const json::string_t&) { return value(); }
  bool string(json::string_t& s) { return value() && text(s.size()); }
  bool binary(json::binary_t& b) { return value() && text(b.size()); }
  bool start_object(size_t) { return value(); }
  bool key(json::string_t& s) { return text(s.size()); }
  bool end_object() { return true; }
  bool start_array(size_t) { return value(); }
  bool end_array() { return true; }
  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception&) {
    size.valid = false;
    return false;
  }
};

}  // namespace

JsonSize measure_json(std::string_view text, uint64_t max_values, uint64_t max_text_bytes) {
  JsonSize size;
  if (json_depth(text) > kMaxJsonDepth) {  // nlohmann's SAX parser keeps no stack of its own, but the
    size.valid = false;                    // builder that follows would recurse
    return size;
  }
  Measure m{size, max_values, max_text_bytes};
  nlohmann::json::sax_parse(text, &m, nlohmann::json::input_format_t::json, true);
  return size;
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
