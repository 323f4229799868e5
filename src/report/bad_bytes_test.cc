// Tests of both renderers on findings that carry bytes from outside: invalid UTF-8 and terminal escape
// sequences in titles, evidence, nodes and notes.
#include <gtest/gtest.h>

#include <sstream>

#include "common/safe_text.h"
#include "report/report.h"

namespace dd::report {
namespace {

Report hostile_report() {
  Report r;
  r.title = "distdoctor check";
  r.notes = {"from \x1b]0;owned\x07 host"};
  Finding f;
  f.id = "net.ifname.missing";
  f.severity = Severity::fail;
  f.title = "NCCL_SOCKET_IFNAME=\xff\x1b[31meth0 names no interface";
  f.evidence = {"NCCL_SOCKET_IFNAME=\xff\x1b[31meth0 (from env)", "line one\nFAKE: forged line\r\tend"};
  f.fix = "unset \x1b[2J it";
  f.node = "node-\xfe\x1b[8m";
  r.add(f);
  Finding other = f;
  other.node = "node-b";
  r.add(other);
  r.facts = {{"env", {{"NCCL_SOCKET_IFNAME", "\xff\x1b[31meth0"}}}};
  return r;
}

}  // namespace

TEST(ReportBadBytes, JsonOfInvalidUtf8ParsesBack) {
  Report r = hostile_report();
  std::string text = json_text(render_json(r), 2);
  auto back = nlohmann::json::parse(text);
  EXPECT_EQ(back["verdict"], "fail");
  EXPECT_EQ(back["findings"][0]["title"], "NCCL_SOCKET_IFNAME=\xef\xbf\xbd\x1b[31meth0 names no interface");
  EXPECT_EQ(back["facts"]["env"]["NCCL_SOCKET_IFNAME"], "\xef\xbf\xbd\x1b[31meth0");
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
}

TEST(ReportBadBytes, TextHasNoRawControlBytes) {
  std::ostringstream out;
  render_text(hostile_report(), out, TextOptions{});
  std::string s = out.str();
  for (unsigned char c : s) {
    EXPECT_TRUE(c >= 0x20 || c == '\n') << "raw byte " << int(c);
    EXPECT_NE(c, 0xff);
    EXPECT_NE(c, 0xfe);
  }
  EXPECT_NE(s.find("NCCL_SOCKET_IFNAME=\\xff\\x1b[31meth0"), std::string::npos);
  EXPECT_NE(s.find("line one\\nFAKE: forged line\\r\\tend"), std::string::npos);
  EXPECT_NE(s.find("(node-\\xfe\\x1b[8m)"), std::string::npos);
  EXPECT_NE(s.find("from \\x1b]0;owned\\x07 host"), std::string::npos);
  EXPECT_EQ(s.find("\nFAKE"), std::string::npos);
}

TEST(ReportBadBytes, TextKeepsValidUtf8) {
  Report r;
  Finding f;
  f.id = "host.name";
  f.severity = Severity::warn;
  f.title = "hostname grüße-日本 — check";
  f.evidence = {"value=C:\\dir"};
  r.add(f);
  std::ostringstream out;
  render_text(r, out, TextOptions{});
  EXPECT_NE(out.str().find("hostname grüße-日本 — check"), std::string::npos);
  EXPECT_NE(out.str().find("value=C:\\dir"), std::string::npos);
}

}  // namespace dd::report
