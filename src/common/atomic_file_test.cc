// write_file_atomically: a regular file is replaced whole with the mode asked for whatever the umask; a
// device node, a FIFO (without blocking) and a directory stay as they are and the error names the path; a
// link to a regular file has its target replaced and stays a link; nothing temporary is left.
#include "common/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/test_files.h"

namespace dd {
namespace {

namespace fs = std::filesystem;

struct AtomicUmask {  // sets the process umask for one test
  mode_t old;
  explicit AtomicUmask(mode_t m) : old(::umask(m)) {}
  ~AtomicUmask() { ::umask(old); }
};

mode_t atomic_mode_of(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? st.st_mode : 0;
}

size_t entries_in(const fs::path& dir) {
  return size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(AtomicFile, ReplacesARegularFileWithAModeTheUmaskDoesNotChange) {
  test_files::ScratchDir d;
  std::ofstream(d / "m.prom") << "old content\n";
  {
    AtomicUmask mask(077);
    ASSERT_TRUE(write_file_atomically(d / "m.prom", "new\n").ok());
  }
  EXPECT_EQ(test_files::slurp(d / "m.prom"), "new\n");
  EXPECT_EQ(atomic_mode_of(d / "m.prom") & 07777, 0644u);
  {
    AtomicUmask mask(0);
    ASSERT_TRUE(write_file_atomically(d / "hook.py", "print(1)\n", {.mode = 0600}).ok());
  }
  EXPECT_EQ(atomic_mode_of(d / "hook.py") & 07777, 0600u);
  EXPECT_EQ(entries_in(d.path), 2u);  // no temporary file left
}

TEST(AtomicFile, AFifoOrADirectoryStaysAndTheErrorNamesThePath) {
  test_files::ScratchDir d;
  ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
  auto st = write_file_atomically(d / "fifo", "x\n");  // returns at once: nothing opens the FIFO
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message().rfind("cannot write " + (d / "fifo") + ": it is a FIFO", 0), 0u);
  EXPECT_TRUE(S_ISFIFO(atomic_mode_of(d / "fifo")));
  fs::create_directory(d / "dir");
  EXPECT_FALSE(write_file_atomically(d / "dir", "x\n").ok());
  EXPECT_TRUE(S_ISDIR(atomic_mode_of(d / "dir")));
  EXPECT_EQ(entries_in(d.path), 2u);
}

TEST(AtomicFile, ACharacterDeviceStaysADevice) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  test_files::ScratchDir d;
  ASSERT_EQ(::mknod((d / "full").c_str(), S_IFCHR | 0666, makedev(1, 7)), 0);  // as /dev/full
  auto st = write_file_atomically(d / "full", "distdoctor_check_verdict 0\n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("it is a character device"), std::string::npos);
  EXPECT_TRUE(S_ISCHR(atomic_mode_of(d / "full")));
}

TEST(AtomicFile, ALinkToARegularFileHasItsTargetReplaced) {
  test_files::ScratchDir d;
  fs::create_directory(d / "kept");
  std::ofstream(d / "kept/m.prom") << "old\n";
  fs::create_symlink(d / "kept/m.prom", d / "m.prom");
  ASSERT_TRUE(write_file_atomically(d / "m.prom", "new\n").ok());
  EXPECT_TRUE(S_ISLNK(atomic_mode_of(d / "m.prom")));
  EXPECT_EQ(test_files::slurp(d / "kept/m.prom"), "new\n");
  EXPECT_EQ(entries_in(d.path / "kept"), 1u);
  EXPECT_FALSE(write_file_atomically(d / "m.prom", "x\n", {.symlinks = Symlinks::refuse}).ok());
}

TEST(AtomicFile, AMissingFolderIsAnErrorNamingThePath) {
  test_files::ScratchDir d;
  auto st = write_file_atomically(d / "no/such/m.prom", "x\n");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message(), "cannot write " + (d / "no/such/m.prom") + ": No such file or directory");
}

}  // namespace
}  // namespace dd
