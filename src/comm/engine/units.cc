// Bandwidth and size formatting.
#include "comm/engine/units.h"

#include <cmath>
#include <cstdio>

namespace dd::comm {

std::string gbps_text(double gbps) {
  char b[32];
  snprintf(b, sizeof b, "%.1f", gbps);
  return b;
}

std::string gbps_with_unit(double gbps) { return gbps_text(gbps) + " GB/s"; }

std::string bytes_text(uint64_t bytes) {
  const char* u[] = {"B", "KiB", "MiB", "GiB"};
  int i = 0;
  double v = double(bytes);
  while (v >= 1024 && i < 3) v /= 1024, ++i;
  char buf[32];
  snprintf(buf, sizeof buf, "%g %s", v, u[i]);
  return buf;
}

std::string exact_bytes_text(uint64_t bytes) {
  const char* u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  double v = double(bytes);
  while (v >= 1024 && i < 4 && std::fmod(v, 1024) == 0) {
    v /= 1024;
    ++i;
  }
  char buf[32];
  snprintf(buf, sizeof buf, "%g %s", v, u[i]);
  return buf;
}

}  // namespace dd::comm
