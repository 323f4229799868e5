// write_target: nothing or a regular file is written; a device, FIFO, socket, directory or dangling link is
// refused with a sentence naming it; a link to a regular file is followed (or refused when asked).
#include "common/write_target.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/test_files.h"

namespace dd {
namespace {

TEST(WriteTarget, NothingOrARegularFileIsWrittenInPlace) {
  test_files::ScratchDir d;
  EXPECT_EQ(write_target(d / "new.prom", Symlinks::follow).value_or(""), d / "new.prom");
  std::ofstream(d / "old.prom") << "x";
  EXPECT_EQ(write_target(d / "old.prom", Symlinks::refuse).value_or(""), d / "old.prom");
}

TEST(WriteTarget, AFifoADirectoryAndADanglingLinkAreRefused) {
  test_files::ScratchDir d;
  ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
  auto fifo = write_target(d / "fifo", Symlinks::follow);
  ASSERT_FALSE(fifo.ok());
  EXPECT_EQ(fifo.error().kind, ErrorKind::invalid);
  EXPECT_EQ(fifo.error().message(),
            "cannot write " + (d / "fifo") + ": it is a FIFO (only a regular file or a new one is written)");
  auto dir = write_target(d.path.string(), Symlinks::follow);
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.error().message().find("it is a directory"), std::string::npos);
  std::filesystem::create_symlink(d / "missing", d / "dangling");
  auto dangling = write_target(d / "dangling", Symlinks::follow);
  ASSERT_FALSE(dangling.ok());
  EXPECT_NE(dangling.error().message().find("a symbolic link to a missing file"), std::string::npos);
  std::filesystem::create_symlink(d / "fifo", d / "to_fifo");
  auto to_fifo = write_target(d / "to_fifo", Symlinks::follow);
  ASSERT_FALSE(to_fifo.ok());
  EXPECT_NE(to_fifo.error().message().find("a symbolic link to " + (d / "fifo") + ", a FIFO"),
            std::string::npos);
}

TEST(WriteTarget, ACharacterDeviceIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  test_files::ScratchDir d;
  ASSERT_EQ(::mknod((d / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  auto dev = write_target(d / "null", Symlinks::follow);
  ASSERT_FALSE(dev.ok());
  EXPECT_NE(dev.error().message().find("cannot write " + (d / "null") + ": it is a character device"),
            std::string::npos);
}

TEST(WriteTarget, ALinkToARegularFileIsFollowedOrRefused) {
  test_files::ScratchDir d;
  std::filesystem::create_directory(d / "kept");
  std::ofstream(d / "kept/m.prom") << "x";
  std::filesystem::create_symlink(d / "kept/m.prom", d / "link.prom");
  EXPECT_EQ(write_target(d / "link.prom", Symlinks::follow).value_or(""),
            std::filesystem::canonical(d / "kept/m.prom").string());
  auto refused = write_target(d / "link.prom", Symlinks::refuse);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("it is a symbolic link, not followed here"), std::string::npos);
}

}  // namespace
}  // namespace dd
