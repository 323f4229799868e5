// Fuzz target: the etcd client's HTTP answer reader and base64 (rendezvous/http.h) on arbitrary bytes.
// Checks: no crash, hang or runaway memory; a parsed answer's body is never longer than the bytes it came
// from; base64 round-trips (decode(encode(x)) == x) and a decoded text re-encodes and decodes to itself.
#include <cstddef>
#include <cstdint>
#include <string>

#include "rendezvous/http.h"

using namespace dd::rendezvous;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string raw(reinterpret_cast<const char*>(data), size);
  auto r = parse_http_response(raw);
  if (r && r->body.size() > raw.size()) __builtin_trap();

  auto back = base64_decode(base64_encode(raw));
  if (!back || *back != raw) __builtin_trap();
  if (base64_encode(raw).size() != (raw.size() + 2) / 3 * 4) __builtin_trap();
  if (auto dec = base64_decode(raw)) {
    if (dec->size() > raw.size()) __builtin_trap();
    auto again = base64_decode(base64_encode(*dec));
    if (!again || *again != *dec) __builtin_trap();
  }
  return 0;
}
