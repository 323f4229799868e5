// --timing on a real Gloo run: every phase of the supervisor and the workers is there, none negative, and
// together they fit in the run's total; the check pass carries them in its JSON measurements.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "comm/check_pass.h"
#include "comm/run/test_node.h"

namespace dd::comm {

TEST(RunTimingGloo, PhasesCoverTheRun) {
  CheckPassOptions co;
  co.engine = rules::EngineKind::gloo;
  co.nproc = 2;
  co.self_exe = DD_BINARY;
  co.bandwidth_bytes = 1 << 20;
  CheckPassResult res = run_check_pass_measured(co, testing::bare_node());
  const RunTiming& t = res.timing;
  ASSERT_GT(t.total_s, 0);
  std::set<std::string> names;
  double top_level = 0;
  for (const auto& p : t.phases) {
    names.insert(p.name);
    EXPECT_GE(p.seconds, 0) << p.name;
    if (p.depth == 0) top_level += p.seconds;
  }
  for (const char* want : {"worker process start (exec, libraries, plan, store)",
                           "engine init (library, CUDA, communicator)", "Gloo connect (full mesh)",
                           "the collectives (with data checks)", "exit barrier (ranks leave together)"})
    EXPECT_TRUE(names.count(want)) << want;
  // Measured when the workers were reaped with their last event; else not waited for (runner.cc).
  EXPECT_TRUE(names.count("process exit (CUDA/NCCL teardown by the OS)") ||
              names.count("process exit (after the report: not waited for)"));
  EXPECT_LE(top_level, t.total_s + 1e-3);
  EXPECT_GT(top_level, 0.5 * t.total_s);  // the phases account for most of the run
  const auto& j = res.measurements["timing"];
  EXPECT_EQ(j["phases"].size(), t.phases.size());
  std::ostringstream text;
  print_timing(t, text);
  EXPECT_NE(text.str().find("Gloo connect"), std::string::npos);
}

}  // namespace dd::comm
