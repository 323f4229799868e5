// scale_size, size_in_words, estimate_in_words, cuda_version_in_words (see units.h).
#include "common/units.h"

#include <fmt/format.h>

#include <cmath>

namespace dd {

ScaledSize scale_size(double bytes, SizeUnit largest, bool whole_only) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  ScaledSize s{bytes, kUnits[0]};
  // Dividing by 1024 is exact in floating point, so each rung equals the size over the unit's bytes.
  for (int i = 1; i <= int(largest) && s.value >= 1024 && (!whole_only || std::fmod(s.value, 1024) == 0);
       ++i) {
    s.value /= 1024;
    s.unit = kUnits[i];
  }
  return s;
}

std::string size_in_words(int64_t b) {
  if (b < 0) return "?";
  const ScaledSize s = scale_size(double(b), SizeUnit::TiB);
  if (s.value == double(b)) return fmt::format("{} B", b);
  return fmt::format("{:.3g} {}", s.value, s.unit);
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
