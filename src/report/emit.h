// How a report leaves the process, one way for every command: text (with colour where wanted) or JSON with
// the command's extra members (print_report); for check also the one summary line, the metrics file and the
// exit code the chosen --fail-on gives (emit_check_report). The caller decides colour (report/ reads no
// environment) and how a file is written (report/ touches no file: cli/ gives it probe::Fs's atomic write).
#pragma once
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "common/result.h"
#include "report/report.h"

namespace dd::report {

// The lowest verdict that makes the exit code non-zero: warn (the default: 1 on warn, 2 on fail) or fail
// (a warning exits 0: for a scheduler's prolog that should drain only broken nodes).
enum class FailOn { warn, fail };

// The members every command's --json starts with (docs/json.md), whatever else the command adds.
inline constexpr int kJsonSchema = 1;  // raised when a common member changes meaning or goes away
struct Envelope {
  std::string command;  // "check", "bench", "launch", "logs", "explain"
  std::string node;     // the host name of the machine the command ran on
  int exit_code = -1;   // the code the process exits with; -1: the report's own (Report::exit_code)
};

// Writes a whole file so that a reader sees the old content or the new (probe::Fs::write_atomically).
using FileWriter = std::function<Status(const std::string& path, std::string_view content)>;

struct EmitOptions {
  bool json = false;
  bool brief = false;    // text: hide ok and info findings
  bool summary = false;  // one line only (summary_line.h)
  bool color = false;
  FailOn fail_on = FailOn::warn;
  std::string metrics_file;  // Prometheus text, written atomically; "" = none (its timestamp: when written)
  FileWriter write_file;     // writes metrics_file
  Envelope envelope;         // JSON: its exit_code is set here, from the verdict, --fail-on and the metrics
};

int exit_code_for(Verdict v, FailOn fail_on);

struct PrintOptions {
  bool json = false;
  bool brief = false;    // text: hide ok and info findings
  bool verbose = false;  // text: each finding's details too
  bool color = false;
  bool verdict_line = true;  // text: the closing "verdict: ..." line (off for warnings shown on the way)
  Envelope envelope;         // JSON: the common members
  nlohmann::json extra = nlohmann::json::object();  // JSON: members set beside (or over) the report's own
};

// {schema, version, command, verdict, exit_code, node, findings, facts} and the report's notes and
// measurements where it has them: the JSON every command prints (its own payload goes beside).
nlohmann::json envelope_json(const Report& r, const Envelope& e);

// Text or JSON of `r` on `out`, flushed.
void print_report(const Report& r, const PrintOptions& o, std::ostream& out);

// Prints `r` to `out` and writes the metrics file. Returns exit_code_for(r's verdict), or kExitCannotRun with
// a message on `err` when the metrics file could not be written (the report is printed all the same).
int emit_check_report(const Report& r, const EmitOptions& o, std::ostream& out, std::ostream& err);

}  // namespace dd::report
