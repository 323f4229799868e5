// Records and lookups shared by the launch report tests (failure_report_test.cc,
// failure_report_outcomes_test.cc, hang_report_test.cc): a rank record, a two-node attempt whose rank 2
// failed first, a finding by id, a finding's evidence as one text.
#pragma once
#include <string>

#include "launch/failure_report.h"

namespace dd::launch {

inline RankRecord rank_rec(int rank, int local, int node) {
  RankRecord r;
  r.rank = rank, r.local_rank = local, r.node_rank = node;
  r.pid = 1000 + rank;
  r.exit_code = 0;
  r.end_s = 5;
  r.log_path = "logs/j/0/" + std::to_string(node) + "." + std::to_string(rank) + ".log";
  return r;
}

// Two nodes of 4 workers; rank 2 (node 0) exits 7 first, rank 5 dies on its own, the rest are stopped.
inline AttemptRecord failed_attempt() {
  AttemptRecord a;
  a.command = {"python", "train.py", "--hf-token", "hf_secret", "--lr", "0.1"};
  a.duration_s = 3.1;
  a.stop_latency_s = 0.12;
  for (int n = 0; n < 2; ++n) {
    NodeRecord node;
    node.node_rank = n;
    node.host = n == 0 ? "gpu-a" : "gpu-b";
    for (int l = 0; l < 4; ++l) {
      RankRecord r = rank_rec(n * 4 + l, l, n);
      r.stopped_by_us = true;
      r.signal = 15;
      node.ranks.push_back(r);
    }
    node.env = {{"PATH", "/usr/bin"}, {"NCCL_SOCKET_IFNAME", n == 0 ? "eth0" : "ens3"}};
    a.nodes.push_back(node);
  }
  a.nodes[1].env["NCCL_DEBUG"] = "INFO";
  RankRecord& root = a.nodes[0].ranks[2];
  root.stopped_by_us = false, root.signal = 0, root.exit_code = 7, root.end_s = 3.0, root.end_wall_ms = 10000;
  root.tail = {"step 1 loss 2.0",
               "Traceback (most recent call last):", "  File \"train.py\", line 9, in <module>",
               "ValueError: bad shape"};
  root.traceback =
      "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\nValueError: bad shape";
  RankRecord& also = a.nodes[1].ranks[1];  // rank 5
  also.stopped_by_us = false, also.signal = 0, also.exit_code = 1, also.end_wall_ms = 10300;
  a.stop.cause = StopCause::worker_failed;
  a.stop.rank = 2;
  a.stop.node_rank = 0;
  a.stop.root = root;
  return a;
}

inline const report::Finding* find_id(const report::Report& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}
// The pointer would outlive a temporary report (ASan: heap-use-after-free): keep the report in a variable.
const report::Finding* find_id(report::Report&& r, const std::string& id) = delete;

// The evidence, then the details (what --verbose adds), one line each.
inline std::string all_evidence(const report::Finding& f) {
  std::string s;
  for (const auto& e : f.evidence) s += e + "\n";
  for (const auto& e : f.details) s += e + "\n";
  return s;
}

}  // namespace dd::launch
