// The cross-node collective step of a cluster run (check --collectives): after the mesh, the leader plans
// each phase and publishes it under dd/xn/plan/P; every node that publishes facts runs its ranks and
// answers under dd/xn/res/P/R; the leader gathers the answers (a node silent past the others is named
// within seconds). The collective work itself comes in through CrossNodeHooks (filled by cli/ from comm/),
// so cluster/ stays independent of the engines.
#pragma once
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "rendezvous/store.h"
#include "rules/cluster_collectives.h"
#include "rules/cluster_view.h"

namespace dd::cluster {

struct CrossNodeHooks {
  // Leader: the next phase's plan from the view and what is measured so far; null when the pass is over.
  std::function<nlohmann::json(const rules::ClusterView&, rules::CrossNodeView&)> plan;
  // How long a phase may take (its communicator and operation deadlines plus start-up).
  std::function<std::chrono::milliseconds(const nlohmann::json& plan)> budget;
  // This node's part of a phase, its workers meeting through the run's store (store_url, store_token).
  std::function<rules::XnNodeResult(const nlohmann::json& plan, const std::string& store_url,
                                    const std::string& store_token)>
      run;
  std::string store_url, store_token;  // filled by the cluster flow once the store is open
  // Leader: a node fell silent; lets the other nodes' ranks stop waiting for its ranks (first, count).
  std::function<void(rendezvous::Store&, const nlohmann::json& plan, int first_rank, int nproc)> release;
  // The whole pass at most: the run's deadline is extended by this much when the pass is asked for.
  std::chrono::milliseconds max_budget{120000};
  // How long a node that has not answered may show no heartbeat before the leader names it silent.
  std::chrono::milliseconds silent_grace{3000};
};

// Leader side: runs every phase, returns what each node measured (reported=false: the node fell silent).
rules::CrossNodeView lead_cross_node(rendezvous::Store& s, const CrossNodeHooks& h, int self_rank,
                                     bool self_runs, const rules::ClusterView& view);

// Node side: runs every phase the leader publishes until it publishes the end (or goes silent).
void follow_cross_node(rendezvous::Store& s, const CrossNodeHooks& h, int self_rank,
                       std::chrono::steady_clock::time_point first_plan_deadline);

}  // namespace dd::cluster
