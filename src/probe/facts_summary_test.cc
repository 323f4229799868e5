// Tests of the facts summary on hostile values: escape sequences and bad bytes from env, hostname and
// interface names come out as visible escapes.
#include "probe/facts_summary.h"

#include <gtest/gtest.h>

#include <sstream>

namespace dd::probe {

TEST(FactsSummary, EscapesControlBytesFromTheMachine) {
  NodeFacts f;
  f.host.hostname = "gpu\x1b[2J-01";
  f.env["NCCL_SOCKET_IFNAME"] = "\xff\x1b[31meth0\nFAKE=1";
  f.nccl.settings["NCCL_SOCKET_IFNAME"] = EnvSetting{"\xff\x1b[31meth0", "env"};
  f.probe_errors.push_back("net: \r\x07 bell");
  std::ostringstream out;
  print_facts_summary(f, out);
  std::string s = out.str();
  for (unsigned char c : s) EXPECT_TRUE((c >= 0x20 && c != 0x7f && c != 0xff) || c == '\n') << int(c);
  EXPECT_NE(s.find("Host     gpu\\x1b[2J-01"), std::string::npos);
  EXPECT_NE(s.find("  NCCL_SOCKET_IFNAME=\\xff\\x1b[31meth0\\nFAKE=1\n"), std::string::npos);
  EXPECT_NE(s.find("NCCL_SOCKET_IFNAME=\\xff\\x1b[31meth0 (from env)"), std::string::npos);
  EXPECT_NE(s.find("probe error: net: \\r\\x07 bell"), std::string::npos);
}

}  // namespace dd::probe
