// The values a pickle stream builds, kept in one arena (internal to pickle_reader.cc and pickle_json.cc):
// containers refer to their items by index, so the memo and shared references work as in Python (a list
// memoized when empty and filled later is the filled list wherever it is used), cycles are possible and are
// caught when the arena is turned into JSON (depth and size budgets), and nothing recurses while reading.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/result.h"
#include "logs/fr/pickle_reader.h"

namespace dd::logs::pickle {

enum class Kind : uint8_t {
  none,
  boolean,
  int64,
  uint64,
  float64,
  str,
  bytes,
  list,
  tuple,
  dict,
  set,
  global
};

struct Node {
  Kind kind = Kind::none;
  uint32_t aux = 0;  // str/bytes/global: index in Arena::strings; list/tuple/dict/set: index in Arena::items
  union {
    int64_t i;
    uint64_t u;
    double d;
  };
  Node() : i(0) {}
};

struct Arena {
  std::vector<Node> nodes;
  std::vector<std::string> strings;
  std::vector<std::vector<uint32_t>> items;  // dicts hold key, value, key, value, ...

  bool is_container(uint32_t n) const {
    Kind k = nodes[n].kind;
    return k == Kind::list || k == Kind::tuple || k == Kind::dict || k == Kind::set;
  }
  std::vector<uint32_t>& kids(uint32_t n) { return items[nodes[n].aux]; }
  const std::vector<uint32_t>& kids(uint32_t n) const { return items[nodes[n].aux]; }
  const std::string& text(uint32_t n) const { return strings[nodes[n].aux]; }
};

// The value at `root` as JSON (pickle_reader.h describes the mapping), within the depth and output budgets.
Result<nlohmann::json> arena_to_json(const Arena& a, uint32_t root, const PickleLimits& limits);

// What arena_to_json would build, counted without building it (the same walk, the same errors and budgets):
// values (a shared value once per use) and bytes of text (keys included).
struct Expansion {
  size_t values = 0;
  size_t text_bytes = 0;
};
Result<Expansion> measure_expansion(const Arena& a, uint32_t root, const PickleLimits& limits);

// s with every byte that is not part of valid UTF-8 replaced by U+FFFD.
std::string utf8_or_replacement(std::string_view s);

}  // namespace dd::logs::pickle
