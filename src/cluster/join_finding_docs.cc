// Docs of the findings the join protocol itself emits (cluster/join*.cc, cluster/cluster_check.cc): they come
// from the run, not from facts, so they are a table of their own rather than a rule.
#include "cluster/join_finding_docs.h"

namespace dd::cluster {

const std::vector<report::FindingDoc>& join_finding_docs() {
  static const std::vector<report::FindingDoc> docs = {
      {"cluster.join.ok", "Every node joined", "All expected processes joined before the deadline."},
      {"cluster.join.missing", "Nodes did not join before the deadline",
       "The master waited for the whole join window (check's --deadline, launch's --join-timeout, minus a "
       "reserve for the mesh test) and "
       "some node ranks never arrived. The finding names them, the hosts expected for them when the "
       "launcher says, and who did arrive. Causes: the command was not started there, it points at the "
       "wrong --master, a firewall blocks the port, or the token is wrong (that node's output says)."},
      {"cluster.join.master_lost", "The master went away during the run",
       "This node lost its connection to the rendezvous master (node rank 0) mid-run: the master process "
       "ended or its host became unreachable."},
      {"cluster.join.no_answer", "The master did not answer in time",
       "The master accepted this node but published no verdict before the deadline."},
      {"cluster.join.nnodes_differ", "Nodes of one check were started with different --nnodes",
       "Every node publishes the node count it was started with; the master compares each node's count with "
       "its own as the node arrives and stops waiting at the first difference (a node that expects fewer "
       "nodes would otherwise be waited for in vain, and one past the master's last rank is never counted: "
       "it names the difference itself). The finding names both nodes and both counts. Under a launcher the "
       "count is the world size it gave."},
      {"cluster.join.unreadable_member", "A node joined with a record the master cannot read",
       "The node claimed its rank and published its member record, but the record does not parse (another "
       "distdoctor version, or a process that holds the job token and is not distdoctor) or could not be "
       "read. It counts as joined, and is named with the reason, instead of being left out silently."},
      {"cluster.join.locked_out", "The master locked this node's address out for wrong tokens",
       "The master pauses an address that sent too many wrong tokens in a short time (guessing). This node's "
       "address is paused, so the master refused it before looking at its token: another process there (an "
       "old run, a script with a stale token, another user of a shared host) sent the wrong tokens. The "
       "finding names the address and how long the pause lasts. The master still admits a right token "
       "during a pause when its token is long and random enough that guessing is hopeless (the tokens "
       "distdoctor makes); a short typed token stays paused."},
      {"cluster.join.refused", "The master refused this node's token",
       "Every node proves it knows the job token before touching the store; this node's token differs "
       "from the master's. Use the token the master printed."},
      {"cluster.join.unreachable", "The master could not be reached",
       "This node could not connect to the master's address and port before the deadline."},
      {"cluster.join.unresolvable", "The master's host name does not resolve",
       "The host in --master (or the launcher's master address) gives no address on this node: a typo, or a "
       "name that only some machines know (a hosts file, a search domain, a cluster DNS this node does not "
       "use). Resolving fails at once, so this node gives up without waiting for the deadline. Use node rank "
       "0's IP address, or make the name resolve on every node; `getent hosts NAME` shows what a node gets."},
      {"cluster.join.serve_failed", "The rendezvous store could not be started",
       "The master could not listen on the requested port (in use, or not allowed)."},
      {"cluster.join.store_error", "The rendezvous store failed", "A store operation failed mid-run."},
      {"cluster.node.lost", "A node left the run after joining",
       "The node joined, then its connection to the master closed before it finished: its process was "
       "killed (the OOM killer, a scheduler, a person), crashed, or its host lost the network. The master "
       "notices at once on its embedded store (each node holds a key that lives as long as its "
       "connection) and stops waiting for it; on etcd the deadlines name it instead."},
      {"cluster.mesh.incomplete", "Mesh results missing",
       "Some nodes joined, kept their store connection, but did not publish their mesh measurements before "
       "the deadline: a stopped or stuck process, or a broken path to the master. A node whose process died "
       "is named by cluster.node.lost instead."}};
  return docs;
}

}  // namespace dd::cluster
