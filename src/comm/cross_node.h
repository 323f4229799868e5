// The cross-node collective pass of `check --nnodes N --collectives`: the leader plans each phase from the
// nodes' facts and the previous phase's measurements (cross_node_plan), every node runs its ranks of the
// phase through run_collectives over the cluster run's own store (cross_node_run). Phases: "verify" (every
// collective once with every element checked, plus a small warm-up sendrecv on every path) and
// "bandwidth" (each path sized and given a deadline from the warm-up's measured speed).
#pragma once
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "comm/run/runner.h"
#include "rendezvous/store.h"
#include "rules/cluster_collectives.h"
#include "rules/cluster_view.h"

namespace dd::comm {

struct CrossNodeSettings {
  std::string engine;    // --engine ("" = rules::choose_engine on every node's facts)
  std::string nccl_lib;  // --nccl-lib
  std::chrono::milliseconds init_timeout{20000};  // --init-timeout: the first communicator's deadline
  std::string store_url, store_token;             // the cluster run's store (workers connect as clients)
};

// The leader's plan of the next phase given what is measured so far (xn.phases); null when the pass is
// over. Fills xn.engine/world/engine_reason on the first call.
nlohmann::json cross_node_plan(const rules::ClusterView& view, rules::CrossNodeView& xn,
                               const CrossNodeSettings& s);

// The deadline the leader gives a phase's results (the phase's own budget plus start-up).
std::chrono::milliseconds cross_node_phase_budget(const nlohmann::json& plan);

// This node's part of a phase: its ranks (the plan entry whose "lead" is self_rank) run through
// run_collectives; node_label ("host(1)") goes into the node's findings.
rules::XnNodeResult cross_node_run(const nlohmann::json& plan, int self_rank, const std::string& node_label,
                                   const CrossNodeSettings& s, const NodeContext& node);

// The leader's answer to a node that fell silent mid-phase: its ranks are marked as gone in the phase's
// exit barrier (the workers' leave-together keys under the phase's prefix), so the other nodes' ranks
// leave at once instead of waiting out the barrier's deadline.
void cross_node_release_ranks(rendezvous::Store& s, const nlohmann::json& plan, int first_rank, int nproc);

}  // namespace dd::comm
