// Fuzz target: nccl.conf parsing (probe::parse_nccl_conf, NCCL's setEnvFile syntax) on arbitrary text.
// Checks: no crash; every key is non-empty, unique (the first definition wins), free of '=', '\n' and a
// leading '#', and at most 1023 bytes like its value; each pair comes from one line of the input, in order;
// there are no more pairs than lines. (Linear time is caught by the run's -timeout.)
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "probe/nccl_probe.h"

// Where a line starting with `key` begins, at or after pos; npos when none.
static size_t line_starting_with(const std::string& text, const std::string& key, size_t pos) {
  for (size_t at = text.find(key, pos); at != std::string::npos; at = text.find(key, at + 1))
    if (at == 0 || text[at - 1] == '\n') return at;
  return std::string::npos;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto pairs = dd::probe::parse_nccl_conf(text);
  size_t lines = 1;
  for (char c : text) lines += c == '\n';
  if (pairs.size() > lines) __builtin_trap();
  std::set<std::string> keys;
  size_t pos = 0;  // each pair's line starts at or after the previous one's
  for (const auto& [key, value] : pairs) {
    if (key.empty() || key[0] == '#' || key.size() > 1023 || value.size() > 1023) __builtin_trap();
    if (key.find_first_of("=\n") != std::string::npos || value.find('\n') != std::string::npos)
      __builtin_trap();
    if (!keys.insert(key).second) __builtin_trap();
    size_t at = line_starting_with(text, key, pos);
    if (at == std::string::npos) __builtin_trap();
    pos = at + 1;
  }
  return 0;
}
