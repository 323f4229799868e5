// Tests of the scheduler-facing outputs: --fail-on's exit codes, the one summary line, the metrics text, and
// that a metrics file that cannot be written is an error while the report is still printed.
#include "report/emit.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "probe/mem_fs.h"
#include "report/metrics.h"
#include "report/summary_line.h"

namespace dd::report {
namespace {

Finding emit_finding(const char* id, Severity s, std::string title, std::string node = "") {
  Finding f;
  f.id = id;
  f.severity = s;
  f.title = std::move(title);
  f.node = std::move(node);
  return f;
}

TEST(Emit, FailOnChoosesTheVerdictThatExitsNonZero) {
  EXPECT_EQ(exit_code_for(Verdict::pass, FailOn::warn), kExitPass);
  EXPECT_EQ(exit_code_for(Verdict::warn, FailOn::warn), kExitWarn);
  EXPECT_EQ(exit_code_for(Verdict::fail, FailOn::warn), kExitFail);
  EXPECT_EQ(exit_code_for(Verdict::warn, FailOn::fail), kExitPass);
  EXPECT_EQ(exit_code_for(Verdict::fail, FailOn::fail), kExitFail);
}

TEST(Emit, SummaryNamesTheWorstFindingOnOneSafeLine) {
  Report r;
  r.add(emit_finding("gpu.ok", Severity::ok, "8 GPUs"));
  r.add(emit_finding("net.slow", Severity::warn, "slow link"));
  r.add(emit_finding("net.ifname.is_ip", Severity::fail,
                     "NCCL_SOCKET_IFNAME holds \"10.0.0.1\"\nan IP $x`y\\", "gpu7"));
  r.add(emit_finding("shm.small", Severity::fail, "tiny /dev/shm"));
  EXPECT_EQ(
      summary_line(r, "check"),
      "distdoctor check: fail (2 fail, 1 warn, 1 pass): gpu7: NCCL_SOCKET_IFNAME holds '10.0.0.1' an IP  "
      "x y  [net.ifname.is_ip]");
  Report ok;
  ok.add(emit_finding("gpu.ok", Severity::ok, "8 GPUs"));
  ok.add(emit_finding("x.info", Severity::info, "note"));
  EXPECT_EQ(summary_line(ok, "check"), "distdoctor check: pass (0 fail, 0 warn, 2 pass)");
  Report lng;
  lng.add(emit_finding("a.b", Severity::warn, std::string(400, 'x')));
  EXPECT_EQ(summary_line(lng, "check").size(), kSummaryMax);
  EXPECT_EQ(summary_line(lng, "check").rfind("distdoctor check: warn (0 fail, 1 warn, 0 pass): ", 0), 0u)
      << "the counts come before a title that is cut";
  EXPECT_EQ(summary_line(lng, "check").substr(kSummaryMax - 9), "... [a.b]") << "and the id stays";
}

TEST(Emit, MetricsHaveHelpTypeAndEscapedLabels) {
  Report r;
  r.add(emit_finding("net.x", Severity::warn, "t", "node \"a\"\\b"));
  r.add(emit_finding("gpu.ok", Severity::ok, "fine"));
  r.measurements = {{"collectives",
                     {{"engine", "nccl"},
                      {"ok", true},
                      {"wall_s", 1.5},
                      {"ops",
                       {{{"collective", "all_reduce"},
                         {"bytes", 1048576u},
                         {"busbw_gbps", 2.5},
                         {"algbw_gbps", 1.25},
                         {"time_us", 800.0},
                         {"wrong", 0}}}}}}};
  const std::string m = check_metrics(render_json(r), 1700000000.5);
  EXPECT_NE(m.find("# HELP distdoctor_check_verdict "), std::string::npos) << m;
  EXPECT_NE(m.find("# TYPE distdoctor_check_verdict gauge\ndistdoctor_check_verdict 1\n"), std::string::npos);
  EXPECT_NE(m.find("distdoctor_check_last_run_timestamp_seconds 1700000000.5\n"), std::string::npos);
  EXPECT_NE(m.find("distdoctor_check_finding{id=\"net.x\",severity=\"warn\",node=\"node \\\"a\\\"\\\\b\"} 1"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("distdoctor_check_findings{severity=\"ok\"} 1"), std::string::npos);
  EXPECT_NE(
      m.find("distdoctor_check_collective_busbw_bytes_per_second{collective=\"all_reduce\",bytes=\"1048576\","
             "engine=\"nccl\"} 2500000000"),
      std::string::npos)
      << m;
  EXPECT_NE(m.find("distdoctor_check_collective_time_seconds{collective=\"all_reduce\",bytes=\"1048576\","
                   "engine=\"nccl\"} 0.0008"),
            std::string::npos)
      << m;
  EXPECT_EQ(m.find("gpu.ok"), std::string::npos);  // ok findings only counted
  EXPECT_EQ(metric_label_value("a\nb"), "a\\nb");
}

// Two nodes on one host (a test cluster, two containers) are two series: nodes are named "host(node rank)".
TEST(Emit, MeshMetricsNameEachNodeByHostAndRank) {
  Report r;
  r.facts = {{"nodes", {{{"node_rank", 0}, {"hostname", "vm"}}, {{"node_rank", 1}, {"hostname", "vm"}}}},
             {"mesh",
              {{"probes",
                {{{"from", 0}, {"to", 1}, {"to_addr", "198.18.0.2"}, {"ok", true}, {"connect_ms", 0.5}},
                 {{"from", 1}, {"to", 0}, {"to_addr", "198.18.0.1"}, {"ok", false}, {"connect_ms", -1}}}}}}};
  const std::string m = check_metrics(render_json(r), 1);
  EXPECT_NE(
      m.find("distdoctor_check_mesh_connect_seconds{from=\"vm(0)\",to=\"vm(1)\",to_addr=\"198.18.0.2\"} "
             "0.0005\n"),
      std::string::npos)
      << m;
  EXPECT_NE(m.find("distdoctor_check_mesh_ok{from=\"vm(1)\",to=\"vm(0)\",to_addr=\"198.18.0.1\"} 0\n"),
            std::string::npos)
      << m;
  EXPECT_EQ(m.find("to=\"vm(0)\",to_addr=\"198.18.0.1\"} -"), std::string::npos);  // no time for a failed one
}

TEST(Emit, UnwritableMetricsFileIsAnErrorAndTheReportStillPrints) {
  Report r;
  r.add(emit_finding("a.b", Severity::warn, "something"));
  EmitOptions o;
  o.summary = true;
  o.metrics_file = "/nonexistent-dir-for-dd-test/m.prom";
  probe::MemFs fs;
  o.write_file = [&fs](const std::string& p, std::string_view t) { return fs.write_atomically(p, t); };
  std::ostringstream out, err;
  EXPECT_EQ(emit_check_report(r, o, out, err), kExitCannotRun);
  EXPECT_EQ(out.str(), "distdoctor check: warn (0 fail, 1 warn, 0 pass): something [a.b]\n");
  EXPECT_EQ(err.str(),
            "distdoctor check: --metrics: cannot write /nonexistent-dir-for-dd-test/m.prom: No such file or "
            "directory\n");
}

// Every command's --json starts with the same members (docs/json.md); its exit_code is the process's, a
// metrics file that could not be written included.
TEST(Emit, EveryJsonHasTheEnvelope) {
  Report r;
  r.add(emit_finding("a.b", Severity::warn, "something"));
  std::ostringstream out;
  print_report(r, {.json = true, .envelope = {.command = "logs", .node = "n1"}, .extra = {{"own", 1}}}, out);
  const auto j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j.at("schema"), kJsonSchema);
  EXPECT_EQ(j.at("version"), DD_VERSION);
  EXPECT_EQ(j.at("command"), "logs");
  EXPECT_EQ(j.at("verdict"), "warn");
  EXPECT_EQ(j.at("exit_code"), kExitWarn);
  EXPECT_EQ(j.at("node"), "n1");
  EXPECT_EQ(j.at("findings").size(), 1u);
  EXPECT_TRUE(j.contains("facts"));
  EXPECT_EQ(j.at("own"), 1);
  EmitOptions o{.json = true, .metrics_file = "/nonexistent-dir-for-dd-test/m.prom"};
  o.envelope = {.command = "check", .node = "n2"};
  probe::MemFs fs;
  o.write_file = [&fs](const std::string& p, std::string_view t) { return fs.write_atomically(p, t); };
  std::ostringstream cout_, err;
  EXPECT_EQ(emit_check_report(r, o, cout_, err), kExitCannotRun);
  const auto c = nlohmann::json::parse(cout_.str());
  EXPECT_EQ(c.at("command"), "check");
  EXPECT_EQ(c.at("exit_code"), kExitCannotRun) << "the metrics file was not written";
}

TEST(Emit, MetricsFileIsReplacedWhole) {
  probe::MemFs fs;
  fs.put("/metrics/m.prom", "old content that is longer than the new one\n");
  Report r;
  EmitOptions o;
  o.summary = true;
  o.metrics_file = "/metrics/m.prom";
  o.write_file = [&fs](const std::string& p, std::string_view t) { return fs.write_atomically(p, t); };
  std::ostringstream out, err;
  EXPECT_EQ(emit_check_report(r, o, out, err), kExitPass);
  const std::string got = fs.read("/metrics/m.prom").value_or("");
  EXPECT_EQ(got.rfind("# HELP distdoctor_check_verdict", 0), 0u) << got;
  EXPECT_EQ(got.find("old content"), std::string::npos);
}

}  // namespace
}  // namespace dd::report

namespace dd::report {
namespace {

TEST(Emit, LaunchMetricsGiveEachRanksLatenessAndTheStraggler) {
  const nlohmann::json doc = {
      {"job", "j\"1"},
      {"attempt", 0},
      {"ranks",
       {{{"pg", "0"},
         {"rank", 0},
         {"signal", "arrival"},
         {"compared", 40},
         {"late_ms", 0.2},
         {"others_wait_share", 0.01}},
        {{"pg", "0"},
         {"rank", 1},
         {"signal", "arrival"},
         {"compared", 40},
         {"late_ms", 250.0},
         {"others_wait_share", 0.98}},
        {{"pg", "0"}, {"rank", 2}, {"signal", "gpu"}, {"compared", 40}, {"late_ms", 3.0}}}},
      {"stragglers", {{{"pg", "0"}, {"rank", 1}, {"signal", "arrival"}}}}};
  const std::string t = launch_metrics(doc, 1700000000);
  EXPECT_NE(t.find("# TYPE distdoctor_launch_rank_lateness_seconds gauge"), std::string::npos) << t;
  EXPECT_NE(
      t.find(
          "distdoctor_launch_rank_lateness_seconds{job=\"j\\\"1\",group=\"0\",rank=\"1\",signal=\"arrival\"} "
          "0.25\n"),
      std::string::npos)
      << t;
  EXPECT_NE(t.find("distdoctor_launch_rank_others_wait_ratio{job=\"j\\\"1\",group=\"0\",rank=\"1\",signal="
                   "\"arrival\"} "
                   "0.98\n"),
            std::string::npos)
      << t;
  EXPECT_NE(
      t.find("distdoctor_launch_straggler{job=\"j\\\"1\",group=\"0\",rank=\"1\",signal=\"arrival\"} 1\n"),
      std::string::npos)
      << t;
  EXPECT_EQ(t.find("distdoctor_launch_rank_others_wait_ratio{job=\"j\\\"1\",group=\"0\",rank=\"2\""),
            std::string::npos)
      << "no share computed: no sample";
  EXPECT_NE(t.find("distdoctor_launch_lateness_timestamp_seconds{job=\"j\\\"1\"} 1700000000"),
            std::string::npos);
}

}  // namespace
}  // namespace dd::report
