// The table of launcher conventions (launcher_convention.h): one row per framework, each defined in its own
// convention_NAME.cc.
#include <algorithm>

#include "launch/launcher_convention.h"

namespace dd::launch {

extern const LauncherConvention kTorchrunConvention;
extern const LauncherConvention kPaddleConvention;
extern const LauncherConvention kMindSporeConvention;
extern const LauncherConvention kDeepSpeedConvention;

namespace {

constexpr const LauncherConvention* kConventions[] = {
    &kTorchrunConvention,
    &kPaddleConvention,
    &kMindSporeConvention,
    &kDeepSpeedConvention,
};

}  // namespace

std::span<const LauncherConvention* const> launcher_conventions() { return kConventions; }

bool convention_on(const LauncherConvention& c, const WorkerEnvOptions& opt) {
  return c.flag.empty() || opt.opted(c.name);
}

const CompanionProcess* companion_of(const WorkerEnvOptions& opt) {
  for (const LauncherConvention* c : kConventions)
    if (c->companion && convention_on(*c, opt)) return c->companion;
  return nullptr;
}

}  // namespace dd::launch
