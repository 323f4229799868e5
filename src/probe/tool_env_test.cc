// tool_env: each of distdoctor's own variables is read from the lookup it is given.
#include "probe/tool_env.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace dd::probe {
namespace {

std::map<std::string, std::string> g_env;
const char* fake_lookup(const char* n) {
  auto it = g_env.find(n);
  return it == g_env.end() ? nullptr : it->second.c_str();
}

TEST(ToolEnv, ReadsEachVariable) {
  g_env = {{"DISTDOCTOR_TOKEN", "s3cret"},     {"NO_COLOR", "1"},    {"DISTDOCTOR_PROBE_TIMING", "1"},
           {"DISTDOCTOR_NVML_LIB", "libx.so"}, {"DD_KEEP_TMP", "1"}, {"DISTDOCTOR_STATUS_LINE", "1"}};
  ToolEnv t = read_tool_env(fake_lookup);
  EXPECT_EQ(t.token, "s3cret");
  EXPECT_TRUE(t.no_color);
  EXPECT_TRUE(t.probe_timing);
  EXPECT_TRUE(t.keep_tmp);
  EXPECT_EQ(t.nvml_lib, "libx.so");
  EXPECT_EQ(t.cuda_lib, "");
  EXPECT_EQ(t.status_line, "1");
}

TEST(ToolEnv, TimingZeroIsOff) {
  g_env = {{"DISTDOCTOR_PROBE_TIMING", "0"}, {"NO_COLOR", ""}};  // an empty NO_COLOR leaves colour on
  ToolEnv t = read_tool_env(fake_lookup);
  EXPECT_FALSE(t.probe_timing);
  EXPECT_FALSE(t.no_color);
  EXPECT_EQ(t.token, "");
}

}  // namespace
}  // namespace dd::probe
