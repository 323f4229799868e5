// Fuzz target: the store's wire parser (rendezvous/wire.h) on arbitrary bytes. Checks: no crash; a frame
// that parses consumes no more than it was given and re-encodes to exactly its bytes; the resumable reader,
// fed the same bytes in pieces, returns the same frames in the same order as one-shot parses at each offset.
// Built and run by fuzz/run.sh (make fuzz).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rendezvous/wire.h"

using namespace dd::rendezvous::wire;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Limits lim;
  lim.max_frame = 1 << 16;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  // One-shot parses, frame after frame.
  std::vector<Parsed> oneshot;
  size_t off = 0;
  while (true) {
    Parsed p = parse_frame(in.substr(off), lim);
    if (p.state == Parsed::kFrame) {
      if (p.consumed < kHeaderBytes || p.consumed > size - off) __builtin_trap();
      // A frame that parsed re-encodes to the bytes it came from.
      if (encode(p.message) != in.substr(off, p.consumed)) __builtin_trap();
      off += p.consumed;
    }
    oneshot.push_back(std::move(p));
    if (oneshot.back().state != Parsed::kFrame) break;
  }
  // The resumable reader fed in pieces of 1, 2, 3, ... bytes must give the same sequence.
  FrameReader r(lim);
  size_t fed = 0, step = 1, i = 0;
  while (i < oneshot.size()) {
    Parsed a = r.next();
    if (a.state == Parsed::kNeedMore && fed < size) {
      size_t n = std::min(step++, size - fed);
      r.feed(in.data() + fed, n);
      fed += n;
      continue;
    }
    if (a.state != oneshot[i].state) __builtin_trap();
    if (a.state == Parsed::kFrame && encode(a.message) != encode(oneshot[i].message)) __builtin_trap();
    if (a.state != Parsed::kFrame) break;
    ++i;
  }
  return 0;
}
