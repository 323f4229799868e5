// The one comparison of the job size two nodes of one job were started with (`check`: the member records the
// master reads as nodes arrive; `launch`: node rank 0's job settings and every node's hello): when they
// differ, a finding that names both nodes and both counts, so neither side waits out its deadline for nodes
// the other never expects.
#pragma once
#include <optional>
#include <string>

#include "report/finding.h"

namespace dd::cluster {

// What one node said about the job's size.
struct NodeCount {
  int rank = -1;  // its node rank (under a launcher: its rank)
  int count = 0;  // the size it was started with; 0: not said (a launcher that did not say, an old version)
  std::string host;   // "" when not known
  bool self = false;  // the node that prints the finding: "this node (rank R)"
};

// How the finding words the two sides: by hand "node rank R ... --nnodes N", under a launcher "rank R ... a
// world size of N".
struct CountWords {
  std::string id;                  // cluster.join.nnodes_differ, launch.join.nnodes_differ
  std::string who = "node rank";   // "rank" under a launcher
  std::string count = "--nnodes";  // "a world size of" under a launcher
};

// The finding `words.id` when `a` and `b` were started with different counts (b named first: the node whose
// record showed it); nullopt when they agree or either did not say. `seen`: where b's count was read, the
// finding's evidence ("from node rank 1's member record in the store").
std::optional<report::Finding> nnodes_differ(const CountWords& words, const NodeCount& a, const NodeCount& b,
                                             const std::string& seen);

}  // namespace dd::cluster
