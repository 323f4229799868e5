// progress_printer: prints what the lower layers report (see progress_printer.h).
#include "cli/progress_printer.h"

#include <iostream>
#include <utility>

#include "common/redact.h"

namespace dd::cli {

std::string progress_text(const std::string& command, const ProgressLine& line) {
  std::string s = "distdoctor";
  if (!command.empty()) s += " " + command;
  s += ": ";
  if (line.kind == ProgressKind::warning) s += "warning: ";
  return s + shown(line.text) + "\n";
}

ProgressSink progress_printer_to(std::ostream& out, std::string command, std::function<void()> before_line) {
  return [&out, command = std::move(command), before = std::move(before_line)](const ProgressLine& line) {
    if (before) before();
    out << progress_text(command, line) << std::flush;
  };
}

ProgressSink progress_printer(std::string command, std::function<void()> before_line) {
  return progress_printer_to(std::cerr, std::move(command), std::move(before_line));
}

}  // namespace dd::cli
