// find_on_path over a temp dir: order of entries, non-executable files, directories, names with a slash.
#include "probe/path_lookup.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace dd::probe {
namespace {

class PathLookup : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string t = std::string(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp") + "/dd_path_XXXXXX";
    ASSERT_NE(mkdtemp(t.data()), nullptr);
    root_ = t;
    for (const char* d : {"/a", "/b", "/c"}) ASSERT_EQ(mkdir((root_ + d).c_str(), 0755), 0);
  }
  void TearDown() override { std::system(("rm -rf " + root_).c_str()); }
  void make_file(const std::string& rel, mode_t mode) {
    std::ofstream(root_ + rel) << "#!/bin/sh\n";
    ASSERT_EQ(chmod((root_ + rel).c_str(), mode), 0);
  }
  std::string root_;
};

TEST_F(PathLookup, FirstExecutableRegularFileWins) {
  make_file("/a/tool", 0644);                              // not executable: skipped
  ASSERT_EQ(mkdir((root_ + "/b/tool").c_str(), 0755), 0);  // a directory: skipped
  make_file("/c/tool", 0755);
  std::string path = root_ + "/a::" + root_ + "/b:" + root_ + "/c/";
  EXPECT_EQ(find_on_path("tool", path), root_ + "/c/tool");
  make_file("/b/other", 0755);
  make_file("/c/other", 0755);
  EXPECT_EQ(find_on_path("other", path), root_ + "/b/other");
}

TEST_F(PathLookup, MissingNamesAndEmptyPath) {
  EXPECT_EQ(find_on_path("dd-no-such-tool", root_ + "/a:" + root_ + "/b"), "");
  EXPECT_EQ(find_on_path("sh", ""), "");
  EXPECT_EQ(find_on_path("", "/bin"), "");
}

TEST_F(PathLookup, NameWithSlashIsTakenAsIs) {
  make_file("/a/x", 0755);
  make_file("/a/y", 0600);
  EXPECT_EQ(find_on_path(root_ + "/a/x", "/nonexistent"), root_ + "/a/x");
  EXPECT_EQ(find_on_path(root_ + "/a/y", root_ + "/a"), "");
  EXPECT_EQ(find_on_path("a/x", root_), "");  // relative to the current directory, never to PATH entries
}

}  // namespace
}  // namespace dd::probe
