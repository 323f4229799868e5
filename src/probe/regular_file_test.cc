// The regular-file opener: regular files read whole or capped (truncation reported), FIFOs, devices and
// directories refused at once with a sentence naming what they are, missing files as not_found.
#include "probe/regular_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
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

}  // namespace
}  // namespace dd::probe
