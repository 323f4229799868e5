// open_output_file: a new file gets the mode asked for whatever the umask; an existing one is truncated or
// appended to and keeps its mode; a FIFO (without blocking), a device and a symbolic link are refused.
#include "common/output_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/test_files.h"

namespace dd {
namespace {

mode_t output_mode_of(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? st.st_mode : 0;
}

void write_and_close(int fd, const std::string& text) {
  EXPECT_EQ(::write(fd, text.data(), text.size()), ssize_t(text.size()));
  ::close(fd);
}

TEST(OutputFile, ANewFileGetsItsModeWhateverTheUmask) {
  test_files::ScratchDir d;
  const mode_t old = ::umask(0);
  auto fd = open_output_file(d / "rank0.log", {.mode = 0640});
  ::umask(old);
  ASSERT_TRUE(fd.ok()) << fd.error().message();
  write_and_close(*fd, "one\n");
  EXPECT_EQ(output_mode_of(d / "rank0.log") & 07777, 0640u);
}

TEST(OutputFile, AnExistingFileIsTruncatedOrAppendedToAndKeepsItsMode) {
  test_files::ScratchDir d;
  std::ofstream(d / "log") << "earlier\n";
  ::chmod((d / "log").c_str(), 0600);
  auto app = open_output_file(d / "log", {.create = false});
  ASSERT_TRUE(app.ok());
  write_and_close(*app, "more\n");
  EXPECT_EQ(test_files::slurp(d / "log"), "earlier\nmore\n");
  auto fresh = open_output_file(d / "log", {.truncate = true});
  ASSERT_TRUE(fresh.ok());
  write_and_close(*fresh, "new\n");
  EXPECT_EQ(test_files::slurp(d / "log"), "new\n");
  EXPECT_EQ(output_mode_of(d / "log") & 07777, 0600u);
  auto missing = open_output_file(d / "none", {.create = false});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::not_found);
}

TEST(OutputFile, AFifoAndALinkAreRefusedWithoutBlocking) {
  test_files::ScratchDir d;
  ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
  auto fifo = open_output_file(d / "fifo", {.truncate = true});
  ASSERT_FALSE(fifo.ok());
  EXPECT_EQ(fifo.error().message().rfind("cannot write " + (d / "fifo") + ": it is a FIFO", 0), 0u);
  std::ofstream(d / "target") << "kept\n";
  std::filesystem::create_symlink(d / "target", d / "link");
  auto link = open_output_file(d / "link", {.truncate = true});
  ASSERT_FALSE(link.ok());
  EXPECT_NE(link.error().message().find("it is a symbolic link"), std::string::npos);
  EXPECT_EQ(test_files::slurp(d / "target"), "kept\n");
}

TEST(OutputFile, ACharacterDeviceIsNeverOpened) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  test_files::ScratchDir d;
  ASSERT_EQ(::mknod((d / "full").c_str(), S_IFCHR | 0666, makedev(1, 7)), 0);
  auto dev = open_output_file(d / "full", {.truncate = true});
  ASSERT_FALSE(dev.ok());
  EXPECT_NE(dev.error().message().find("it is a character device"), std::string::npos);
  EXPECT_TRUE(S_ISCHR(output_mode_of(d / "full")));
}

}  // namespace
}  // namespace dd
