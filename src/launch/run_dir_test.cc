// claim_run_dir: a reused job id gets the next numbered folder, nodes of one run share theirs, an older run's
// folder without a marker is left alone, and a folder that cannot be made is an error.
#include "launch/run_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <vector>

#include "common/test_files.h"

namespace dd::launch {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "dd_run_dir_XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

TEST(RunDir, ReusedJobIdGetsTheNextFolder) {
  TempDir t;
  const std::string logs = (t.path / "logs").string();
  auto first = claim_run_dir(logs, "job", "run-a");
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_EQ(*first, logs + "/job");
  EXPECT_EQ(test_files::slurp(*first + "/" + kRunMarker), "run-a\n");
  auto again = claim_run_dir(logs, "job", "run-a");  // another node of the same run on this filesystem
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *first);
  auto second = claim_run_dir(logs, "job", "run-b");  // the same --job-id, a new run
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, logs + "/job.2");
  auto third = claim_run_dir(logs, "job", "run-c");
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(*third, logs + "/job.3");
  auto b = claim_run_dir(logs, "job", "run-b");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b, logs + "/job.2");
}

TEST(RunDir, OlderRunWithoutMarkerIsLeftAlone) {
  TempDir t;
  const std::string logs = t.path.string();
  fs::create_directories(t.path / "job" / "0");
  std::ofstream(t.path / "job" / "0" / "node0.rank0.log") << "an older distdoctor's run\n";
  auto r = claim_run_dir(logs, "job", "run-new");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, logs + "/job.2");
  EXPECT_EQ(test_files::slurp(t.path / "job" / "0" / "node0.rank0.log"), "an older distdoctor's run\n");
}

TEST(RunDir, NodesOfOneRunRacingShareTheFolder) {
  TempDir t;
  const std::string logs = t.path.string();
  std::vector<std::future<Result<std::string>>> nodes;
  for (int i = 0; i < 8; ++i)
    nodes.push_back(std::async(std::launch::async, [&] { return claim_run_dir(logs, "job", "run-x"); }));
  for (auto& n : nodes) {
    auto r = n.get();
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ(*r, logs + "/job");
  }
  EXPECT_FALSE(fs::exists(t.path / "job.2"));
}

TEST(RunDir, FolderThatCannotBeMadeIsAnError) {
  TempDir t;
  std::ofstream(t.path / "file") << "x";  // a file where the log folder should be (root cannot make it either)
  auto r = claim_run_dir((t.path / "file" / "logs").string(), "job", "run-a");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("cannot create the log folder"), std::string::npos) << r.error().message();
}

TEST(RunDir, RunIdsDiffer) { EXPECT_NE(make_run_id(), make_run_id()); }

}  // namespace
}  // namespace dd::launch
