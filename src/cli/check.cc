// `distdoctor check`: collect this node's facts (or load them with --facts), run the rules, render the report.
#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "probe/collect.h"
#include "report/report.h"
#include "rules/rule.h"

namespace dd::cli {

namespace {
struct CheckArgs {
  std::string facts_file;
  std::string nccl_lib;
  bool json = false;
  bool quiet_ok = false;
  int nproc_per_node = 0;
};
}  // namespace

Runner setup_check(CLI::App& sub) {
  auto a = std::make_shared<CheckArgs>();
  sub.add_option("--facts", a->facts_file, "Run the rules on recorded facts (from `distdoctor facts --json`)");
  sub.add_option("--nccl-lib", a->nccl_lib, "Also inspect this libnccl.so (the one your framework loads)");
  sub.add_option("--nproc-per-node", a->nproc_per_node, "Processes the job starts on this node")
      ->check(CLI::Range(1, 4096));
  sub.add_flag("--json", a->json, "Print the report as JSON");
  sub.add_flag("--brief", a->quiet_ok, "Hide ok and info findings in the text report");
  return [a]() -> int {
    probe::NodeFacts facts;
    if (!a->facts_file.empty()) {
      std::ifstream in(a->facts_file);
      if (!in) {
        std::cerr << "distdoctor check: cannot read " << a->facts_file << "\n";
        return report::kExitCannotRun;
      }
      try {
        auto j = nlohmann::json::parse(in);
        // Accept either a bare NodeFacts or a whole report with a "facts" member.
        facts = (j.contains("facts") ? j["facts"] : j).get<probe::NodeFacts>();
      } catch (const std::exception& e) {
        std::cerr << "distdoctor check: " << a->facts_file << " is not a facts file: " << e.what() << "\n";
        return report::kExitCannotRun;
      }
    } else {
      probe::ProbeOptions po;
      po.nccl_lib = a->nccl_lib;
      facts = probe::collect_node_facts(po);
    }
    rules::CheckOptions co;
    co.nproc_per_node = a->nproc_per_node;
    report::Report r;
    r.title = "distdoctor check — node " + facts.host.hostname;
    r.findings = rules::run_node_rules(facts, co);
    r.facts = facts;
    if (a->json) {
      std::cout << report::render_json(r).dump(2) << "\n";
    } else {
      report::TextOptions to;
      to.color = report::want_color(1);
      to.show_ok = to.show_info = !a->quiet_ok;
      report::render_text(r, std::cout, to);
    }
    std::cout.flush();
    return r.exit_code();
  };
}

}  // namespace dd::cli
