// DirStore over a MemFs (probe/mem_fs.h): its keys are files of one folder, its counters are safe under
// the folder's lock, and nothing of it touches the disk (store_conformance_test.cc runs it on the disk).
#include <gtest/gtest.h>

#include <thread>

#include "probe/mem_fs.h"
#include "rendezvous/dir_store.h"
#include "rendezvous/test_util.h"  // soon()

namespace dd::rendezvous {
namespace {

using testing::soon;

TEST(DirStoreOnMemFs, KeysAreFilesOfItsFolderThroughTheFsItIsGiven) {
  probe::MemFs fs;
  fs.put_dir("/store");
  DirStore store("/store", fs);
  ASSERT_TRUE(store.set("rank/0", "host-a", soon()));
  EXPECT_EQ(fs.read("/store/k_rank%2f0").value(), "host-a");
  EXPECT_EQ(fs.stat("/store/k_rank%2f0")->mode, 0600u);
  EXPECT_EQ(store.get("rank/0", soon()).value(), "host-a");
  fs.put("/store/k_rank%2f1.tmp.7.0", "half");  // a temporary file of a writer: not a key
  EXPECT_EQ(store.list("rank/", soon()).value(), (std::vector<std::string>{"rank/0"}));
  EXPECT_EQ(store.check({"rank/0", "rank/1"}, soon()).value(), (std::vector<bool>{true, false}));
  ASSERT_TRUE(store.remove("rank/0", soon()));
  EXPECT_FALSE(fs.exists("/store/k_rank%2f0"));
  EXPECT_EQ(store.get("rank/0", Clock::now()).error().kind, ErrorKind::timeout);
}

TEST(DirStoreOnMemFs, CountersAddUpUnderTheLock) {
  probe::MemFs fs;
  fs.put_dir("/store");
  DirStore store("/store", fs);
  auto count = [&] {
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(store.add("arrived", 1, soon()));
  };
  std::thread a(count), b(count);
  a.join();
  b.join();
  EXPECT_EQ(store.add("arrived", 0, soon()).value(), 200);
  fs.put("/store/k_text", "not a number");
  EXPECT_FALSE(store.add("text", 1, soon()));
}

}  // namespace
}  // namespace dd::rendezvous
