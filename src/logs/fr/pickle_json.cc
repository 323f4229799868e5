// Turns the values a pickle built (pickle_arena.h) into JSON: bounded depth (a cycle or 100000 nested lists
// end in an error at max_depth, never in a deep recursion), every use of a shared value counted against the
// output budgets, strings made valid UTF-8 so the JSON can always be written. The same walk without building
// anything measures the JSON first, so a value shared 400,000 times is refused before it is copied once.
#include <fmt/format.h>

#include <cmath>

#include "logs/fr/pickle_arena.h"

namespace dd::logs::pickle {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one.
size_t utf8_sequence_length(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xc0) != 0x80) return 0;
  if (n == 2 && c < 0xc2) return 0;                                      // overlong
  if (n == 3 && c == 0xe0 && b(i + 1) < 0xa0) return 0;                  // overlong
  if (n == 3 && c == 0xed && b(i + 1) >= 0xa0) return 0;                 // surrogate
  if (n == 4 && (c > 0xf4 || (c == 0xf0 && b(i + 1) < 0x90))) return 0;  // overlong or > U+10FFFF
  if (n == 4 && c == 0xf4 && b(i + 1) >= 0x90) return 0;
  return n;
}

constexpr std::string_view kBytesKey = "$bytes";

class Converter {
 public:
  // build false: only count (measure), every value returned is null.
  Converter(const Arena& a, const PickleLimits& lim, bool build) : a_(a), lim_(lim), build_(build) {}

  Result<nlohmann::json> run(uint32_t root) {
    nlohmann::json out = value(root, 0);
    if (!error_.empty()) return Error::invalid("pickle: " + error_);
    return out;
  }
  size_t values() const { return nodes_; }
  size_t text_bytes() const { return out_bytes_; }

 private:
  bool fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
    return false;
  }

  // Every value of the result and its text, a shared value once per use: what the JSON will hold.
  bool count(size_t values, size_t bytes) {
    nodes_ += values;
    out_bytes_ += bytes;
    if (nodes_ > lim_.max_output_nodes) return over(lim_.max_output_nodes, "values");
    if (out_bytes_ > lim_.max_output_bytes) return over(lim_.max_output_bytes, "bytes of text");
    return true;
  }

  bool over(size_t cap, const char* what) {
    return fail(
        fmt::format("more than {} {} once shared values (memo references) are expanded, each use a copy: "
                    "over the limit for one dump, refused before it was built",
                    cap, what));
  }

  std::string key_text(uint32_t k, size_t depth) {
    const Node& n = a_.nodes[k];
    if (n.kind == Kind::str) {  // a key is a copy too: its bytes count, as the value's slot does
      if (!count(0, a_.text(k).size()) || !build_) return std::string();
      return utf8_or_replacement(a_.text(k));
    }
    if (n.kind == Kind::int64) return std::to_string(n.i);
    if (n.kind == Kind::uint64) return std::to_string(n.u);
    nlohmann::json j = value(k, depth);
    return error_.empty() ? j.dump() : std::string();
  }

  nlohmann::json value(uint32_t idx, size_t depth) {
    if (!error_.empty()) return nullptr;
    const Node& n = a_.nodes[idx];
    // A str is its text; bytes become {"$bytes": hex}: two values (the object and its string), the key and
    // two hex digits per byte.
    size_t text = (n.kind == Kind::str || n.kind == Kind::bytes) ? a_.text(idx).size() : 0;
    bool ok = n.kind == Kind::bytes ? count(2, kBytesKey.size() + 2 * text) : count(1, text);
    if (!ok) return nullptr;
    if (!build_ && n.kind != Kind::global && !a_.is_container(idx)) return nullptr;
    switch (n.kind) {
      case Kind::none:
        return nullptr;
      case Kind::boolean:
        return n.i != 0;
      case Kind::int64:
        return n.i;
      case Kind::uint64:
        return n.u;
      case Kind::float64:
        return std::isfinite(n.d) ? nlohmann::json(n.d) : nlohmann::json(nullptr);
      case Kind::str:
        return utf8_or_replacement(a_.text(idx));
      case Kind::bytes: {
        std::string hex;
        hex.reserve(a_.text(idx).size() * 2);
        for (unsigned char c : a_.text(idx)) hex += fmt::format("{:02x}", c);
        return nlohmann::json{{std::string(kBytesKey), hex}};
      }
      case Kind::global:  // a callable that was never applied: no plain value
        fail("a refused or unapplied global " + a_.text(idx) + " is part of the value");
        return nullptr;
      default:
        break;
    }
    if (depth + 1 > lim_.max_depth) {
      fail(
          fmt::format("containers nested deeper than {} (or a container that holds itself)", lim_.max_depth));
      return nullptr;
    }
    const auto& kids = a_.kids(idx);
    if (n.kind == Kind::dict) {
      nlohmann::json obj = build_ ? nlohmann::json::object() : nlohmann::json();
      for (size_t k = 0; k + 1 < kids.size() && error_.empty(); k += 2) {
        std::string key = key_text(kids[k], depth + 1);
        nlohmann::json v = value(kids[k + 1], depth + 1);
        if (build_) obj[key] = std::move(v);
      }
      return obj;
    }
    nlohmann::json arr = build_ ? nlohmann::json::array() : nlohmann::json();
    for (size_t k = 0; k < kids.size() && error_.empty(); ++k) {
      nlohmann::json v = value(kids[k], depth + 1);
      if (build_) arr.push_back(std::move(v));
    }
    return arr;
  }

  const Arena& a_;
  const PickleLimits& lim_;
  const bool build_;
  size_t nodes_ = 0;
  size_t out_bytes_ = 0;
  std::string error_;
};

}  // namespace

std::string utf8_or_replacement(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_sequence_length(s, i);
    if (n == 0) {
      out += "\xef\xbf\xbd";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

Result<nlohmann::json> arena_to_json(const Arena& a, uint32_t root, const PickleLimits& limits) {
  return Converter(a, limits, true).run(root);
}

Result<Expansion> measure_expansion(const Arena& a, uint32_t root, const PickleLimits& limits) {
  Converter c(a, limits, false);
  if (auto r = c.run(root); !r) return r.error();
  return Expansion{c.values(), c.text_bytes()};
}

}  // namespace dd::logs::pickle
