// libFuzzer target for the store's wire parser (optional; needs clang). Named .cpp so the CMake glob of *.cc
// leaves it out of the normal build. Build and run: bench/store_wire_fuzz.sh [SECONDS]
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rendezvous/wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dd::rendezvous::wire;
  Limits lim;
  lim.max_frame = 1 << 16;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  Parsed p = parse_frame(in, lim);
  if (p.state == Parsed::kFrame) {
    if (p.consumed > size) __builtin_trap();
    // A frame that parsed re-encodes to the bytes it came from.
    if (encode(p.message) != in.substr(0, p.consumed)) __builtin_trap();
  }
  // Fed in two pieces, the resumable reader must agree with the one-shot parse.
  FrameReader r(lim);
  size_t half = size / 2;
  r.feed(in.data(), half);
  Parsed a = r.next();
  if (a.state == Parsed::kNeedMore) {
    r.feed(in.data() + half, size - half);
    a = r.next();
  }
  if (a.state != p.state) __builtin_trap();
  return 0;
}
