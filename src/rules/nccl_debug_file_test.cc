// Tests of the NCCL_DEBUG_FILE rule on facts: one file for every process, a '~', and the cases NCCL never
// opens the file (no NCCL_DEBUG above VERSION) or each process has its own (%p).
#include <gtest/gtest.h>

#include "rules/node_rules.h"
#include "rules/test_facts.h"

namespace dd::rules {
namespace {

using namespace testing;

probe::NodeFacts debug_file_facts(const std::string& file, const std::string& level = "INFO") {
  probe::NodeFacts f;
  set_nccl(f, "NCCL_DEBUG_FILE", file);
  if (!level.empty()) set_nccl(f, "NCCL_DEBUG", level);
  return f;
}

TEST(NcclDebugFile, NoPidInTheNameIsOneFileForEveryProcess) {
  auto v = run(nccl_debug_file_rule(), debug_file_facts("/tmp/nccl.log"));
  ASSERT_TRUE(has(v, "nccl.debug_file.shared"));
  EXPECT_EQ(find(v, "nccl.debug_file.shared")->severity, report::Severity::warn);
  EXPECT_NE(find(v, "nccl.debug_file.shared")->fix.find("/tmp/nccl.log.%h.%p"), std::string::npos);
  EXPECT_FALSE(has(v, "nccl.debug_file.tilde"));
}

TEST(NcclDebugFile, ATildeIsNotExpanded) {
  auto v = run(nccl_debug_file_rule(), debug_file_facts("~/logs/nccl.%h.%p.log", "warn"));
  ASSERT_TRUE(has(v, "nccl.debug_file.tilde"));
  EXPECT_FALSE(has(v, "nccl.debug_file.shared"));
}

TEST(NcclDebugFile, NothingWhenNcclWritesNoFileOrEachProcessHasItsOwn) {
  EXPECT_TRUE(run(nccl_debug_file_rule(), debug_file_facts("/tmp/nccl.%h.%p.log")).empty());
  EXPECT_TRUE(
      run(nccl_debug_file_rule(), debug_file_facts("/tmp/nccl.log", "")).empty());  // NCCL_DEBUG unset
  EXPECT_TRUE(run(nccl_debug_file_rule(), debug_file_facts("/tmp/nccl.log", "VERSION"))
                  .empty());  // no file at VERSION
  EXPECT_TRUE(run(nccl_debug_file_rule(), debug_file_facts("/tmp/nccl.log"), {.nproc_per_node = 1}).empty());
  EXPECT_TRUE(run(nccl_debug_file_rule(), probe::NodeFacts{}).empty());
}

}  // namespace
}  // namespace dd::rules
