// claim_run_dir: a reused job id gets the next numbered folder, nodes of one run share theirs, an older run's
// folder without a marker is left alone, and a folder that cannot be made is an error; the log folders and
// files made before the workers, and what an ENOSPC names.
#include "launch/run_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <vector>

#include "common/test_files.h"
#include "probe/mem_fs.h"

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
  std::ofstream(t.path / "file")
      << "x";  // a file where the log folder should be (root cannot make it either)
  auto r = claim_run_dir((t.path / "file" / "logs").string(), "job", "run-a");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("cannot create the log folder"), std::string::npos)
      << r.error().message();
}

TEST(RunDir, RunIdsDiffer) { EXPECT_NE(make_run_id(), make_run_id()); }

mode_t run_dir_mode(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? st.st_mode : 0;
}

TEST(RunDir, FoldersAndLogsAreMadeBeforeWorkersWithModesTheUmaskDoesNotWiden) {
  TempDir t;
  const mode_t old = ::umask(002);
  const std::string problem = log_dir_problem((t.path / "logs").string());
  const Status prepared =
      prepare_attempt_logs((t.path / "logs/0").string(), {(t.path / "logs/0/node0.rank0.log").string()});
  ::umask(old);
  EXPECT_EQ(problem, "");
  ASSERT_TRUE(prepared.ok()) << prepared.error().message();
  EXPECT_EQ(run_dir_mode(t.path / "logs") & 07777, 0755u);
  EXPECT_EQ(run_dir_mode(t.path / "logs/0") & 07777, 0755u);
  EXPECT_TRUE(S_ISREG(run_dir_mode(t.path / "logs/0/node0.rank0.log")));
  // A FIFO where a log goes is refused by name, without blocking.
  ASSERT_EQ(::mkfifo((t.path / "logs/0/node0.rank1.log").c_str(), 0600), 0);
  const Status fifo =
      prepare_attempt_logs((t.path / "logs/0").string(), {(t.path / "logs/0/node0.rank1.log").string()});
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(fifo.error().message().find("node0.rank1.log: it is a FIFO"), std::string::npos);
}

// A log path someone linked elsewhere is refused and the link's target left as it was; an earlier run's log
// is started empty.
TEST(RunDir, ALinkWhereALogGoesIsRefused) {
  TempDir t;
  const std::string dir = (t.path / "0").string();
  ASSERT_TRUE(prepare_attempt_logs(dir, {dir + "/node0.rank0.log"}).ok());
  { std::ofstream(dir + "/node0.rank0.log") << "an earlier attempt's lines\n"; }
  { std::ofstream(t.path / "victim") << "kept\n"; }
  fs::create_symlink(t.path / "victim", dir + "/node0.rank1.log");
  const Status linked = prepare_attempt_logs(dir, {dir + "/node0.rank0.log", dir + "/node0.rank1.log"});
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.error().message().find("node0.rank1.log: it is a symbolic link"), std::string::npos)
      << linked.error().message();
  EXPECT_EQ(test_files::slurp(t.path / "victim"), "kept\n");
  EXPECT_EQ(test_files::slurp(dir + "/node0.rank0.log"), "");
}

// The run folder's claim, marker and logs go through the Fs given: another run's folder is never taken over.
TEST(RunDir, ClaimAndLogsOnAnyFs) {
  probe::MemFs mem;
  mem.put("/logs/job/.distdoctor-run", "run-a\n");
  auto mine = claim_run_dir("/logs", "job", "run-b", mem);
  ASSERT_TRUE(mine.ok()) << mine.error().message();
  EXPECT_EQ(*mine, "/logs/job.2");
  EXPECT_EQ(mem.read("/logs/job/.distdoctor-run").value(), "run-a\n");
  EXPECT_EQ(mem.read("/logs/job.2/.distdoctor-run").value(), "run-b\n");
  EXPECT_EQ(claim_run_dir("/logs", "job", "run-b", mem).value(), "/logs/job.2");
  EXPECT_EQ(log_dir_problem("/new/logs", mem), "");
  EXPECT_TRUE(mem.is_dir("/new/logs"));
  ASSERT_TRUE(prepare_attempt_logs("/logs/job.2/0", {"/logs/job.2/0/node0.rank0.log"}, mem).ok());
  EXPECT_EQ(mem.read("/logs/job.2/0/node0.rank0.log").value(), "");
}

TEST(RunDir, ANoSpaceErrorSaysWhatRanOut) {
  TempDir t;  // a filesystem with inodes left: the bytes ran out
  const std::string d = t.path.string();
  EXPECT_EQ(
      write_problem(Error::sys(ENOSPC, "cannot write " + d + "/x.log"), d),
      "cannot write " + d + "/x.log: no space on the filesystem of " + d + " (No space left on device)");
  EXPECT_EQ(write_problem(Error::sys(EACCES, "cannot write " + d + "/x.log"), d),
            "cannot write " + d + "/x.log: Permission denied");
}

}  // namespace
}  // namespace dd::launch
