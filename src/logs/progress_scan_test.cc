// Tests of the per-rank progress scan: file-name ranks, tracebacks of a rank (and of the launcher, ignored),
// a survivor's peer-failure traceback, launcher exit lines, markers.
#include "logs/progress_scan.h"

#include <gtest/gtest.h>

#include "logs/file_scan.h"

namespace dd::logs {
namespace {

FileResult scan(const std::string& name, const std::string& text) {
  return scan_buffer(name, text, Catalogue::builtin(), ScanOptions{});
}

TEST(LogsProgressScan, RankFromFileName) {
  EXPECT_EQ(rank_from_file_name("logs/kill.rank1.log"), 1);
  EXPECT_EQ(rank_from_file_name("rank_12.out"), 12);
  EXPECT_EQ(rank_from_file_name("worker-rank-3.log"), 3);
  EXPECT_EQ(rank_from_file_name("nranks8/train.log"), -1);
  EXPECT_EQ(rank_from_file_name("worldrank2.log"), -1);
  EXPECT_EQ(rank_from_file_name("nccl.vm.2250.log"), -1);
}

TEST(LogsProgressScan, TracebacksPerRankAndTheLaunchersIgnored) {
  FileResult r = scan("console.log",
                      "[rank0]: step 1\n[rank1]: step 1\n"
                      "[rank1]: Traceback (most recent call last):\n"
                      "[rank1]:   File \"train.py\", line 3, in <module>\n"
                      "[rank1]:     f()\n"
                      "[rank1]: KeyError: 'label'\n"
                      "[rank0]: step 2\n"
                      "Traceback (most recent call last):\n"
                      "  File \"/venv/torch/distributed/run.py\", line 994, in <module>\n"
                      "    main()\n"
                      "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n");
  ASSERT_EQ(r.ranks.size(), 2u);  // the unprefixed launcher lines are no rank
  EXPECT_EQ(r.ranks[0].rank, 0);
  EXPECT_EQ(r.ranks[0].exception, "");
  EXPECT_EQ(r.ranks[1].exception, "KeyError: 'label'");
  EXPECT_EQ(r.ranks[1].exception_at.line, 3u);
}

TEST(LogsProgressScan, SurvivorTracebackIsAPeerFailure) {
  FileResult r =
      scan("r0.log",
           "Traceback (most recent call last):\n"
           "  File \"train.py\", line 3, in <module>\n"
           "    dist.all_reduce(t)\n"
           "torch.distributed.DistBackendError: NCCL error: remote process exited or there was a "
           "network error\n"
           "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting\n");
  ASSERT_EQ(r.ranks.size(), 1u);
  EXPECT_EQ(r.ranks[0].exception, "");
  EXPECT_NE(r.ranks[0].peer_lost.find("DistBackendError"), std::string::npos);
}

TEST(LogsProgressScan, LauncherExitLines) {
  FileResult r =
      scan("launcher.log",
           "W1122 01:15:54.887000 2598 torch/distributed/elastic/multiprocessing/api.py:1012] Sending "
           "process 2640 closing signal SIGTERM\n"
           "E1122 01:15:55.001000 2598 torch/distributed/elastic/multiprocessing/api.py:986] failed "
           "(exitcode: -6) local_rank: 1 (pid: 2641) of binary: /venv/bin/python3\n"
           "mpirun noticed that process rank 3 with PID 0 on node n2 exited on signal 9 (Killed).\n"
           "LAUNCH INFO 2026-11-23 11:59:00,655 Exit code -15\n"
           "srun: error: n1: task 5: Exited with exit code 2\n");
  ASSERT_EQ(r.exits.size(), 5u);
  EXPECT_TRUE(r.exits[0].by_launcher);
  EXPECT_EQ(r.exits[0].pid, 2640);
  EXPECT_EQ(r.exits[1].code, -6);
  EXPECT_EQ(r.exits[1].local_rank, 1);
  EXPECT_EQ(r.exits[1].pid, 2641);
  EXPECT_GE(r.exits[1].time, 0);
  EXPECT_EQ(r.exits[2].rank, 3);
  EXPECT_EQ(r.exits[2].code, -9);
  EXPECT_TRUE(r.exits[3].by_launcher);
  EXPECT_EQ(r.exits[4].rank, 5);
  EXPECT_EQ(r.exits[4].code, 2);
}

TEST(LogsProgressScan, WaitingPeerClearedWhenThePodRuns) {
  FileResult waiting = scan("l.log", "LAUNCH INFO 2026-11-23 09:38:33,367 Waiting peer start...\n");
  ASSERT_EQ(waiting.ranks.size(), 1u);
  EXPECT_TRUE(waiting.ranks[0].waiting_peers);
  FileResult ran = scan("l.log",
                        "LAUNCH INFO 2026-11-23 09:38:33,367 Waiting peer start...\n"
                        "LAUNCH INFO 2026-11-23 09:46:41,571 Run Pod: xqqbsr, replicas 2, status ready\n");
  EXPECT_FALSE(ran.ranks[0].waiting_peers);
}

}  // namespace
}  // namespace dd::logs
