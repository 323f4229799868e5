// One analysis of the watchdog lines: on the same lines, launch's hang culprit (read from the ranks' tails at
// the stop) names the rank `logs` names (read from the log files). Before, launch kept its own reading (op
// and SeqNum only) and said "none stands out" where the sizes told the ranks apart and `logs` named rank 1.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "common/test_files.h"
#include "launch/failure_report.h"
#include "launch/hang_culprit.h"
#include "logs/analyze.h"

namespace dd::launch {
namespace {

const std::string kAgreeHangs = std::string(DD_FIXTURE_DIR) + "/logs/h100x4_hangs/";

// Each rank's "[rankN]:" lines of a recorded torchrun.log, up to 3 s after the first watchdog line (launch
// stops the job then): the prefix taken off, as the rank's own log holds them.
std::vector<std::vector<std::string>> recorded_tails(const std::string& c) {
  std::vector<std::vector<std::string>> tails(4);
  std::istringstream log(test_files::slurp(kAgreeHangs + c + "/torchrun.log"));
  double first = -1;
  for (std::string l; std::getline(log, l);) {
    if (l.rfind("[rank", 0) != 0 || l.size() < 8 || l[6] != ']') continue;
    const int r = l[5] - '0';
    int h = 0, m = 0;
    double s = -1;
    if (const size_t k = l.find(":[E"); k != std::string::npos)
      std::sscanf(l.c_str() + k + 9, "%d:%d:%lf", &h, &m, &s);
    const double t = s < 0 ? -1 : h * 3600 + m * 60 + s;
    if (first < 0 && l.find("Watchdog caught") != std::string::npos) first = t;
    if (first >= 0 && t > first + 3) continue;
    if (r >= 0 && r < 4) tails[size_t(r)].push_back(l.substr(8));
  }
  return tails;
}

// A hang snapshot of 4 running ranks holding those tails: no stacks, no dumps, no CPU figures.
AttemptRecord hang_with_tails(const std::vector<std::vector<std::string>>& tails) {
  AttemptRecord a;
  a.stop.cause = StopCause::hang;
  NodeRecord n;
  n.node_rank = 0;
  for (int r = 0; r < int(tails.size()); ++r) {
    RankRecord rr;
    rr.rank = rr.local_rank = r;
    rr.node_rank = 0;
    rr.running = true;
    rr.tail = tails[size_t(r)];
    n.ranks.push_back(rr);
  }
  a.nodes.push_back(n);
  return a;
}

// The rank `logs` blames first (its first fail finding that names one), reading the same lines as one
// torchrun-style file.
int logs_culprit(const std::vector<std::vector<std::string>>& tails) {
  test_files::ScratchDir dir;
  const std::string path = (dir.path / "torchrun.log").string();
  {
    std::ofstream out(path);
    for (size_t r = 0; r < tails.size(); ++r)
      for (const auto& l : tails[r]) out << "[rank" << r << "]:" << l << "\n";
  }
  logs::LogsOptions opt;
  opt.paths = {path};
  opt.jobs = 1;
  const auto& cat = logs::Catalogue::builtin();
  for (const auto& f : logs::logs_findings(logs::analyze_logs(opt, cat), cat))
    if (f.severity == report::Severity::fail && f.rank >= 0) return f.rank;
  return -1;
}

int launch_culprit(const AttemptRecord& a) {
  const auto findings = build_launch_report({a}).findings;
  return findings.empty() || findings.front().id != "launch.hang" ? -2 : findings.front().rank;
}

TEST(HangCulpritAgrees, OnTheRecordedWatchdogLines) {
  for (auto [name, rank] :
       {std::pair{"desync_op", 3}, {"desync_pg", 0}, {"stall_idle", 3}, {"stall_busy", 3}}) {
    const auto tails = recorded_tails(name);
    EXPECT_EQ(logs_culprit(tails), rank) << name;
    EXPECT_EQ(launch_culprit(hang_with_tails(tails)), rank)
        << name << ": " << hang_culprit(hang_with_tails(tails)).why;
  }
}

// desync_op's lines with rank 1 all_reducing twice the elements at SeqNum 7 where the others reduce 1 Mi: the
// op and SeqNum are the same everywhere, the sizes name rank 1.
TEST(HangCulpritAgrees, WhenOnlyTheSizesDiffer) {
  auto tails = recorded_tails("desync_op");
  for (auto& lines : tails)
    for (auto& l : lines) {
      if (const size_t k = l.find("OpType=BROADCAST"); k != std::string::npos)
        l.replace(k, 16, "OpType=ALLREDUCE");
    }
  for (auto& l : tails[1])
    if (const size_t k = l.find("NumelIn=1048576, NumelOut=1048576"); k != std::string::npos)
      l.replace(k, 33, "NumelIn=2097152, NumelOut=2097152");
  ASSERT_EQ(logs_culprit(tails), 1) << "logs tells the ranks apart by their sizes";
  const AttemptRecord a = hang_with_tails(tails);
  EXPECT_EQ(launch_culprit(a), 1) << hang_culprit(a).method << ": " << hang_culprit(a).why;
  EXPECT_EQ(hang_culprit(a).method, "watchdog lines");
}

}  // namespace
}  // namespace dd::launch
