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
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>

#include "common/in_flight_gate.h"
#include "common/result.h"
#include "common/shared_count.h"

namespace dd::logs {

// Shared (memo) values are counted once per use: a dump that stores one dict and names it 400,000 times is
// 400,000 dicts once it is JSON, and is measured (not built) against max_output_nodes/bytes first. One value
// of the result costs about 100 bytes as JSON and 230 bytes at the peak of turning it into a FlightRecord, so
// 4,000,000 is about 900 MB; a real dump of 2000 entries with 64-frame stacks is about 600,000 values.
struct PickleLimits {
  size_t max_input_bytes = 512ull << 20;   // refuse larger inputs outright
  size_t max_depth = 200;                  // nesting of containers in the result
  size_t max_nodes = 8'000'000;            // values created while reading (containers, scalars)
  size_t max_output_nodes = 4'000'000;     // values in the result, shared (memo) values counted per use
  size_t max_output_bytes = 128ull << 20;  // string bytes in the result (keys too), counted per use
  size_t max_string_bytes = 16ull << 20;   // one string or bytes value
  size_t max_memo = 4'000'000;             // memo slots
  size_t max_stack = 4'000'000;            // values on the stack (and marks)
  // Shared by the dumps one run decodes at once (its threads): the JSON values alive at the same time; a
  // dump waits (up to in_flight_wait) for room. Null: no sharing.
  InFlightGate* in_flight = nullptr;
  std::chrono::milliseconds in_flight_wait{120'000};
  // Shared by all the dumps of one run: the values they may build together (what the records kept cost);
  // a dump past it is refused. Null: no such cap.
  SharedCount* kept = nullptr;
};

namespace pickle {
struct Arena;
}

// A pickle decoded up to its STOP but not yet JSON, with the size its JSON will have.
class DecodedPickle {
 public:
  DecodedPickle(std::shared_ptr<const pickle::Arena> arena, uint32_t root, size_t values, size_t text_bytes,
                const PickleLimits& limits)
      : arena_(std::move(arena)), root_(root), values_(values), text_bytes_(text_bytes), limits_(limits) {}
  size_t values() const { return values_; }  // in the JSON, a shared value once per use
  size_t text_bytes() const { return text_bytes_; }
  Result<nlohmann::json> to_json() const;

 private:
  std::shared_ptr<const pickle::Arena> arena_;
  uint32_t root_;
  size_t values_, text_bytes_;
  PickleLimits limits_;
};

// Decodes the first value of a pickle and measures its JSON without building it: an Error as read_pickle's,
// including "more than N values once shared values (memo references) are expanded" before any copy is made.
Result<DecodedPickle> decode_pickle(std::string_view bytes, const PickleLimits& limits = {});

// The first value of a pickle (up to its STOP) as JSON (decode_pickle, then to_json), or an invalid-kind
// Error naming the offset and opcode: truncated input, a refused opcode ("GLOBAL builtins.eval: refused, this
// reader executes nothing"), a limit passed, or a malformed stream.
Result<nlohmann::json> read_pickle(std::string_view bytes, const PickleLimits& limits = {});

// True when bytes start like a pickle of protocol 2 or later (PROTO opcode 0x80, then 2..5).
bool looks_like_pickle(std::string_view bytes);

}  // namespace dd::logs
