// The Flight Recorder analysis as JSON facts (`logs --json`, a launch report): groups with positions,
// the first mismatch, the frontier, and the culprits with their stacks.
#include "logs/fr/fr_analysis.h"

namespace dd::logs {

namespace {

using nlohmann::json;

json fr_sig_facts(const FrSignature& s) { return {{"op", s.op}, {"sizes", s.sizes}, {"dtypes", s.dtypes}}; }

json fr_group_facts(const FrGroupReport& g) {
  json pos = json::array();
  for (const auto& p : g.positions)
    pos.push_back({{"rank", p.rank}, {"issued", p.issued}, {"completed", p.completed}});
  json j = {{"pg_name", g.pg_name},         {"pg_desc", g.pg_desc},
            {"members", g.members},         {"positions", pos},
            {"no_dump", g.no_dump},         {"frontier", g.frontier},
            {"frontier_op", g.frontier_op}, {"waiting", g.waiting},
            {"behind", g.behind},           {"ahead", g.ahead}};
  if (g.has_mismatch) {
    json sides = json::array();
    for (const auto& s : g.mismatch.sides)
      sides.push_back({{"sig", fr_sig_facts(s.sig)}, {"ranks", s.ranks}});
    j["mismatch"] = {{"seq", g.mismatch.seq},
                     {"kind", g.mismatch.kind},
                     {"sides", sides},
                     {"odd_ranks", g.mismatch.odd_ranks},
                     {"ambiguous", g.mismatch.ambiguous},
                     {"window_start", g.mismatch.window_start}};
  }
  return j;
}

}  // namespace

json fr_analysis_json(const FrAnalysis& a) {
  json groups = json::array(), culprits = json::array();
  for (const auto& g : a.groups) groups.push_back(fr_group_facts(g));
  for (const auto& c : a.culprits) {
    json j = {{"kind", c.kind},
              {"ranks", c.ranks},
              {"pg_name", c.pg_name},
              {"pg_desc", c.pg_desc},
              {"seq", c.seq},
              {"did", fr_sig_facts(c.did)},
              {"expected", fr_sig_facts(c.expected)},
              {"waiting", c.waiting},
              {"detail", c.detail}};
    if (c.has_where)
      j["where"] = {{"pg_name", c.where.pg_name},
                    {"seq", c.where.seq},
                    {"op", c.where.sig.op},
                    {"state", c.where.state},
                    {"frames", c.where.frames}};
    culprits.push_back(std::move(j));
  }
  json stragglers = json::array();
  for (const auto& g : a.stragglers)
    stragglers.push_back({{"rank", g.rank},
                          {"pg_name", g.pg_name},
                          {"node", g.node},
                          {"others", g.others},
                          {"compared", g.compared},
                          {"waited", g.waited},
                          {"last", g.last},
                          {"late_ms", g.late_ms},
                          {"others_late_ms", g.others_late_ms},
                          {"others_wait_share", g.others_wait_share},
                          {"span_s", g.span_s},
                          {"first_seq", g.first_seq},
                          {"last_seq", g.last_seq},
                          {"fail_slow", g.fail_slow},
                          {"on_gpu", g.on_gpu},
                          {"timed", g.timed},
                          {"slow_after_s", g.slow_after_s},
                          {"before_late_ms", g.before_late_ms}});
  return {{"ranks", a.ranks},           {"expected", a.expected}, {"missing", a.missing},
          {"unfinished", a.unfinished}, {"entries", a.entries},   {"versions", a.versions},
          {"errors", a.errors},         {"groups", groups},       {"culprits", culprits},
          {"stragglers", stragglers}};
}

}  // namespace dd::logs
