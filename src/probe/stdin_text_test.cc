// read_stdin: its byte cap leaves the rest unread, its deadline ends a pipe whose writer never closes it.
#include "probe/stdin_text.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace dd::probe {
namespace {

struct Pipe {
  int r = -1, w = -1;
  Pipe() {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    r = fds[0];
    w = fds[1];
  }
  ~Pipe() {
    ::close(r);
    if (w >= 0) ::close(w);
  }
  void write(const std::string& s) { EXPECT_EQ(::write(w, s.data(), s.size()), ssize_t(s.size())); }
  void close_writer() {
    ::close(w);
    w = -1;
  }
};

TEST(StdinText, ReadsToTheEnd) {
  Pipe p;
  p.write("NCCL WARN one\nNCCL WARN two\n");
  p.close_writer();
  auto t = read_stdin({}, p.r);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->text, "NCCL WARN one\nNCCL WARN two\n");
  EXPECT_FALSE(t->truncated || t->timed_out);
}

TEST(StdinText, ByteCapLeavesTheRestUnread) {
  Pipe p;
  p.write(std::string(100, 'x'));
  auto t = read_stdin({.max_bytes = 10}, p.r);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->text, std::string(10, 'x'));
  EXPECT_TRUE(t->truncated);
  char rest[100];
  EXPECT_EQ(::read(p.r, rest, sizeof rest), 89) << "one byte past the cap is read to know there is more";
}

TEST(StdinText, DeadlineEndsAPipeThatNeverCloses) {
  Pipe p;
  p.write("partial line");
  const auto start = std::chrono::steady_clock::now();
  auto t = read_stdin({.deadline = std::chrono::milliseconds(300)}, p.r);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->timed_out);
  EXPECT_EQ(t->text, "partial line");
  EXPECT_LT(took, std::chrono::seconds(5));
}

}  // namespace
}  // namespace dd::probe
