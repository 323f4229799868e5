// How a report leaves the process, one way for every command: text (with colour where wanted) or JSON with
// the command's extra members (print_report); for check also the one summary line, the metrics file and the
// exit code the chosen --fail-on gives (emit_check_report). The caller decides colour (report/ reads no
// environment).
#pragma once
#include <ostream>
#include <string>

#include "report/report.h"

namespace dd::report {

// The lowest verdict that makes the exit code non-zero: warn (the default: 1 on warn, 2 on fail) or fail
// (a warning exits 0: for a scheduler's prolog that should drain only broken nodes).
enum class FailOn { warn, fail };

struct EmitOptions {
  bool json = false;
  bool brief = false;    // text: hide ok and info findings
  bool summary = false;  // one line only (summary_line.h)
  bool color = false;
  FailOn fail_on = FailOn::warn;
  std::string metrics_file;  // Prometheus text, written atomically; "" = none (its timestamp: when written)
};

int exit_code_for(Verdict v, FailOn fail_on);

struct PrintOptions {
  bool json = false;
  bool brief = false;    // text: hide ok and info findings
  bool verbose = false;  // text: each finding's details too
  bool color = false;
  nlohmann::json extra = nlohmann::json::object();  // JSON: members set beside (or over) the report's own
};

// Text or JSON of `r` on `out`, flushed.
void print_report(const Report& r, const PrintOptions& o, std::ostream& out);

// Prints `r` to `out` and writes the metrics file. Returns exit_code_for(r's verdict), or kExitCannotRun with
// a message on `err` when the metrics file could not be written (the report is printed all the same).
int emit_check_report(const Report& r, const EmitOptions& o, std::ostream& out, std::ostream& err);

}  // namespace dd::report
