// End-to-end tests of the logs engine on realistic excerpts: facts per rank, and the cross-rank findings
// (init incomplete, desync with iteration splitting, transport/interface disagreements, watchdog, torchrun).
#include "logs/analyze.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/test_files.h"

namespace dd::logs {
namespace {

const std::string kFix = std::string(DD_FIXTURE_DIR) + "/logs";
const std::string kR0 = kFix + "/healthy/nccl.gpu-node-1.12345.log";
const std::string kR1 = kFix + "/healthy/nccl.gpu-node-1.12352.log";

using test_files::slurp;

std::string replace_all(std::string s, const std::string& a, const std::string& b) {
  for (size_t k = 0; (k = s.find(a, k)) != std::string::npos; k += b.size()) s.replace(k, a.size(), b);
  return s;
}

LogsResult scan_texts(const std::vector<std::string>& texts, const std::string& pattern = "") {
  std::vector<FileResult> rs;
  ScanOptions opt;
  opt.iteration_pattern = pattern;
  for (size_t i = 0; i < texts.size(); ++i)
    rs.push_back(scan_buffer("rank" + std::to_string(i) + ".log", texts[i], Catalogue::builtin(), opt));
  return merge_results(std::move(rs), Catalogue::builtin());
}

bool documented(const std::string& id) {
  for (const auto& d : logs_finding_docs())
    if (id == d.id) return true;
  return Catalogue::builtin().find(id) != nullptr;
}

const report::Finding* find(const std::vector<report::Finding>& fs, const std::string& id) {
  for (const auto& f : fs) EXPECT_TRUE(documented(f.id)) << f.id << " has no explain text";
  for (const auto& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(LogsAnalyze, HealthyFactsPerRank) {
  LogsResult r = scan_texts({slurp(kR0), slurp(kR1)});
  ASSERT_EQ(r.processes.size(), 2u);
  const auto& p = r.processes[0];
  EXPECT_EQ(p.rank, 0);
  EXPECT_EQ(p.nranks, 2);
  EXPECT_EQ(p.host, "gpu-node-1");
  EXPECT_EQ(p.pid, 12345);
  EXPECT_EQ(p.nccl_version, "2.28.9+cuda12.9");
  EXPECT_EQ(p.cuda_driver, 12080);
  EXPECT_EQ(p.bootstrap_if, "eth0");
  EXPECT_EQ(p.bootstrap_ip, "10.1.2.3");
  EXPECT_EQ(p.network, "Socket");
  EXPECT_EQ(p.net_plugin, "internal");
  EXPECT_EQ(p.gdr, 0);
  EXPECT_EQ(p.channel_transports.at("P2P/CUMEM"), 4u);
  EXPECT_EQ(p.init_complete, 1u);
  EXPECT_EQ(p.comm_inits, 1u);
  EXPECT_DOUBLE_EQ(p.init_total_s, 0.52);
  EXPECT_EQ(r.processes[1].rank, 1);
  EXPECT_EQ(p.coll_counts, r.processes[1].coll_counts);
  EXPECT_FALSE(p.coll_counts.empty());
  auto fs = logs_findings(r, Catalogue::builtin());
  ASSERT_NE(find(fs, "logs.init.complete"), nullptr);
  EXPECT_EQ(find(fs, "logs.coll.desync"), nullptr);
}

TEST(LogsAnalyze, RankWithoutInitComplete) {
  std::string r1 = slurp(kR1);
  r1 = r1.substr(0, r1.find("Channel 00/0"));  // the log stops while connecting
  r1 +=
      "\n[2026-11-21 10:14:03] gpu-node-1:12352:12407 [1] misc/socket.cc:71 NCCL WARN socketProgress: "
      "Connection "
      "closed by remote peer gpu-node-1<38120>\n";
  r1 += "gpu-node-1:12352:12407 [1] NCCL INFO misc/socket.cc:812 -> 6\n";
  LogsResult r = scan_texts({slurp(kR0), r1});
  auto fs = logs_findings(r, Catalogue::builtin());
  const auto* f = find(fs, "logs.init.incomplete");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, report::Severity::fail);
  EXPECT_EQ(f->rank, 1);
  ASSERT_EQ(f->evidence.size(), 1u);
  EXPECT_NE(f->evidence[0].find("Connection closed"), std::string::npos);
  EXPECT_NE(f->evidence[0].find("misc/socket.cc:812 -> 6 (remote error)"), std::string::npos)
      << f->evidence[0];
  const auto* c = find(fs, "nccl.remote_closed");
  ASSERT_NE(c, nullptr);
  EXPECT_NE(c->evidence[0].find("rank1.log:"), std::string::npos);
  EXPECT_EQ(c->rank, 1);
}

TEST(LogsAnalyze, DesyncWithIterations) {
  std::string r0 = slurp(kR0), r1 = slurp(kR1);
  // Rank 1 skips one AllReduce in iteration 2.
  size_t it2 = r1.find("iteration: 2 ");
  size_t ar = r1.find("NCCL INFO AllReduce", it2);
  size_t bol = r1.rfind('\n', ar) + 1, eol = r1.find('\n', ar) + 1;
  ASSERT_LT(ar, r1.find("iteration: 3 "));
  r1.erase(bol, eol - bol);
  LogsResult r = scan_texts({r0, r1}, "iteration: ");
  auto fs = logs_findings(r, Catalogue::builtin());
  const auto* f = find(fs, "logs.coll.desync");
  ASSERT_NE(f, nullptr);
  ASSERT_GE(f->evidence.size(), 2u);
  EXPECT_NE(f->evidence[0].find("iteration: #2"), std::string::npos) << f->evidence[0];
  EXPECT_NE(f->evidence[1].find("AllReduce"), std::string::npos);
  // Without the pattern: still detected from the totals.
  r = scan_texts({r0, r1});
  EXPECT_NE(find(logs_findings(r, Catalogue::builtin()), "logs.coll.desync"), nullptr);
}

TEST(LogsAnalyze, TransportAndInterfaceDisagreements) {
  std::string r0 = replace_all(slurp(kR0), "NET/Socket : Using [0]eth0:10.1.2.3<0>",
                               "NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB eth0:10.1.2.3<0>");
  r0 = replace_all(r0, "Using network Socket", "Using network IB");
  r0 = replace_all(r0, "P2P/CUMEM/read", "NET/IB/0/GDRDMA");
  std::string r1 =
      replace_all(slurp(kR1), "Bootstrap: Using eth0:10.1.2.3<0>", "Bootstrap: Using docker0:172.17.0.1<0>");
  r1 = replace_all(
      r1, "NET/Socket : Using [0]eth0:10.1.2.3<0>",
      "NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB eth0:10.1.2.3<0>\ngpu-node-1:12352:12407 [1] NCCL INFO "
      "NET/Socket : Using [0]docker0:172.17.0.1<0>");
  LogsResult r = scan_texts({r0, r1});
  EXPECT_EQ(r.processes[0].network, "IB");
  EXPECT_EQ(r.processes[0].gdr, 1);
  EXPECT_EQ(r.processes[0].ib_devices.size(), 1u);
  EXPECT_EQ(r.processes[0].oob_if, "eth0");
  auto fs = logs_findings(r, Catalogue::builtin());
  const auto* t = find(fs, "logs.net.transport_mismatch");
  ASSERT_NE(t, nullptr);
  EXPECT_NE(t->title.find("IB"), std::string::npos);
  ASSERT_NE(find(fs, "logs.net.socket_with_ib"), nullptr);
  ASSERT_NE(find(fs, "logs.net.bad_interface"), nullptr);
  EXPECT_NE(find(fs, "logs.net.bad_interface")->evidence[0].find("docker0"), std::string::npos);
  ASSERT_NE(find(fs, "logs.net.bootstrap_if_mismatch"), nullptr);
}

TEST(LogsAnalyze, InterleavedRanksInOneFileAndVersionMismatch) {
  std::string a = slurp(kR0), b = replace_all(slurp(kR1), "2.28.9+cuda12.9", "2.21.5+cuda12.4");
  std::string mixed;
  std::istringstream ia(a), ib(b);
  for (std::string la, lb; std::getline(ia, la) && std::getline(ib, lb);)
    mixed += "[rank0]:" + la + "\n[rank1]:" + lb + "\n";
  LogsResult r = scan_texts({mixed});
  ASSERT_EQ(r.processes.size(), 2u);
  EXPECT_EQ(r.processes[0].rank, 0);
  EXPECT_EQ(r.processes[1].rank, 1);
  EXPECT_EQ(r.processes[1].nccl_version, "2.21.5+cuda12.4");
  auto fs = logs_findings(r, Catalogue::builtin());
  const auto* v = find(fs, "logs.nccl.version_mismatch");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->severity, report::Severity::fail);
}

TEST(LogsAnalyze, WatchdogAndTorchrunSummaries) {
  std::string w = slurp(kFix + "/catalogue/pytorch.watchdog_timeout.log");
  std::string c = slurp(kFix + "/catalogue/pytorch.child_failed.log");
  LogsResult r = scan_texts({w, c});
  ASSERT_EQ(r.watchdogs.size(), 2u);
  EXPECT_EQ(r.watchdogs[0].rank, 1);
  EXPECT_EQ(r.watchdogs[0].op, "ALLREDUCE");
  EXPECT_EQ(r.watchdogs[0].seq, 3);
  EXPECT_EQ(r.watchdogs[0].timeout_ms, 10000);
  EXPECT_EQ(r.watchdogs[0].last_completed, 2);
  EXPECT_EQ(r.watchdogs[1].rank, 0);
  ASSERT_EQ(r.child_failures.size(), 1u);
  EXPECT_EQ(r.child_failures[0].rank, 1);
  EXPECT_EQ(r.child_failures[0].local_rank, 1);
  EXPECT_EQ(r.child_failures[0].exitcode, 1);
  EXPECT_EQ(r.child_failures[0].pid, 20418);
  EXPECT_EQ(r.child_failures[0].host, "gpu-node-1");
  auto fs = logs_findings(r, Catalogue::builtin());
  const auto* ws = find(fs, "logs.pytorch.watchdog_summary");
  ASSERT_NE(ws, nullptr);
  EXPECT_NE(ws->evidence[0].find("rank(s) 0 (last enqueued 2, others 3)"), std::string::npos)
      << ws->evidence[0];
  ASSERT_NE(find(fs, "logs.torchrun.failures"), nullptr);
  EXPECT_EQ(find(fs, "logs.torchrun.failures")->rank, 1);
}

TEST(LogsAnalyze, InputsDirectoriesMissingAndBadFiles) {
  namespace fs = std::filesystem;
  fs::path d = fs::path(::testing::TempDir()) / ("dd_logs_in_" + std::to_string(getpid()));
  fs::create_directories(d / "sub");
  fs::copy_file(kR0, d / "sub" / "r0.log", fs::copy_options::overwrite_existing);
  std::ofstream(d / "empty.log").close();
  std::ofstream(d / "bin.log", std::ios::binary) << std::string("\0\0\x01\xff\n\0garbage", 12);
  LogsOptions opt;
  opt.paths = {d.string(), (d / "nope.log").string()};
  opt.jobs = 2;
  LogsResult r = analyze_logs(opt, Catalogue::builtin());
  EXPECT_EQ(r.files.size(), 3u);
  ASSERT_EQ(r.input_errors.size(), 1u);
  auto f = logs_findings(r, Catalogue::builtin());
  EXPECT_NE(find(f, "logs.input.unreadable"), nullptr);
  EXPECT_NE(find(f, "logs.input.empty"), nullptr);
  EXPECT_NE(find(f, "logs.input.binary"), nullptr);
  EXPECT_NE(find(f, "logs.init.complete"), nullptr);  // the one healthy rank
  auto j = logs_facts_json(r);
  EXPECT_EQ(j["files"].size(), 3u);
  fs::remove_all(d);
}

// A `distdoctor launch` run directory as 4x H100 left it after rank 1 was SIGKILLed (NCCL_DEBUG=WARN; only
// ranks 0 and 2 printed): launch's own files (the hidden marker and hooks, the stack files) are not logs, and
// two empty logs leave the logs unable to say which rank stopped first: both are named.
TEST(LogsAnalyze, LaunchRunDirectoryWithTwoSilentRanks) {
  namespace fs = std::filesystem;
  fs::path d = fs::path(::testing::TempDir()) / ("dd_logs_run_" + std::to_string(getpid()));
  fs::create_directories(d / "0" / ".pyhooks");
  fs::create_directories(d / "0" / "stacks");
  std::ofstream(d / ".distdoctor-run") << "distdoctor run\n";
  std::ofstream(d / "0" / ".pyhooks" / "sitecustomize.py") << "def _distdoctor_hooks():\n    pass\n";
  for (int r = 0; r < 4; ++r)
    std::ofstream(d / "0" / ("stacks/node0.rank" + std::to_string(r) + ".txt"))
        << "# distdoctor: stack hook pid " << 990 + r << "\n";
  for (int r : {0, 2})
    std::ofstream(d / "0" / ("node0.rank" + std::to_string(r) + ".log"))
        << "NCCL version 2.28.9+cuda13.0\n[2026-11-27 23:00:55] vm:99" << r << ":1049 [" << r
        << "] misc/socket.cc:72 NCCL WARN socketProgress: Connection closed by remote peer "
           "localhost<58367>\n[rank"
        << r << "]:[E1127 23:00:55.352711361 ProcessGroupNCCL.cpp:612] [Rank " << r
        << "] Collective WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=4194304, NumelOut=4194304, "
           "Timeout(ms)=60000) raised the following async exception: NCCL error: remote process exited or "
           "there was a network error, NCCL version 2.28.9\n";
  for (int r : {1, 3}) std::ofstream(d / "0" / ("node0.rank" + std::to_string(r) + ".log")).close();
  LogsOptions opt;
  opt.paths = {d.string()};
  opt.jobs = 1;
  LogsResult r = analyze_logs(opt, Catalogue::builtin());
  EXPECT_EQ(r.files.size(), 8u);  // 4 logs, 4 stack files; not the hidden two
  auto fs_ = logs_findings(r, Catalogue::builtin());
  ASSERT_FALSE(fs_.empty());
  const report::Finding& first = fs_.front();
  EXPECT_EQ(first.id, "logs.rank.stopped_first");
  EXPECT_EQ(first.rank, -1);
  EXPECT_NE(first.title.find("rank 1 or rank 3 stopped first"), std::string::npos) << first.title;
  for (const auto& e : first.evidence) {
    EXPECT_EQ(e.find("stacks/"), std::string::npos) << e;  // a stack file is not where a rank's log ends
    EXPECT_EQ(e.find(".pyhooks"), std::string::npos) << e;
  }
  fs::remove_all(d);
}

}  // namespace
}  // namespace dd::logs
