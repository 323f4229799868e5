// size_in_words, estimate_in_words, cuda_version_in_words (see units.h).
#include "common/units.h"

#include <fmt/format.h>

namespace dd {

std::string size_in_words(int64_t b) {
  const double kib = 1024.0, mib = kib * 1024, gib = mib * 1024, tib = gib * 1024;
  if (b < 0) return "?";
  if (b >= tib) return fmt::format("{:.3g} TiB", double(b) / tib);
  if (b >= gib) return fmt::format("{:.3g} GiB", double(b) / gib);
  if (b >= mib) return fmt::format("{:.3g} MiB", double(b) / mib);
  if (b >= kib) return fmt::format("{:.3g} KiB", double(b) / kib);
  return fmt::format("{} B", b);
}

std::string estimate_in_words(int64_t b) {
  if (b < 0) return "?";
  if (b == 0) return "nothing";
  if (b < 1024) return "under 1 KiB";
  return "about " + size_in_words(b);
}

std::string cuda_version_in_words(int v) {
  if (v <= 0) return "?";
  return fmt::format("{}.{} ({})", v / 1000, v % 1000 / 10, v);
}

}  // namespace dd
