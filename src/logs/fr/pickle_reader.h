// Pickle reader for untrusted data: decodes the plain-value opcodes of Python's pickle protocols 0-5 (the
// ones PyTorch's C++ pickler writes for Flight Recorder dumps, and Python's own pickle.dumps of plain data)
// into JSON. It executes nothing: opcodes that import, call or build objects are refused with an error,
// except torch.jit._pickle's restore_type_tag / build_{int,double,bool}list, which older PyTorch picklers
// wrap around plain lists and dicts; those are unwrapped to the value they carry and nothing else is
// called. Every size is capped, nesting is bounded without recursion on the input, errors are values.
//
// Mapping: dict -> object when every key is a string (int, bool and None keys become their decimal/JSON
// text; other keys their JSON text), list/tuple/set -> array, int -> integer (up to 64 bits, signed or
// unsigned), float -> number (NaN and infinities -> null), None -> null, str -> string (bad UTF-8 bytes ->
// U+FFFD), bytes/bytearray -> {"$bytes": "<hex>"} (hex capped at max_string_bytes).
#pragma once
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "common/result.h"

namespace dd::logs {

struct PickleLimits {
  size_t max_input_bytes = 512ull << 20;   // refuse larger inputs outright
  size_t max_depth = 200;                  // nesting of containers in the result
  size_t max_nodes = 8'000'000;            // values created while reading (containers, scalars)
  size_t max_output_nodes = 16'000'000;    // values in the result, shared (memo) values counted per use
  size_t max_output_bytes = 512ull << 20;  // string bytes in the result, counted per use
  size_t max_string_bytes = 16ull << 20;   // one string or bytes value
  size_t max_memo = 4'000'000;             // memo slots
  size_t max_stack = 4'000'000;            // values on the stack (and marks)
};

// The first value of a pickle (up to its STOP) as JSON, or an invalid-kind Error naming the offset and
// opcode: truncated input, a refused opcode ("GLOBAL builtins.eval: refused, this reader executes
// nothing"), a limit passed, or a malformed stream.
Result<nlohmann::json> read_pickle(std::string_view bytes, const PickleLimits& limits = {});

// True when bytes start like a pickle of protocol 2 or later (PROTO opcode 0x80, then 2..5).
bool looks_like_pickle(std::string_view bytes);

}  // namespace dd::logs
