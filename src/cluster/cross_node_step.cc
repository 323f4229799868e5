// The cross-node step's store protocol (see cross_node_step.h).
#include "cluster/cross_node_step.h"

#include <fmt/format.h>

#include <algorithm>
#include <future>
#include <thread>

#include "common/json_limits.h"
#include "common/safe_text.h"
#include "rendezvous/meeting_keys.h"

namespace dd::cluster {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

// The step's keys (rendezvous/meeting_keys.h), under check's join prefix: dd/xn/plan/P, dd/xn/res/P/R,
// dd/xn/beat/P/R, and dd/xn/P/ for what the phase's workers exchange (the plan's "prefix").
const rendezvous::MeetingKeys kXnKeys{"dd/xn"};
std::string xn_plan_key(int phase) { return kXnKeys.of("plan", phase); }
std::string xn_result_key(int phase, int rank) { return kXnKeys.sub("res").of(std::to_string(phase), rank); }
std::string xn_beat_key(int phase, int rank) { return kXnKeys.sub("beat").of(std::to_string(phase), rank); }
constexpr auto kBeatEvery = 300ms;

// This node's part of a phase in a thread, while this thread (the store's only user) counts a heartbeat,
// so the leader can tell a node that still works from one that stopped.
rules::XnNodeResult run_with_heartbeat(rendezvous::Store& s, const CrossNodeHooks& h,
                                       const nlohmann::json& plan, int phase, int self_rank) {
  auto part = std::async(std::launch::async, [&] { return h.run(plan, h.store_url, h.store_token); });
  while (part.wait_for(kBeatEvery) != std::future_status::ready)
    (void)s.add(xn_beat_key(phase, self_rank), 1, Clock::now() + 2s);
  return part.get();
}

// Reads the results that arrived; returns how many nodes are still missing.
size_t read_results(rendezvous::Store& s, const std::vector<std::string>& keys, rules::XnPhase& ph,
                    Clock::time_point phase_end) {
  auto have = s.check(keys, phase_end);
  size_t missing = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (ph.nodes[i].reported) continue;
    auto v = have && (*have)[i] ? s.get(keys[i], Clock::now() + 2s) : Result<std::string>(Error{});
    if (!v) {
      ++missing;
      continue;
    }
    // A peer's record through parse_record: a wrong shape or a number past int32 (an op's time_us would have
    // to pass 35 minutes) counts as not reported, never as a crash.
    auto r = parse_record<rules::XnNodeResult>(*v);
    if (!r) {
      ++missing;
      continue;
    }
    ph.nodes[i] = std::move(*r);
    ph.nodes[i].reported = true;
  }
  return missing;
}

// A node still beating but silent long after every other node answered and some failed: its ranks are stuck
// mid-collective (a frozen rank: the others timed out waiting for it). Marks it alive, unreported; a missing
// node whose heartbeat stood still stays not alive (it stopped: the cause, the beating ones wait for it).
bool stuck_behind_failures(rules::XnPhase& ph, const CrossNodeHooks& h, Clock::time_point last_arrival,
                           const std::vector<Clock::time_point>& moved) {
  bool failed = false;
  for (const auto& n : ph.nodes) failed = failed || (n.reported && !n.ok);
  if (!failed || Clock::now() - last_arrival < 2 * h.silent_grace) return false;
  for (size_t i = 0; i < ph.nodes.size(); ++i)
    ph.nodes[i].alive = !ph.nodes[i].reported && Clock::now() - moved[i] < h.silent_grace;
  return true;
}

// Gathers every node's result of `phase` while the leader's own part runs. Ends when all arrived, at the
// phase's deadline, or when the leader's part is done and every missing node's heartbeat has stood still
// for silent_grace (it stopped, was killed, or lost the store): those stay reported=false. The ranks of a
// silent or failed node are released from the workers' exit barrier so the other nodes end at once.
void gather_phase(rendezvous::Store& s, const CrossNodeHooks& h, int phase, const rules::ClusterView& view,
                  rules::XnPhase& ph, Clock::time_point phase_end, std::future<rules::XnNodeResult>* mine,
                  size_t self_index, const nlohmann::json& plan) {
  std::vector<std::string> keys;
  for (const auto& n : view.nodes) keys.push_back(xn_result_key(phase, n.lead.rank));
  std::vector<int64_t> beat(keys.size(), -1);
  std::vector<Clock::time_point> moved(keys.size(), Clock::now());
  std::vector<bool> released(keys.size(), false);
  size_t prev_missing = keys.size();
  auto last_arrival = Clock::now();
  for (;;) {
    if (mine->valid() && mine->wait_for(0ms) == std::future_status::ready) {
      ph.nodes[self_index] = mine->get();
      ph.nodes[self_index].reported = true;
    }
    const size_t missing = read_results(s, keys, ph, phase_end);
    if (missing == 0 || Clock::now() >= phase_end) break;
    if (missing < prev_missing) prev_missing = missing, last_arrival = Clock::now();
    bool all_still = true;
    for (size_t i = 0; i < keys.size(); ++i) {
      bool gone = ph.nodes[i].reported && !ph.nodes[i].ok;  // its workers failed and left
      if (!ph.nodes[i].reported && i != self_index) {
        auto b = s.add(xn_beat_key(phase, view.nodes[i].lead.rank), 0, Clock::now() + 2s);
        if (b && *b != beat[i]) beat[i] = *b, moved[i] = Clock::now();
        gone = Clock::now() - moved[i] >= h.silent_grace;
        all_still = all_still && gone;
      }
      if (gone && !released[i] && h.release) h.release(s, plan, ph.nodes[i].first_rank, ph.nodes[i].nproc);
      released[i] = released[i] || gone;
    }
    if (all_still && !mine->valid()) break;
    if (!mine->valid() && stuck_behind_failures(ph, h, last_arrival, moved)) break;
    std::this_thread::sleep_for(100ms);
  }
  if (mine->valid()) {  // the phase's deadline passed first; the part ends on its own deadlines
    ph.nodes[self_index] = mine->get();
    ph.nodes[self_index].reported = true;
  }
}

}  // namespace

rules::CrossNodeView lead_cross_node(rendezvous::Store& s, const CrossNodeHooks& h, int self_rank,
                                     bool self_runs, const rules::ClusterView& view) {
  rules::CrossNodeView xn;
  const auto end = Clock::now() + h.max_budget;
  size_t self_index = 0;
  for (size_t i = 0; i < view.nodes.size(); ++i)
    if (view.nodes[i].lead.rank == self_rank) self_index = i;
  int phase = 0;
  for (;; ++phase) {
    nlohmann::json plan = h.plan(view, xn);
    if (plan.is_null() || Clock::now() >= end) break;
    plan["prefix"] = kXnKeys.sub(std::to_string(phase)).prefix();  // the phase's workers meet under it
    const auto phase_end = std::min(end, Clock::now() + h.budget(plan));
    if (!s.set(xn_plan_key(phase), json_text(plan), phase_end)) break;
    rules::XnPhase ph;
    ph.name = plan.value("phase", "");
    ph.budget_s = std::chrono::duration<double>(h.budget(plan)).count();
    ph.nodes.resize(view.nodes.size());
    for (size_t i = 0; i < ph.nodes.size() && i < plan["nodes"].size();
         ++i) {  // known even if it falls silent
      ph.nodes[i].first_rank = plan["nodes"][i].value("first_rank", 0);
      ph.nodes[i].nproc = plan["nodes"][i].value("nproc", 0);
    }
    std::future<rules::XnNodeResult> mine;
    if (self_runs)
      mine = std::async(std::launch::async, [&] { return h.run(plan, h.store_url, h.store_token); });
    gather_phase(s, h, phase, view, ph, phase_end, &mine, self_index, plan);
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
      plan = dd::parse_json(*v);
    } catch (const std::exception&) {
      return;
    }
    const auto budget = h.budget(plan);
    rules::XnNodeResult res = run_with_heartbeat(s, h, plan, phase, self_rank);
    (void)s.set(xn_result_key(phase, self_rank), json_text(nlohmann::json(res)), Clock::now() + 5s);
    deadline = Clock::now() + budget + 10s;  // the leader may still wait for the slowest node, then plans
  }
}

}  // namespace dd::cluster
