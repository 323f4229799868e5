// Fuzz target: the facts JSON reader (what `check --facts FILE` does with a file, and what a cluster leader
// does with the facts another node published) on arbitrary bytes, then everything that reads facts: the node
// rules, the cluster rules (this node beside a second one), the `facts` summary and both report renderers.
// Checks: no crash; facts that load write back to JSON that loads to the same facts; every finding id is
// documented; the JSON report is valid JSON; text output holds no raw control byte.
#include "probe/facts_json.h"

#include <cstddef>
#include <cstdint>
#include <set>
#include <sstream>
#include <string>

#include "common/safe_text.h"
#include "probe/facts.h"
#include "probe/facts_summary.h"
#include "report/report.h"
#include "rules/cluster_rule.h"
#include "rules/rule.h"

using namespace dd;

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

// As `check --facts` and the cluster leader read facts (probe/facts_json.h).
bool load(const std::string& text, probe::NodeFacts& facts) {
  auto loaded = probe::facts_from_text(text);
  if (loaded) facts = std::move(*loaded);
  return loaded.ok();
}

void check_text(const std::string& s) {
  for (unsigned char c : s) check(c >= 0x20 || c == '\n');
}

void check_report(report::Report& r, const std::set<std::string>& ids) {
  for (const auto& f : r.findings) check(ids.count(f.id) > 0);
  check(nlohmann::json::accept(json_text(report::render_json(r), 2)));
  std::ostringstream text;
  report::render_text(r, text, {});
  check_text(text.str());
}

rules::ClusterView two_nodes(const probe::NodeFacts& f) {
  rules::ClusterView v;
  v.expected_world = 2;
  for (int i = 0; i < 2; i++) {
    rules::Member m;
    m.rank = m.node_rank = i;
    m.hostname = i == 0 ? f.host.hostname : "node-b";
    m.has_facts = true;
    v.members.push_back(m);
    rules::ClusterNode n;
    n.node_rank = i;
    n.hostname = m.hostname;
    n.ranks = {i};
    n.lead = m;
    n.facts = i == 0 ? f : probe::NodeFacts{};
    n.has_facts = true;
    v.nodes.push_back(n);
  }
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  probe::NodeFacts facts;
  if (!load(std::string(reinterpret_cast<const char*>(data), size), facts)) return 0;
  // Round trip: what loaded writes back as JSON that loads to the same facts.
  nlohmann::json once = facts;
  probe::NodeFacts again;
  check(load(json_text(once), again));
  check(nlohmann::json(again) == once);

  static const std::set<std::string> ids = [] {
    std::set<std::string> s;
    for (const auto& d : rules::all_rule_docs()) s.insert(d.id);
    return s;
  }();
  report::Report node;
  node.findings = rules::run_node_rules(facts, {});
  node.facts = once;
  check_report(node, ids);
  report::Report cluster;
  cluster.findings = rules::run_cluster_rules(two_nodes(facts));
  check_report(cluster, ids);
  std::ostringstream summary;
  probe::print_facts_summary(facts, summary);
  check_text(summary.str());
  return 0;
}
