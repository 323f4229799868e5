// hang_culprit() on the real 4x H100 recordings (fixtures/logs/h100x4_hangs): each rank's lines as launch's
// tail would hold them at the stop (up to 3 s after the first watchdog line), and the faulthandler stacks.
#include "launch/hang_culprit.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "common/test_files.h"
#include "launch/python_stack.h"
#include "logs/fr/flight_recorder.h"
#include "logs/fr/fr_summary.h"

namespace dd::launch {
namespace {

const std::string kHangs = std::string(DD_FIXTURE_DIR) + "/logs/h100x4_hangs/";

using test_files::slurp;

// Seconds of the day of a PyTorch "[E1127 00:28:17.968..." header, -1 when the line has none.
double clock_of(const std::string& line) {
  size_t k = line.find(":[E");
  if (k == std::string::npos || line.size() < k + 20) return -1;
  int h = 0, m = 0;
  double s = 0;
  if (std::sscanf(line.c_str() + k + 9, "%d:%d:%lf", &h, &m, &s) != 3) return -1;
  return h * 3600 + m * 60 + s;
}

AttemptRecord recorded(const std::string& c, bool with_tails, bool with_stacks) {
  AttemptRecord a;
  a.stop.cause = StopCause::hang;
  NodeRecord n;
  n.node_rank = 0;
  std::istringstream log(slurp(kHangs + c + "/torchrun.log"));
  std::vector<std::vector<std::string>> lines(4);
  double first = -1;
  for (std::string l; std::getline(log, l);) {
    for (int r = 0; r < 4; ++r) {
      std::string prefix = "[rank" + std::to_string(r) + "]:";
      if (l.rfind(prefix, 0) != 0) continue;
      double t = clock_of(l);
      if (first < 0 && l.find("Watchdog caught") != std::string::npos) first = t;
      if (first >= 0 && t > first + 3) continue;  // launch stops the job 3 s after the first trigger at most
      lines[size_t(r)].push_back(l.substr(prefix.size()));
    }
  }
  for (int r = 0; r < 4; ++r) {
    RankRecord rr;
    rr.rank = r;
    rr.local_rank = r;
    rr.node_rank = 0;
    rr.running = true;
    if (with_tails) rr.tail = lines[size_t(r)];
    if (with_stacks) rr.stack = slurp(kHangs + c + "/stacks/rank" + std::to_string(r));
    n.ranks.push_back(rr);
  }
  a.nodes.push_back(n);
  return a;
}

TEST(HangCulprit, DesyncByOpIsTheOddOneOutNotTheMajority) {
  HangCulprit c = hang_culprit(recorded("desync_op", true, true));
  EXPECT_EQ(c.ranks, std::vector<int>{3});
  EXPECT_EQ(c.method, "watchdog lines");
  EXPECT_EQ(c.collective, "BROADCAST SeqNum=7");
  EXPECT_NE(c.why.find("ALLREDUCE"), std::string::npos) << c.why;
}

TEST(HangCulprit, RanksWithoutATimeoutNeverReachedTheCollective) {
  for (auto [name, rank] : {std::pair{"desync_pg", 0}, {"stall_idle", 3}, {"stall_busy", 3}}) {
    HangCulprit c = hang_culprit(recorded(name, true, true));
    EXPECT_EQ(c.ranks, std::vector<int>{rank}) << name << ": " << c.why;
    EXPECT_EQ(c.collective, "ALLREDUCE SeqNum=7") << name;
  }
}

TEST(HangCulprit, StacksAloneWhenNoRankPrintedATimeout) {
  for (auto [name, rank] : {std::pair{"desync_pg", 0}, {"stall_idle", 3}, {"stall_busy", 3}}) {
    HangCulprit c = hang_culprit(recorded(name, false, true));
    EXPECT_EQ(c.ranks, std::vector<int>{rank}) << name << ": " << c.why;
    EXPECT_EQ(c.method, "stacks") << name;
  }
  HangCulprit c = hang_culprit(recorded("desync_op", false, true));
  EXPECT_TRUE(c.ranks.empty()) << "every rank waits at the same line: only the Flight Recorder can tell";
}

// Rank 2 was stopped (SIGSTOP: state T) while the others wait inside the collective, every rank idle: it runs
// nothing, answers no stack request, and is the cause, named with its state (not "every rank is idle").
TEST(HangCulprit, AStoppedRankIsTheCause) {
  AttemptRecord a = recorded("desync_op", false, true);  // the others' stacks: all at the same line
  for (RankRecord& r : a.nodes[0].ranks) {
    r.pid = 1000 + r.rank;
    r.proc_state = r.rank == 2 ? "T (stopped)" : "S (sleeping)";
    r.cpu_window_s = 0;
    r.silent_s = 30;
  }
  a.nodes[0].ranks[2].stack.clear();
  a.nodes[0].ranks[2].stack_error = "no answer from launch's stack hook";
  HangCulprit c = hang_culprit(a);
  EXPECT_EQ(c.ranks, std::vector<int>{2}) << c.method << ": " << c.why;
  EXPECT_EQ(c.method, "process state");
  EXPECT_NE(c.why.find("rank 2 is stopped (state T) while ranks 0,1,3 wait"), std::string::npos) << c.why;
  ASSERT_FALSE(c.evidence.empty());
  EXPECT_EQ(c.evidence.front(), "rank 2 (pid 1002): state T (stopped)");
  a.nodes[0].ranks[2].proc_state = "S (sleeping)";  // continued: the others' evidence decides again
  EXPECT_NE(hang_culprit(a).method, "process state");
}

// The nodes' digests of the real dumps, ranks 0-1 on node 0 and 2-3 on node 1 (the merge gives the answer).
void add_dumps(AttemptRecord& a, const std::string& c) {
  std::vector<logs::FlightRecord> recs;
  for (int r = 0; r < 4; ++r) {
    auto rec = logs::read_flight_record_file(kHangs + c + "/fr/fr_trace_" + std::to_string(r));
    ASSERT_TRUE(rec) << rec.error().message();
    recs.push_back(*rec);
  }
  a.nodes.push_back(a.nodes[0]);
  a.nodes[1].node_rank = 1;
  a.nodes[0].flight_recorder = logs::fr_summary_to_json(logs::summarize_flight_records({recs[0], recs[1]}));
  a.nodes[1].flight_recorder = logs::fr_summary_to_json(logs::summarize_flight_records({recs[2], recs[3]}));
}

TEST(HangCulprit, TheFlightRecorderComesFirst) {
  AttemptRecord a = recorded("desync_op", false, true);  // no watchdog line, stacks all alike
  add_dumps(a, "desync_op");
  HangCulprit c = hang_culprit(a);
  EXPECT_EQ(c.ranks, std::vector<int>{3});
  EXPECT_EQ(c.method, "flight recorder");
  EXPECT_NE(c.collective.find("broadcast"), std::string::npos) << c.collective;
  EXPECT_NE(c.collective.find("seq 7"), std::string::npos) << c.collective;
  for (auto [name, rank] : {std::pair{"desync_pg", 0}, {"stall_idle", 3}}) {
    AttemptRecord b = recorded(name, false, false);
    add_dumps(b, name);
    EXPECT_EQ(hang_culprit(b).ranks, std::vector<int>{rank}) << name << ": " << hang_culprit(b).why;
  }
}

// Taken by launch on 4x H100 while PyTorch's dump thread was importing torch._inductor: that thread comes
// first.
TEST(PythonStack, TheMainThreadNotTheDumpThread) {
  const std::string dir = std::string(DD_FIXTURE_DIR) + "/launch/h100x4_stacks/";
  StackSummary waiting = summarize_stack(slurp(dir + "stall_busy.rank0.txt"));
  EXPECT_TRUE(waiting.in_collective);
  EXPECT_EQ(waiting.user_at, "hang_worker.py:95 in <module>");
  StackSummary busy = summarize_stack(slurp(dir + "stall_busy.rank3.txt"));
  EXPECT_FALSE(busy.in_collective);
  EXPECT_EQ(busy.user_at, "hang_worker.py:80 in <module>");
}

TEST(PythonStack, RealFaulthandlerOutput) {
  StackSummary s = summarize_stack(slurp(kHangs + "stall_busy/stacks/rank3"));
  ASSERT_FALSE(s.empty());
  EXPECT_FALSE(s.in_collective);
  EXPECT_EQ(s.user_at, "hang_worker.py:80 in <module>");
  StackSummary w = summarize_stack(slurp(kHangs + "stall_busy/stacks/rank0"));
  EXPECT_TRUE(w.in_collective);
  EXPECT_EQ(w.innermost, "synchronize (site-packages/torch/cuda/__init__.py:1162)");
  StackSummary p = summarize_stack(
      "Thread 0x7f (idle): \"MainThread\"\n    all_reduce "
      "(/usr/lib/python3/dist-packages/torch/distributed/c10d.py:30)\n"
      "    <module> (train.py:12)\n");
  EXPECT_TRUE(p.in_collective);
  EXPECT_EQ(p.user_at, "train.py:12 in <module>");
}

}  // namespace
}  // namespace dd::launch
