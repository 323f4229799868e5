// hand_off_token: the generated token is printed only on a terminal; otherwise it goes to a private file and
// the pasted command reads it from there; a token the user gave is never printed.
#include "cluster/token_handoff.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace dd::cluster {
namespace {

TEST(TokenHandoff, PrintedOnlyOnATerminal) {
  auto tty = hand_off_token("tok-123", true, true);
  EXPECT_EQ(tty.assignment, "DISTDOCTOR_TOKEN=tok-123");
  EXPECT_TRUE(tty.where.empty());
}

TEST(TokenHandoff, PrivateFileWhenStderrIsNotATerminal) {
  auto h = hand_off_token("tok-456", true, false);
  EXPECT_EQ(h.assignment.find("tok-456"), std::string::npos) << h.assignment;
  EXPECT_EQ(h.where.find("tok-456"), std::string::npos) << h.where;
  const auto open = h.assignment.find("$(cat "), close = h.assignment.find(')');
  ASSERT_NE(open, std::string::npos) << h.assignment;
  const std::string file = h.assignment.substr(open + 6, close - open - 6);
  EXPECT_NE(h.where.find(file), std::string::npos) << h.where;
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0) << file;
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::string text;
  std::getline(std::ifstream(file), text);
  EXPECT_EQ(text, "tok-456");
  ::unlink(file.c_str());
}

TEST(TokenHandoff, GivenTokenIsNeverPrinted) {
  for (bool tty : {true, false}) {
    auto h = hand_off_token("mine-789", false, tty);
    EXPECT_EQ(h.assignment.find("mine-789"), std::string::npos);
    EXPECT_EQ(h.where.find("mine-789"), std::string::npos);
    EXPECT_NE(h.assignment.find("DISTDOCTOR_TOKEN="), std::string::npos);
  }
}

}  // namespace
}  // namespace dd::cluster
