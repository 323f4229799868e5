// Reads this process's executable path and environment (see self_probe.h).
#include "probe/self_probe.h"

#include <unistd.h>

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

}  // namespace dd::probe
