// The regular-file opener: regular files read whole or capped (truncation reported), FIFOs, devices and
// directories refused at once with a sentence naming what they are, missing files as not_found, and a /proc
// file that blocks (/proc/kmsg) ended by the deadline even inside a read.
#include "probe/regular_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>

namespace dd::probe {
namespace {

std::string temp_name(const char* name) {
  return std::string(::testing::TempDir()) + "/dd_regfile_" + std::to_string(getpid()) + "_" + name;
}

TEST(RegularFile, ReadsWholeAndCapped) {
  const std::string p = temp_name("conf");
  std::ofstream(p) << "NCCL_DEBUG=INFO\n";
  auto whole = read_regular_file(p);
  ASSERT_TRUE(whole) << whole.error().message();
  EXPECT_EQ(whole->text, "NCCL_DEBUG=INFO\n");
  EXPECT_EQ(whole->file_size, 16u);
  EXPECT_FALSE(whole->truncated);
  ReadLimits small;
  small.max_bytes = 4;
  auto cut = read_regular_file(p, small);
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->text, "NCCL");
  EXPECT_TRUE(cut->truncated);
  small.max_bytes = 16;  // exactly the size: not truncated
  auto exact = read_regular_file(p, small);
  ASSERT_TRUE(exact);
  EXPECT_FALSE(exact->truncated);
  unlink(p.c_str());
}

TEST(RegularFile, FifoRefusedAtOnce) {
  const std::string p = temp_name("fifo");
  ASSERT_EQ(mkfifo(p.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  auto r = read_regular_file(p);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::invalid);
  EXPECT_EQ(r.error().message(), p + " is a FIFO, not a regular file");
  unlink(p.c_str());
}

TEST(RegularFile, DevicesDirectoriesAndMissingRefused) {
  auto zero = read_regular_file("/dev/zero");
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().message(), "/dev/zero is a character device, not a regular file");
  auto dir = open_regular_file("/");
  ASSERT_FALSE(dir);
  EXPECT_EQ(dir.error().message(), "/ is a directory, not a regular file");
  auto missing = stat_regular_file(temp_name("absent"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::not_found);
}

TEST(RegularFile, ProcFilesAreRegularAndRead) {
  auto r = read_regular_file("/proc/self/status");  // size 0 in stat, but text to read
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_NE(r->text.find("Name:"), std::string::npos);
}

// /proc/kmsg is "regular" with size 0, and a read of it waits for the next kernel message: the deadline was
// checked only between reads, so `check --facts /proc/kmsg` and `--token-file` hung. Root only (it may
// return pending messages first, then blocks).
TEST(RegularFile, ProcFileThatBlocksEndsAtItsDeadline) {
  int fd = ::open("/proc/kmsg", O_RDONLY | O_NONBLOCK);
  if (fd < 0) GTEST_SKIP() << "/proc/kmsg cannot be opened here (needs root): " << std::strerror(errno);
  ::close(fd);
  ReadLimits lim;
  lim.deadline = std::chrono::seconds(3);
  const auto start = std::chrono::steady_clock::now();
  auto r = read_regular_file("/proc/kmsg", lim);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r) << "read " << r->text.size() << " bytes and an end that /proc/kmsg never has";
  EXPECT_EQ(r.error().kind, ErrorKind::timeout) << r.error().message();
  // Idle for its idle limit ("blocks"), or, when the kernel logs now and then (other tests making network
  // namespaces in parallel), its overall deadline ("took longer than"): either way it ends by the deadline.
  const std::string why = r.error().message();
  EXPECT_TRUE(why.find("blocks") != std::string::npos ||
              why.find("took longer than 3 s") != std::string::npos)
      << why;
  EXPECT_LT(took, std::chrono::seconds(4));
}

TEST(RegularFile, ReadUntilWaitsNoLongerThanItsLimits) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_NONBLOCK), 0);
  char buf[16];
  const auto start = std::chrono::steady_clock::now();
  ssize_t n =
      read_until(fds[0], buf, sizeof buf, start + std::chrono::seconds(10), std::chrono::milliseconds(100));
  int err = errno;
  EXPECT_EQ(n, -1);
  EXPECT_EQ(err, ETIMEDOUT);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_EQ(::write(fds[1], "ab", 2), 2);
  EXPECT_EQ(read_until(fds[0], buf, sizeof buf, start + std::chrono::seconds(10), std::chrono::seconds(1)),
            2);
  ::close(fds[1]);
  EXPECT_EQ(read_until(fds[0], buf, sizeof buf, start + std::chrono::seconds(10), std::chrono::seconds(1)),
            0);
  ::close(fds[0]);
}

}  // namespace
}  // namespace dd::probe
