// Checked JSON -> NodeFacts (declared in facts_json.h): floats made whole or refused before the conversion,
// then every number read compared with the number written back, so a value its field cannot hold is named.
#include "probe/facts_json.h"
#include "common/json_limits.h"

#include <fmt/format.h>

#include <cmath>

namespace dd::probe {

namespace {

// Facts have no fractional field: a whole float (5.0) becomes the integer it is; any other float becomes its
// text, so reading it into a number field fails cleanly. `bad` gets the first of those ("path = value").
void whole_numbers(nlohmann::json& j, const std::string& path, std::string& bad) {
  if (j.is_number_float()) {
    const double v = j.get<double>();
    if (std::isfinite(v) && std::trunc(v) == v && v >= -9.2e18 && v <= 9.2e18) {
      j = static_cast<int64_t>(v);
    } else {
      if (bad.empty()) bad = path + " = " + j.dump();
      j = j.dump();
    }
  } else if (j.is_object()) {
    for (auto& [key, value] : j.items()) whole_numbers(value, path + "." + key, bad);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); i++) whole_numbers(j[i], fmt::format("{}[{}]", path, i), bad);
  }
}

// The first number of `in` that reads back differently in `out` (the same document after the round trip
// through NodeFacts) as "path = value", or "". Keys that NodeFacts does not have are not in `out`: skipped.
std::string first_changed(const nlohmann::json& in, const nlohmann::json& out, const std::string& path) {
  // As text: json's == calls 2^64-1 and -1 equal (it casts the unsigned one).
  if (in.is_number() && out.is_number()) return in.dump() == out.dump() ? "" : path + " = " + in.dump();
  if (in.is_object() && out.is_object()) {
    for (const auto& [key, value] : in.items())
      if (auto it = out.find(key); it != out.end())
        if (auto p = first_changed(value, *it, path + "." + key); !p.empty()) return p;
  } else if (in.is_array() && out.is_array()) {
    for (size_t i = 0; i < in.size() && i < out.size(); i++)
      if (auto p = first_changed(in[i], out[i], fmt::format("{}[{}]", path, i)); !p.empty()) return p;
  }
  return "";
}

}  // namespace

Result<NodeFacts> facts_from_json(const nlohmann::json& j) {
  nlohmann::json in = j;
  std::string bad;
  whole_numbers(in, "facts", bad);
  NodeFacts f;
  try {
    f = in.get<NodeFacts>();
  } catch (const std::exception& e) {
    if (!bad.empty()) return Error::invalid(fmt::format("{} is not a whole number", bad));
    return Error::invalid(e.what());
  }
  const nlohmann::json back = f;
  if (auto p = first_changed(in, back, "facts"); !p.empty())
    return Error::invalid(fmt::format("{} is out of range for its field", p));
  // Counts the rules count up to (one entry per GPU in lists and fix texts): a value no node can have would
  // make them build billions of entries.
  if (f.cuda.device_count > kMaxGpusPerNode)
    return Error::invalid(
        fmt::format("facts.cuda.device_count = {} is more GPUs than a node can have (at most {})",
                    f.cuda.device_count, kMaxGpusPerNode));
  return f;
}

Result<NodeFacts> facts_from_text(const std::string& text) {
  nlohmann::json j;
  try {
    j = dd::parse_json(text);
  } catch (const std::exception& e) {
    return Error::invalid(e.what());
  }
  return facts_from_json(j.is_object() && j.contains("facts") ? j["facts"] : j);
}

}  // namespace dd::probe
