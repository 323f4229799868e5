// The Fs contract (probe/fs.h), run on the real filesystem (under a scratch root) and on MemFs, so the fake
// the tests of other folders use behaves as the disk does: writes, appends, folders, listings, removal.
#include "probe/fs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <thread>

#include "common/test_files.h"
#include "probe/mem_fs.h"

namespace dd::probe {
namespace {

class FsContract : public ::testing::TestWithParam<bool> {  // true: the real filesystem
 protected:
  void SetUp() override {
    if (GetParam()) {
      real_ = make_real_fs(scratch_.path.string());
    } else {
      mem_ = std::make_unique<MemFs>();
    }
  }
  Fs& fs() { return real_ ? *real_ : *mem_; }
  test_files::ScratchDir scratch_;
  std::unique_ptr<Fs> real_;
  std::unique_ptr<MemFs> mem_;
};

TEST_P(FsContract, WritesReplaceWholeFilesAndReadBack) {
  ASSERT_TRUE(fs().write_atomically("/k", "one", {.mode = 0600, .sync = false}));
  ASSERT_TRUE(fs().write_atomically("/k", "two", {.mode = 0600, .sync = false}));
  EXPECT_EQ(fs().read("/k").value(), "two");
  auto info = fs().stat("/k");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->kind, FileKind::regular);
  EXPECT_EQ(info->size, 3u);
  EXPECT_EQ(info->mode, 0600u);
  EXPECT_FALSE(fs().write_atomically("/no/such/k", "x"));  // the parent must exist
}

TEST_P(FsContract, AppendStartsOnItsOwnLineAndCreatesOnlyWhenAsked) {
  EXPECT_EQ(fs().append("/log", "x").error().kind, ErrorKind::not_found);
  ASSERT_TRUE(fs().append("/log", "worker said", {.create = true}));
  ASSERT_TRUE(fs().append("/log", "launch: rank 0 ended\n", {.own_line = true}));
  ASSERT_TRUE(fs().append("/log", "next\n", {.own_line = true}));
  EXPECT_EQ(fs().read("/log").value(), "worker said\nlaunch: rank 0 ended\nnext\n");
}

TEST_P(FsContract, FoldersListRemoveAndWalk) {
  ASSERT_TRUE(make_dirs(fs(), "/run/a/b"));
  ASSERT_TRUE(fs().make_dir("/run/a", 0755));  // there already: fine
  ASSERT_TRUE(fs().write_atomically("/run/a/b/rank0.log", "r0", {.sync = false}));
  ASSERT_TRUE(fs().write_atomically("/run/a/z.log", "z", {.sync = false}));
  ASSERT_TRUE(fs().write_atomically("/run/.hidden", "h", {.sync = false}));
  EXPECT_EQ(fs().list("/run/a").value(), (std::vector<std::string>{"b", "z.log"}));
  EXPECT_EQ(files_under(fs(), "/run").value(),
            (std::vector<std::string>{"/run/a/b/rank0.log", "/run/a/z.log"}));
  EXPECT_FALSE(files_under(fs(), "/nothing"));
  EXPECT_FALSE(fs().remove("/run/a/b"));  // not empty
  ASSERT_TRUE(fs().remove("/run/a/z.log"));
  ASSERT_TRUE(fs().remove("/run/a/z.log"));  // gone already: fine
  EXPECT_EQ(fs().stat("/run/a/z.log")->kind, FileKind::none);
  ASSERT_TRUE(fs().remove_tree("/run/a"));
  EXPECT_FALSE(fs().exists("/run/a/b/rank0.log"));
  EXPECT_TRUE(fs().is_dir("/run"));
}

TEST_P(FsContract, AFolderOrFifoIsNeverWrittenOver) {
  ASSERT_TRUE(fs().make_dir("/d", 0755));
  EXPECT_FALSE(fs().write_atomically("/d", "x"));
  EXPECT_FALSE(fs().append("/d", "x"));
  ASSERT_TRUE(fs().make_fifo("/fifo", 0600));
  EXPECT_EQ(fs().stat("/fifo")->kind, FileKind::fifo);
  EXPECT_FALSE(fs().append("/fifo", "x"));
  EXPECT_FALSE(fs().write_atomically("/fifo", "x"));
  EXPECT_FALSE(fs().write_fifo("/none", "x"));
}

TEST_P(FsContract, LockIsExclusive) {
  // Atomics: the real lock is flock(2), which ThreadSanitizer does not see as ordering plain ints.
  std::atomic<int> inside = 0, most = 0;
  auto body = [&] {
    for (int i = 0; i < 50; ++i) {
      auto held = fs().lock("/.lock");
      ASSERT_TRUE(held);
      const int now = ++inside;
      for (int m = most.load(); now > m && !most.compare_exchange_weak(m, now);) {
      }
      --inside;
    }
  };
  std::thread a(body), b(body);
  a.join();
  b.join();
  EXPECT_EQ(most, 1);
}

TEST_P(FsContract, WriteTargetFollowsALinkToARegularFileOnly) {
  ASSERT_TRUE(fs().make_dir("/d", 0755));
  ASSERT_TRUE(fs().write_atomically("/d/real.prom", "x", {.sync = false}));
  EXPECT_EQ(fs().write_target("/d/new.prom", Symlinks::follow).value(), "/d/new.prom");
  EXPECT_EQ(fs().write_target("/d", Symlinks::follow).error().kind, ErrorKind::invalid);
  EXPECT_TRUE(fs().can_add_to("/d"));
  EXPECT_FALSE(fs().can_add_to("/none"));
}

// make_new_dir is a claim (a run's folder): it fails with EEXIST on anything there, a folder too.
TEST_P(FsContract, ANewFolderIsMadeOnceOnly) {
  ASSERT_TRUE(fs().make_new_dir("/run", 0755));
  EXPECT_TRUE(fs().is_dir("/run"));
  auto again = fs().make_new_dir("/run", 0755);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().err, EEXIST);
  EXPECT_EQ(again.error().what, "cannot create the folder /run");
  ASSERT_TRUE(fs().write_atomically("/f", "x", {.sync = false}));
  EXPECT_EQ(fs().make_new_dir("/f", 0755).error().err, EEXIST);
  auto orphan = fs().make_new_dir("/no/such", 0755);
  ASSERT_FALSE(orphan);
  EXPECT_NE(orphan.error().err, EEXIST);
}

INSTANTIATE_TEST_SUITE_P(RealAndMem, FsContract, ::testing::Values(true, false));

// An append never goes through a symbolic link (the file it points to is left as it is), and a device is
// refused before it is opened.
TEST(RealFs, AppendNeverFollowsALinkNorWritesADevice) {
  test_files::ScratchDir scratch;
  auto fs = make_real_fs(scratch.path.string());
  ASSERT_TRUE(fs->write_atomically("/target", "kept\n", {.sync = false}));
  ASSERT_EQ(::symlink((scratch.path / "target").c_str(), (scratch.path / "link").c_str()), 0);
  auto linked = fs->append("/link", "x\n", {.own_line = true});
  ASSERT_FALSE(linked);
  EXPECT_EQ(linked.error().kind, ErrorKind::invalid);
  EXPECT_EQ(fs->read("/target").value(), "kept\n");
  EXPECT_EQ(local_fs().append("/dev/null", "x").error().kind, ErrorKind::invalid);
}

TEST(RealFs, TempFilesAreMadeUnderTheTemporaryFolder) {
  auto dir = local_fs().make_temp_dir("dd-fs-test-");
  ASSERT_TRUE(dir);
  EXPECT_TRUE(local_fs().is_dir(*dir));
  EXPECT_EQ(local_fs().stat(*dir)->mode, 0700u);
  auto file = local_fs().write_temp_file("dd-fs-test-", "token\n");
  ASSERT_TRUE(file);
  EXPECT_EQ(local_fs().read(*file).value(), "token\n");
  EXPECT_EQ(local_fs().stat(*file)->mode, 0600u);
  EXPECT_TRUE(local_fs().remove(*file));
  EXPECT_TRUE(local_fs().remove_tree(*dir));
  EXPECT_FALSE(local_fs().exists(*dir));
}

TEST(MemFs, LinksAreFollowedAndLoopsEnd) {
  MemFs fs;
  fs.put("/etc/real", "v");
  fs.put_link("/etc/link", "real");
  fs.put_link("/loop", "/loop");
  EXPECT_EQ(fs.read("/etc/link").value(), "v");
  EXPECT_EQ(fs.readlink("/etc/link").value(), "real");
  EXPECT_FALSE(fs.exists("/loop"));
  EXPECT_EQ(fs.read_capped("/etc/real", 0)->truncated, true);
}

}  // namespace
}  // namespace dd::probe
