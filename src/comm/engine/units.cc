// Bandwidth and size formatting.
#include "comm/engine/units.h"

#include <cstdio>

#include "common/units.h"

namespace dd::comm {

std::string gbps_text(double gbps) {
  char b[32];
  snprintf(b, sizeof b, "%.1f", gbps);
  return b;
}

std::string gbps_with_unit(double gbps) { return gbps_text(gbps) + " GB/s"; }

namespace {
std::string g_text(ScaledSize s) {  // "%g": six significant digits, no trailing zeros
  char buf[32];
  snprintf(buf, sizeof buf, "%g %s", s.value, s.unit);
  return buf;
}
}  // namespace

std::string bytes_text(uint64_t bytes) { return g_text(scale_size(double(bytes), SizeUnit::GiB)); }

std::string exact_bytes_text(uint64_t bytes) {
  return g_text(scale_size(double(bytes), SizeUnit::TiB, /*whole_only=*/true));
}

}  // namespace dd::comm
