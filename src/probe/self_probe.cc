// Reads this process's executable path and environment (see self_probe.h).
#include "probe/self_probe.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <sstream>

#include "probe/fs.h"

extern char** environ;

namespace dd::probe {

SelfProcess read_self_process() {
  SelfProcess s;
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) s.executable.assign(buf, size_t(n));
  for (char** e = environ; e && *e; ++e) s.environment.emplace_back(*e);
  return s;
}

ArgumentArea read_argument_area() {
  auto stat = make_real_fs()->read("/proc/self/stat");
  if (!stat) return {};
  const size_t paren = stat->rfind(')');
  if (paren == std::string::npos) return {};
  std::istringstream fields(stat->substr(paren + 1));  // field 3 (the state) on
  std::string field;
  uint64_t start = 0, end = 0;
  for (int n = 3; n <= 49 && fields >> field; ++n) {
    if (n == 48) start = std::strtoull(field.c_str(), nullptr, 10);
    if (n == 49) end = std::strtoull(field.c_str(), nullptr, 10);
  }
  if (start == 0 || end <= start || end - start > (1u << 24)) return {};
  return {reinterpret_cast<char*>(uintptr_t(start)), size_t(end - start)};
}

}  // namespace dd::probe
