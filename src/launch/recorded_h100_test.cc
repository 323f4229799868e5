// The launch report's log reading on worker logs recorded under `distdoctor launch` on an H100
// (fixtures/launch/h100x1, from tools/device/launch_gpu.sh): the root cause's traceback, the catalogue's
// first diagnosis, and the last lines of the rank that was stopped.
#include <gtest/gtest.h>

#include <fstream>

#include "launch/failure_report.h"
#include "logs/analyze.h"
#include "logs/catalogue.h"
#include "logs/python_traceback.h"

namespace dd::launch {

namespace {
std::vector<std::string> read_lines(const std::string& name) {
  std::ifstream in(std::string(DD_FIXTURE_DIR) + "/launch/h100x1/" + name);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}
std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}
}  // namespace

TEST(LaunchRecordedH100, BadSocketIfnameDiagnosedAsNoBootstrapInterface) {
  auto lines = read_lines("bad_ifname.rank1.log");
  ASSERT_GT(lines.size(), 10u);
  std::string tb = logs::last_python_traceback(lines);
  EXPECT_NE(tb.find("init_process_group"), std::string::npos) << tb;
  EXPECT_NE(logs::traceback_exception(tb).find("torch.distributed.DistBackendError"), std::string::npos)
      << tb;
  auto diag = logs::match_text(joined(lines), logs::Catalogue::builtin());
  ASSERT_FALSE(diag.empty());
  EXPECT_EQ(diag.front().id, "nccl.bootstrap_no_interface")
      << "the specific cause before the generic error code";
}

TEST(LaunchRecordedH100, KilledRankReportedWithTheSurvivorsNcclError) {
  AttemptRecord a;
  a.stop.cause = StopCause::worker_failed;
  a.stop.rank = 1;
  a.stop.root.rank = 1;
  a.stop.root.local_rank = 1;
  a.stop.root.node_rank = 0;
  a.stop.root.signal = 9;
  a.stop.root.log_path = "logs/kill/0/node0.rank1.log";
  RankRecord survivor;
  survivor.rank = 0;
  survivor.node_rank = 0;
  survivor.exit_code = 1;  // torch's watchdog ended it after the peer vanished (a moment after the root)
  survivor.tail = read_lines("kill.rank0.log");
  ASSERT_FALSE(survivor.tail.empty());
  NodeRecord n;
  n.node_rank = 0;
  n.host = "vm";
  n.ranks = {a.stop.root, survivor};
  a.nodes = {n};
  report::Report r = build_launch_report({a});
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings.front().id, "launch.rank.failed");
  EXPECT_NE(r.findings.front().title.find("SIGKILL"), std::string::npos) << r.findings.front().title;
  EXPECT_EQ(launch_exit_code(a), kExitJobFailed);
  EXPECT_EQ(worker_exit_code(a), 137);
  bool also = false;
  for (const auto& f : r.findings) also |= f.id == "launch.rank.also_failed";
  EXPECT_TRUE(also) << "rank 0 died of the NCCL error on its own: listed, not the root cause";
  auto diag = logs::match_text(joined(survivor.tail), logs::Catalogue::builtin());
  ASSERT_FALSE(diag.empty());
  bool remote = false;
  for (const auto& f : diag) remote |= f.id.find("remote") != std::string::npos;
  EXPECT_TRUE(remote) << "the survivor's log shows a remote-process error";
}

}  // namespace dd::launch
