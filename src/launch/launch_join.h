// Meeting the other node agents of a launch: open the store (in memory for one node; the embedded TCP store
// or etcd otherwise), print on the first node the command to paste on the others, claim the node rank,
// publish this node's hello and wait for every node with a live "waiting for nodes: 1/2 joined (missing: rank
// 1)".
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/session.h"
#include "common/progress_sink.h"
#include "launch/clock_offsets.h"
#include "launch/job_settings.h"
#include "launch/launch_args.h"
#include "probe/self_probe.h"
#include "rendezvous/open_store.h"
#include "report/finding.h"

namespace dd::launch {

struct JoinedNodes {
  std::shared_ptr<rendezvous::Store> store;
  std::shared_ptr<rendezvous::TcpStoreServer> server;  // node rank 0 of a TCP store: keeps it serving
  std::string store_url;                               // where the nodes met (etcd prefix included)
  cluster::TokenChoice token;
  int node_rank = 0, nnodes = 1;
  JobSettings job;               // node rank 0's settings, adopted by every node
  std::vector<NodeHello> nodes;  // by node rank
  std::vector<std::string> notes;
  std::vector<ClockOffset> clocks;  // by node rank, against node rank 0's (clock_offsets.h); empty: one node
  std::optional<report::Finding> failure;  // the join failed: this finding says why (the rest is unset)
};

struct JoinInput {
  const LaunchArgs& args;
  const cluster::ClusterPlan& plan;
  const probe::NodeFacts& facts;
  const probe::SelfProcess& self;
  NodeHello me;            // this node (node rank, host, address, nproc, gpu ids, env)
  JobSettings wanted;      // what this node would set if it is node rank 0
  ProgressSink progress;   // "waiting for nodes: 1/2 joined (missing: rank 1)", the token's warnings
  ProgressSink store_log;  // the embedded store's log when this node serves it
  // Node rank 0 of a job started by hand: the commands for the other nodes, shown as they are (the job
  // token may be in them).
  std::function<void(const std::string&)> show_commands;
  bool commands_on_terminal = false;  // show_commands writes to a terminal: a generated token may be in them
};

JoinedNodes join_nodes(const JoinInput& in);

// The command the first node prints for the others: token through the environment (never in argv), the
// options that are per node, the user's command shell-quoted. node_rank < 0 prints "R".
std::string paste_command(const JoinInput& in, const std::string& master, const std::string& token,
                          int node_rank);

// Single-quotes a word for a POSIX shell when it needs it.
std::string shell_quote(const std::string& word);

}  // namespace dd::launch
