// The ProgressSink (common/progress_sink.h) a command gives the layers below it: each line to stderr as
// "distdoctor CMD: text" ("distdoctor CMD: warning: text"), secrets hidden, flushed at once; `before_line`
// runs first (launch erases its live status line there).
#pragma once
#include <functional>
#include <ostream>
#include <string>

#include "common/progress_sink.h"

namespace dd::cli {

// The line as printed, with its newline: "distdoctor launch: warning: NCCL_DEBUG differs\n".
std::string progress_text(const std::string& command, const ProgressLine& line);

// A sink printing to `out` (stderr by default); `command` is the word after "distdoctor" ("launch", "check").
ProgressSink progress_printer(std::string command, std::function<void()> before_line = {});
ProgressSink progress_printer_to(std::ostream& out, std::string command,
                                 std::function<void()> before_line = {});

}  // namespace dd::cli
