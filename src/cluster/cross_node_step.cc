// The cross-node step's store protocol (see cross_node_step.h).
#include "cluster/cross_node_step.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

namespace dd::cluster {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

std::string xn_plan_key(int phase) { return fmt::format("dd/xn/plan/{}", phase); }
std::string xn_result_key(int phase, int rank) { return fmt::format("dd/xn/res/{}/{}", phase, rank); }

// Waits for every node's result of `phase`, until all arrived, the phase's deadline, or `grace` after the
// last arrival once the leader's own part is done (the others finish the same collectives at the same time;
// a node that is still silent then has stopped or lost its connection).
void gather_phase(rendezvous::Store& s, const CrossNodeHooks& h, int phase, const rules::ClusterView& view,
                  rules::XnPhase& ph, Clock::time_point phase_end) {
  std::vector<std::string> keys;
  for (const auto& n : view.nodes) keys.push_back(xn_result_key(phase, n.lead.rank));
  auto last_arrival = Clock::now();
  for (;;) {
    auto have = s.check(keys, phase_end);
    if (!have) return;
    size_t missing = 0;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (ph.nodes[i].reported) continue;
      if (!(*have)[i]) {
        ++missing;
        continue;
      }
      auto v = s.get(keys[i], Clock::now() + 2s);
      if (!v) continue;
      try {
        ph.nodes[i] = nlohmann::json::parse(*v).get<rules::XnNodeResult>();
        ph.nodes[i].reported = true;
      } catch (const std::exception&) {
      }
      last_arrival = Clock::now();
    }
    if (missing == 0 || Clock::now() >= phase_end || Clock::now() - last_arrival >= h.silent_grace) return;
    std::this_thread::sleep_for(50ms);
  }
}

}  // namespace

rules::CrossNodeView lead_cross_node(rendezvous::Store& s, const CrossNodeHooks& h, int self_rank,
                                     bool self_runs, const rules::ClusterView& view) {
  rules::CrossNodeView xn;
  const auto end = Clock::now() + h.max_budget;
  int phase = 0;
  for (;; ++phase) {
    nlohmann::json plan = h.plan(view, xn);
    if (plan.is_null() || Clock::now() >= end) break;
    const auto phase_end = std::min(end, Clock::now() + h.budget(plan));
    if (!s.set(xn_plan_key(phase), plan.dump(), phase_end)) break;
    rules::XnPhase ph;
    ph.name = plan.value("phase", "");
    ph.budget_s = std::chrono::duration<double>(h.budget(plan)).count();
    ph.nodes.resize(view.nodes.size());
    for (size_t i = 0; i < ph.nodes.size() && i < plan["nodes"].size();
         ++i) {  // known even if it falls silent
      ph.nodes[i].first_rank = plan["nodes"][i].value("first_rank", 0);
      ph.nodes[i].nproc = plan["nodes"][i].value("nproc", 0);
    }
    if (self_runs)
      (void)s.set(xn_result_key(phase, self_rank),
                  nlohmann::json(h.run(plan, h.store_url, h.store_token)).dump(), phase_end);
    gather_phase(s, h, phase, view, ph, phase_end);
    xn.phases.push_back(std::move(ph));
    bool all = std::all_of(xn.phases.back().nodes.begin(), xn.phases.back().nodes.end(),
                           [](const rules::XnNodeResult& n) { return n.reported; });
    if (!all) break;
  }
  (void)s.set(xn_plan_key(phase + (xn.phases.size() > size_t(phase) ? 1 : 0)), "null", Clock::now() + 3s);
  return xn;
}

void follow_cross_node(rendezvous::Store& s, const CrossNodeHooks& h, int self_rank,
                       Clock::time_point first_plan_deadline) {
  auto deadline = first_plan_deadline;
  for (int phase = 0;; ++phase) {
    auto v = s.get(xn_plan_key(phase), deadline);
    if (!v || *v == "null") return;
    nlohmann::json plan;
    try {
      plan = nlohmann::json::parse(*v);
    } catch (const std::exception&) {
      return;
    }
    const auto budget = h.budget(plan);
    rules::XnNodeResult res = h.run(plan, h.store_url, h.store_token);
    (void)s.set(xn_result_key(phase, self_rank), nlohmann::json(res).dump(), Clock::now() + 5s);
    deadline = Clock::now() + budget + 10s;  // the leader may still wait for the slowest node, then plans
  }
}

}  // namespace dd::cluster
