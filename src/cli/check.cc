// `distdoctor check`: collect this node's facts (or load them with --facts), run the rules, render the report.
#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "cluster/cluster_check.h"
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
  cluster::ClusterArgs cluster;  // multi-node flags; the flow lives in src/cluster/
  bool local_only = false;
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
  auto& c = a->cluster;
  sub.add_option("--nnodes", c.nnodes, "Nodes in the job: check all of them together (run on every node)")
      ->check(CLI::Range(1, 1 << 20));
  sub.add_option("--node-rank", c.node_rank, "This node's rank, 0 .. nnodes-1 (0 runs the store)")
      ->check(CLI::Range(0, 1 << 20));
  sub.add_option("--master", c.master, "Where the nodes meet: HOST:PORT (node rank 0's) or etcd://HOST:PORT");
  sub.add_option("--token", c.token, "Job token (else --token-file or DISTDOCTOR_TOKEN)");
  sub.add_option("--token-file", c.token_file, "Read the job token from this file");
  sub.add_option("--timeout", c.timeout_s, "Seconds for the whole cluster run (default 60)")
      ->check(CLI::Range(1.0, 86400.0));
  sub.add_flag("--mesh-bandwidth", c.mesh_bandwidth, "Also measure TCP bandwidth between every pair of nodes");
  sub.add_flag("--local", a->local_only, "Check this node only, even under a launcher (srun, mpirun, torchrun)");
  return [a]() -> int {
    auto env = cluster::current_env();
    if (a->facts_file.empty() && !a->local_only &&
        cluster::cluster_requested(a->cluster, cluster::detect_launcher(env)))
      return cluster::run_cluster_check(a->cluster, {a->json, a->quiet_ok, a->nccl_lib, a->nproc_per_node}, env);
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
