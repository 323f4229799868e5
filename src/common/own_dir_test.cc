// make_own_dir: the mode is exact whatever the umask, a group-writable folder of ours is narrowed, and a
// symbolic link or a file in its place is refused.
#include "common/own_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/test_files.h"

namespace dd {
namespace {

mode_t own_dir_mode(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? st.st_mode : 0;
}

TEST(OwnDir, TheModeIsExactWhateverTheUmask) {
  test_files::ScratchDir d;
  const mode_t old = ::umask(002);
  const Status hooks = make_own_dir(d / ".pyhooks", 0700);
  const Status logs = make_own_dir(d / "0", 0755);
  ::umask(old);
  ASSERT_TRUE(hooks.ok()) << hooks.error().message();
  ASSERT_TRUE(logs.ok());
  EXPECT_EQ(own_dir_mode(d / ".pyhooks") & 07777, 0700u);
  EXPECT_EQ(own_dir_mode(d / "0") & 07777, 0755u);
  ::chmod((d / ".pyhooks").c_str(), 0775);  // made by an older distdoctor under umask 002
  ASSERT_TRUE(make_own_dir(d / ".pyhooks", 0700).ok());
  EXPECT_EQ(own_dir_mode(d / ".pyhooks") & 07777, 0700u);
}

TEST(OwnDir, ALinkOrAFileInItsPlaceIsRefused) {
  test_files::ScratchDir d;
  std::filesystem::create_directory(d / "elsewhere");
  std::filesystem::create_directory_symlink(d / "elsewhere", d / "link");
  auto link = make_own_dir(d / "link", 0700);
  ASSERT_FALSE(link.ok());
  EXPECT_EQ(link.error().message(),
            "cannot create the folder " + (d / "link") + ": a symbolic link or another file is in its place");
  std::ofstream(d / "file") << "x";
  EXPECT_FALSE(make_own_dir(d / "file", 0700).ok());
  auto parentless = make_own_dir(d / "no/such", 0700);
  ASSERT_FALSE(parentless.ok());
  EXPECT_EQ(parentless.error().err, ENOENT);
}

}  // namespace
}  // namespace dd
