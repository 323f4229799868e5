// self_probe: the executable is this test binary and the environment holds a variable we set.
#include "probe/self_probe.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>

namespace dd::probe {
namespace {

TEST(SelfProbe, ExecutableAndEnvironment) {
  ::setenv("DD_SELF_PROBE_TEST", "42", 1);
  SelfProcess s = read_self_process();
  EXPECT_NE(s.executable.find("distdoctor_tests"), std::string::npos) << s.executable;
  EXPECT_NE(std::find(s.environment.begin(), s.environment.end(), "DD_SELF_PROBE_TEST=42"),
            s.environment.end());
  ::unsetenv("DD_SELF_PROBE_TEST");
}

}  // namespace
}  // namespace dd::probe
