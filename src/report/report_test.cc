// Tests of the verdict, exit codes and both renderers.
#include "report/report.h"

#include <gtest/gtest.h>

#include <sstream>

namespace dd::report {

static Finding make_finding(const char* id, Severity s) {
  Finding f;
  f.id = id;
  f.severity = s;
  f.title = std::string("title of ") + id;
  f.fix = "do the thing";
  f.evidence = {"value=1"};
  return f;
}

TEST(Report, VerdictIsWorstSeverity) {
  Report r;
  EXPECT_EQ(r.verdict(), Verdict::pass);
  r.add(make_finding("a.ok", Severity::ok));
  r.add(make_finding("a.info", Severity::info));
  EXPECT_EQ(r.exit_code(), kExitPass);
  r.add(make_finding("b.warn", Severity::warn));
  EXPECT_EQ(r.verdict(), Verdict::warn);
  EXPECT_EQ(r.exit_code(), kExitWarn);
  r.add(make_finding("c.fail", Severity::fail));
  EXPECT_EQ(r.exit_code(), kExitFail);
}

TEST(Report, TextGroupsByAreaAndShowsFixOnlyForProblems) {
  Report r;
  r.add(make_finding("net.x", Severity::warn));
  r.add(make_finding("gpu.y", Severity::ok));
  r.add(make_finding("net.z", Severity::ok));
  std::ostringstream out;
  render_text(r, out, TextOptions{});
  std::string s = out.str();
  EXPECT_NE(s.find("\nnet\n"), std::string::npos);
  EXPECT_NE(s.find("\ngpu\n"), std::string::npos);
  EXPECT_LT(s.find("net.z"), s.find("gpu.y"));   // net group comes first and holds both net findings
  EXPECT_EQ(s.find("fix: "), s.rfind("fix: "));  // one fix: the warn only
  EXPECT_NE(s.find("verdict: warn"), std::string::npos);
  EXPECT_EQ(s.find("\033["), std::string::npos);  // no colour unless asked
}

TEST(Report, JsonShape) {
  Report r;
  auto f = make_finding("net.x", Severity::fail);
  f.rank = 3;
  f.node = "n1";
  r.add(f);
  auto j = render_json(r);
  EXPECT_EQ(j["verdict"], "fail");
  ASSERT_EQ(j["findings"].size(), 1u);
  EXPECT_EQ(j["findings"][0]["rank"], 3);
  EXPECT_EQ(j["findings"][0]["severity"], "fail");
  Finding back = j["findings"][0].get<Finding>();
  EXPECT_EQ(back.id, "net.x");
  EXPECT_EQ(back.rank, 3);
  EXPECT_EQ(back.evidence, f.evidence);
}

}  // namespace dd::report

namespace dd::report {

TEST(Report, TextNamesNodesOnlyWhenThereAreSeveral) {
  Report r;
  auto f = make_finding("net.x", Severity::warn);
  f.node = "alpha";
  r.add(f);
  std::ostringstream one;
  render_text(r, one, TextOptions{});
  EXPECT_EQ(one.str().find("(alpha)"), std::string::npos);
  f.node = "beta";
  f.rank = 3;
  r.add(f);
  std::ostringstream two;
  render_text(r, two, TextOptions{});
  EXPECT_NE(two.str().find("(alpha)"), std::string::npos);
  EXPECT_NE(two.str().find("(beta, rank 3)"), std::string::npos);
}

}  // namespace dd::report
