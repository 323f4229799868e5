// distdoctor entry point: parses the command line with CLI11 and runs the chosen subcommand.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>

#include "build_commit.h"  // generated: DD_COMMIT
#include "cli/command.h"
#include "cli/flag_values.h"
#include "cli/usage_hints.h"
#include "comm/engine/engine.h"
#include "common/redact.h"
#include "probe/env_probe.h"
#include "report/report.h"

namespace {

// Output that could not be written (a full disk, /dev/full) is an error, not a verdict: the report is lost or
// cut, so the exit code must not say it was delivered.
int finish_output(int rc) {
  errno = 0;
  std::cout.flush();
  const int cout_errno = errno;
  const bool lost = std::cout.fail() || std::fflush(stdout) != 0 || std::ferror(stdout);
  if (!lost) return rc;
  const int e = cout_errno ? cout_errno : errno;
  std::cerr << "distdoctor: could not write the output" << (e ? std::string(": ") + std::strerror(e) : "")
            << "\n";
  return dd::report::kExitCannotRun;
}

}  // namespace

namespace dd::cli {

// "distdoctor 0.1.0 (commit 5c8c7550e66d; engines: nccl, gloo)": the engines say what a build can run (a
// portable build without Gloo has no CPU collectives).
std::string version_line() {
  std::string engines;
  if (comm::nccl_engine_built()) engines += "nccl";
  if (comm::gloo_engine_built()) engines += engines.empty() ? "gloo" : ", gloo";
  return std::string("distdoctor ") + DD_VERSION + " (commit " + DD_COMMIT +
         "; engines: " + (engines.empty() ? "none" : engines) + ")";
}

}  // namespace dd::cli

int main(int argc, char** argv) {
  dd::add_secret_values(dd::probe::read_environment());  // hidden by value in every output from here on
  CLI::App app{"distdoctor: finds why a distributed GPU job will not start, hangs, or runs slow"};
  app.name(
      "distdoctor");  // the help says "distdoctor", however it was started (the man page is made from it)
  app.set_version_flag("--version", dd::cli::version_line());
  app.require_subcommand(1);
  app.formatter(dd::cli::help_formatter());  // before the subcommands, which take it from here
  std::vector<std::pair<CLI::App*, dd::cli::Runner>> runners;
  for (const auto& c : dd::cli::commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    runners.emplace_back(sub, c.setup(*sub));
  }
  const int parsed_argc = dd::cli::split_trailing_command(argc, argv);
  try {
    app.parse(parsed_argc, argv);
  } catch (const CLI::ParseError& e) {
    // Words it did not expect, or no command it knows: say what was probably meant (usage_hints.h).
    if (dynamic_cast<const CLI::ExtrasError*>(&e) || dynamic_cast<const CLI::RequiredError*>(&e)) {
      const std::string hint =
          dd::cli::usage_hint(app, {argv + 1, argv + parsed_argc}, dd::cli::trailing_command());
      if (!hint.empty()) {
        std::cerr << hint;
        return dd::report::kExitCannotRun;
      }
    }
    int rc = app.exit(e);
    // Help and version are successes; a bad command line is "could not run".
    return rc == 0 ? 0 : dd::report::kExitCannotRun;
  }
  try {
    for (auto& [sub, run] : runners)
      if (sub->parsed()) return finish_output(run());
  } catch (const std::exception& e) {
    std::cerr << "distdoctor: internal error: " << e.what() << "\n";
    return dd::report::kExitCannotRun;
  }
  return dd::report::kExitCannotRun;
}
