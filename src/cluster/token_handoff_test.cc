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
  auto tty = hand_off_token("tok-123", true, true, "198.18.0.1:29500");
  EXPECT_EQ(tty.assignment, "DISTDOCTOR_TOKEN=tok-123");
  EXPECT_TRUE(tty.where.empty());
}

// Off a terminal the command the other nodes paste fetches the file from this node (their own /tmp does not
// have it): the master's host and the file are both in it.
TEST(TokenHandoff, PrivateFileWhenStderrIsNotATerminal) {
  auto h = hand_off_token("tok-456", true, false, "198.18.0.7:29500");
  EXPECT_EQ(h.assignment.find("tok-456"), std::string::npos) << h.assignment;
  EXPECT_EQ(h.where.find("tok-456"), std::string::npos) << h.where;
  const std::string fetch = "$(ssh 198.18.0.7 cat ";
  const auto open = h.assignment.find(fetch), close = h.assignment.find(')');
  ASSERT_NE(open, std::string::npos) << h.assignment;
  const std::string file = h.assignment.substr(open + fetch.size(), close - open - fetch.size());
  EXPECT_NE(h.where.find(file + " on 198.18.0.7"), std::string::npos) << h.where;
  EXPECT_NE(h.where.find(file), std::string::npos) << h.where;
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0) << file;
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::string text;
  std::getline(std::ifstream(file), text);
  EXPECT_EQ(text, "tok-456");
  ::unlink(file.c_str());
  auto v6 = hand_off_token("tok-457", true, false, "[fd00::7]:29500");
  EXPECT_NE(v6.assignment.find("$(ssh fd00::7 cat "), std::string::npos) << v6.assignment;
}

TEST(TokenHandoff, GivenTokenIsNeverPrinted) {
  for (bool tty : {true, false}) {
    auto h = hand_off_token("mine-789", false, tty, "198.18.0.1:29500");
    EXPECT_EQ(h.assignment.find("mine-789"), std::string::npos);
    EXPECT_EQ(h.where.find("mine-789"), std::string::npos);
    EXPECT_NE(h.assignment.find("DISTDOCTOR_TOKEN="), std::string::npos);
  }
}

}  // namespace
}  // namespace dd::cluster
