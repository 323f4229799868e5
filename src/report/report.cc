// Report verdict and exit code.
#include "report/report.h"

#include <algorithm>

namespace dd::report {

Verdict Report::verdict() const {
  Severity worst = Severity::ok;
  for (const auto& f : findings) worst = std::max(worst, f.severity);
  if (worst == Severity::fail) return Verdict::fail;
  if (worst == Severity::warn) return Verdict::warn;
  return Verdict::pass;
}

int Report::exit_code() const {
  switch (verdict()) {
    case Verdict::pass:
      return kExitPass;
    case Verdict::warn:
      return kExitWarn;
    case Verdict::fail:
      return kExitFail;
  }
  return kExitFail;
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass:
      return "pass";
    case Verdict::warn:
      return "warn";
    case Verdict::fail:
      return "fail";
  }
  return "fail";
}

}  // namespace dd::report
