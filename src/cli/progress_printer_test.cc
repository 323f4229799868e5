// Tests of progress_printer: the prefix, the warning word, secrets hidden, the hook run before each line.
#include "cli/progress_printer.h"

#include <gtest/gtest.h>

#include <sstream>

namespace dd::cli {
namespace {

TEST(ProgressPrinter, PrefixesTheCommandAndMarksWarnings) {
  std::ostringstream out;
  int before = 0;
  ProgressSink sink = progress_printer_to(out, "launch", [&] { ++before; });
  say(sink, ProgressKind::progress, "waiting for nodes: 1/2 joined");
  say(sink, ProgressKind::warning, "NCCL_DEBUG differs between ranks");
  EXPECT_EQ(out.str(),
            "distdoctor launch: waiting for nodes: 1/2 joined\n"
            "distdoctor launch: warning: NCCL_DEBUG differs between ranks\n");
  EXPECT_EQ(before, 2);
}

TEST(ProgressPrinter, NoCommandWordAndAnEmptySinkDropsTheLine) {
  EXPECT_EQ(progress_text("", {ProgressKind::progress, "store: listening"}),
            "distdoctor: store: listening\n");
  EXPECT_EQ(progress_text("check", {ProgressKind::warning, "x"}), "distdoctor check: warning: x\n");
  ProgressSink none;
  say(none, ProgressKind::warning, "dropped");  // no sink: nothing happens, no crash
}

}  // namespace
}  // namespace dd::cli
