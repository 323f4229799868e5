// Report: the findings of one run, its verdict and exit code, and the two renderers (text, JSON).
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "report/finding.h"

namespace dd::report {

enum class Verdict { pass, warn, fail };

// Exit codes every subcommand uses.
inline constexpr int kExitPass = 0;
inline constexpr int kExitWarn = 1;
inline constexpr int kExitFail = 2;
inline constexpr int kExitCannotRun = 3;

struct Report {
  std::string title;  // "distdoctor check", shown at the top of the text report
  std::vector<Finding> findings;
  nlohmann::json facts;            // facts the findings came from (may be null)
  std::vector<std::string> notes;  // context lines for the header (sources of values, deadlines)
  nlohmann::json measurements;     // numbers a run measured (check --collectives); null = none

  void add(Finding f) { findings.push_back(std::move(f)); }
  Verdict verdict() const;
  int exit_code() const;
};

const char* verdict_name(Verdict v);

struct TextOptions {
  bool color = false;
  bool show_ok = true;  // list ok findings too
  bool show_info = true;
  bool verbose = false;      // also each finding's details
  bool verdict_line = true;  // the closing "verdict: ..." line
};

// True when colour should be used for this stream: a terminal, NO_COLOR not set and TERM not "dumb". The
// caller passes the two settings (probe::tool_env().no_color and .term): report/ reads no environment.
bool want_color(int fd, bool no_color, const std::string& term);

void render_text(const Report& r, std::ostream& out, const TextOptions& opt);
nlohmann::json render_json(const Report& r);

}  // namespace dd::report
