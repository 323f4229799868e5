// /proc/PID/stat ids and this process' lineage: parsing odd names, a recorded tree, and the real process.
#include "probe/proc_ids.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace dd::probe {
namespace {

TEST(ProcIds, ParsesAfterTheLastParenthesis) {
  auto ids = parse_proc_stat_ids("4242 (python (rank 0)) S 4200 4100 4000 34816 4100 4194560 1 2 3");
  ASSERT_TRUE(ids.has_value());
  EXPECT_EQ(ids->pid, 4242);
  EXPECT_EQ(ids->ppid, 4200);
  EXPECT_EQ(ids->pgid, 4100);
  EXPECT_EQ(ids->sid, 4000);
  EXPECT_EQ(ids->state, 'S');
  EXPECT_EQ(ids->name, "python (rank 0)");
  EXPECT_FALSE(parse_proc_stat_ids("garbage").has_value());
  EXPECT_FALSE(parse_proc_stat_ids("12 (x) S").has_value());
}

TEST(ProcIds, LineageFromRecordedTree) {
  const char* tmp = std::getenv("TMPDIR");
  std::string root = std::string(tmp && *tmp ? tmp : "/tmp") + "/dd_proc_ids_XXXXXX";
  ASSERT_NE(mkdtemp(root.data()), nullptr);
  auto put = [&](const std::string& pid, const std::string& line) {
    std::filesystem::create_directories(root + "/proc/" + pid);
    std::ofstream(root + "/proc/" + pid + "/stat") << line << "\n";
  };
  put("self", "300 (distdoctor) R 200 300 100 0 0");
  put("200", "200 (python) S 100 200 100 0 0");
  put("100", "100 (bash) S 1 100 100 0 0");
  std::ofstream(root + "/proc/200/cmdline")
      << std::string("python\0-m\0torch.distributed.run\0train.py\0", 41);
  HostFacts h;
  read_process_lineage(*make_real_fs(root), h);
  std::filesystem::remove_all(root);
  EXPECT_EQ(h.pid, 300);
  EXPECT_EQ(h.ppid, 200);
  EXPECT_EQ(h.pgid, 300);
  EXPECT_EQ(h.sid, 100);
  EXPECT_EQ(h.ancestors, (std::vector<int64_t>{200, 100}));
  EXPECT_EQ(h.ancestor_commands, (std::vector<std::string>{"python -m torch.distributed.run train.py", ""}));
}

TEST(ProcIds, RealProcess) {
  HostFacts h;
  read_process_lineage(*make_real_fs(), h);
  EXPECT_EQ(h.pid, getpid());
  EXPECT_EQ(h.ppid, getppid());
  EXPECT_EQ(h.pgid, getpgid(0));
  EXPECT_EQ(h.sid, getsid(0));
  if (getppid() > 1) {
    ASSERT_FALSE(h.ancestors.empty());
    EXPECT_EQ(h.ancestors[0], getppid());
  }
}

}  // namespace
}  // namespace dd::probe
