// The join protocol of a cluster run over any Store: claim a rank, publish identity (+ node facts), wait for
// everyone under one deadline (the meeting steps of rendezvous/meeting_*.h, keys under cfg.keys), run the TCP
// mesh, and let the leader (first claimer of rank 0) publish one verdict that every process prints. Passing
// the deadline, a lost master or a refused token end as findings.
#pragma once
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "cluster/cross_node_step.h"
#include "cluster/view.h"
#include "common/progress_sink.h"
#include "rendezvous/meeting_keys.h"
#include "rendezvous/store.h"
#include "report/rank_ranges.h"
#include "report/report.h"

namespace dd::cluster {
using report::rank_ranges;  // the one compressor (report/rank_ranges.h), named in the join's messages

struct JoinConfig {
  rendezvous::MeetingKeys keys{"dd/"};       // where the run's keys live (launch's preflight: its own prefix)
  int world = 0;                             // processes expected (by hand: nodes)
  bool by_hand = true;                       // ranks are nodes
  Member self;                               // rank, identity, mesh endpoints
  std::string facts_json;                    // this node's NodeFacts when self.has_facts
  std::chrono::milliseconds timeout{60000};  // the whole run
  std::string timeout_flag =
      "--deadline";  // the flag that sets it, named in findings (launch: --join-timeout)
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  uint64_t job_tag = 0;        // mesh handshake tag (not secret)
  size_t bandwidth_bytes = 0;  // --mesh-bandwidth
  std::chrono::milliseconds mesh_connect_timeout{2000};
  std::vector<std::string> expected_hosts;  // by node rank, when known (Slurm node list)
  std::vector<std::string> notes;           // context lines for the report (leader's go into the verdict)
  std::string master_desc;                  // "198.18.0.1:29500" for findings
  int nproc_per_node = 0;                   // by hand: check's --nproc-per-node, for the node rules (0: none)
  bool cleanup = false;                     // leader removes the run's keys at the end (shared stores: etcd)
  ProgressSink progress;                    // the leader's "waiting for ..." lines (empty: none)
  const CrossNodeHooks* cross_node = nullptr;  // --collectives: the cross-node pass after the mesh
};

struct JoinOutcome {
  report::Report report;  // what this process prints
  bool leader = false;
  nlohmann::json full;  // leader: the full JSON (facts of every node, members, mesh)
};

// Runs the protocol; never blocks past cfg.start + cfg.timeout (+ a few seconds of grace for non-leaders).
JoinOutcome run_join(rendezvous::Store& store, const JoinConfig& cfg);

// Leader side analysis: node rules on every node's facts plus the cluster rules; exposed for tests.
report::Report analyze_cluster(const ClusterView& view, const JoinConfig& cfg);

}  // namespace dd::cluster
