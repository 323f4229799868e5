// distdoctor entry point: parses the command line with CLI11 and runs the chosen subcommand.
#include <exception>
#include <iostream>

#include "cli/command.h"
#include "report/report.h"

int main(int argc, char** argv) {
  CLI::App app{"distdoctor: finds why a distributed GPU job will not start, hangs, or runs slow"};
  app.set_version_flag("--version", std::string("distdoctor ") + DD_VERSION);
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, dd::cli::Runner>> runners;
  for (const auto& c : dd::cli::commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    runners.emplace_back(sub, c.setup(*sub));
  }
  try {
    app.parse(dd::cli::split_trailing_command(argc, argv), argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    // Help and version are successes; a bad command line is "could not run".
    return rc == 0 ? 0 : dd::report::kExitCannotRun;
  }
  try {
    for (auto& [sub, run] : runners)
      if (sub->parsed()) return run();
  } catch (const std::exception& e) {
    std::cerr << "distdoctor: internal error: " << e.what() << "\n";
    return dd::report::kExitCannotRun;
  }
  return dd::report::kExitCannotRun;
}
