// StatusLine into a pipe: what it draws, in place at most once a second, again at once after an erase, and
// erases only what it drew.
#include "launch/status_line.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace dd::launch {
namespace {

using namespace std::chrono_literals;

class StatusLineTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(::pipe2(p_, O_NONBLOCK | O_CLOEXEC), 0); }
  void TearDown() override {
    ::close(p_[0]);
    if (p_[1] >= 0) ::close(p_[1]);
  }
  std::string drain() {
    std::string s;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(p_[0], buf, sizeof buf)) > 0) s.append(buf, size_t(n));
    return s;
  }
  int p_[2] = {-1, -1};
};

TEST_F(StatusLineTest, DrawsInPlaceAtMostOnceASecond) {
  const auto t0 = StatusLine::Clock::now();
  StatusLine s(p_[1]);
  EXPECT_TRUE(s.on());
  s.update("a 1", t0);
  EXPECT_EQ(drain(), "\ra 1\033[K");
  s.update("a 2", t0 + 500ms);
  EXPECT_EQ(drain(), "");
  s.update("a 3", t0 + 1000ms);
  EXPECT_EQ(drain(), "\ra 3\033[K");
}

TEST_F(StatusLineTest, ErasesOnlyWhatItDrew) {
  const auto t0 = StatusLine::Clock::now();
  {
    StatusLine s(p_[1]);
    s.erase();
    EXPECT_EQ(drain(), "");  // nothing drawn: nothing to erase
    s.update("x", t0);
    s.erase();
    EXPECT_EQ(drain(), "\rx\033[K\r\033[K");
    s.erase();
    EXPECT_EQ(drain(), "");
    s.update("y", t0 + 200ms);  // erased (a worker's line came): drawn again below it at once
    EXPECT_EQ(drain(), "\ry\033[K");
    s.update("z", t0 + 400ms);  // shown: not redrawn in place within the second
    EXPECT_EQ(drain(), "");
    s.update("z", t0 + 1200ms);
    EXPECT_EQ(drain(), "\rz\033[K");
  }
  EXPECT_EQ(drain(), "\r\033[K");  // the end erases it
}

TEST_F(StatusLineTest, OffWritesNothing) {
  StatusLine s(-1);
  EXPECT_FALSE(s.on());
  s.update("x", StatusLine::Clock::now());
  s.erase();
  EXPECT_EQ(drain(), "");
}

}  // namespace
}  // namespace dd::launch
