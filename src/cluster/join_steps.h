// Internals of the join protocol shared by the leader (join_leader.cc) and the rest (join.cc, join_steps.cc):
// store keys, the common findings, the mesh step and the verdict hand-off.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/join.h"

namespace dd::cluster::join_detail {

using Clock = std::chrono::steady_clock;

// Keys (cfg.keys, rendezvous/meeting_keys.h): claim/R, member/R, ~live/R, dup/R/N, facts/R, mesh/R, and the
// single keys plan, go, verdict, done, read.

double secs(Clock::duration d);
std::string who(bool by_hand);  // "node rank" by hand, "rank" under a launcher

// A verdict that ends the run on this process only (its store broke before the leader could answer).
JoinOutcome alone(const JoinConfig& cfg, report::Finding f);
// The master went away (connection error) or never answered (deadline) during `phase`.
report::Finding lost_master(const JoinConfig& cfg, const char* phase, const Error& e,
                            Clock::time_point deadline);
// This node's part of the mesh, from the leader's plan.
std::vector<MeshProbe> my_mesh(const nlohmann::json& plan, const JoinConfig& cfg, Clock::time_point end);
// Publishes the verdict and waits (briefly) until `readers` processes have read it; cleanup removes the keys.
void publish_verdict(rendezvous::Store& s, const rendezvous::MeetingKeys& keys, const report::Report& r,
                     const std::string& go, int readers, Clock::time_point end, bool cleanup);

JoinOutcome lead(rendezvous::Store& s, const JoinConfig& cfg);  // join_leader.cc

// The leader's join window (join_arrivals.cc): every member record, read as it comes, until all came or
// join_deadline; a member started with another job size ends it at once.
struct Arrivals {
  std::vector<double> seen;                     // seen[r]: seconds after the start when rank r came, -1 never
  std::map<int, Member> members;                // the records read, by rank
  std::map<int, std::string> unreadable;        // ranks that came with a record that cannot be read: why
  std::optional<report::Finding> size_differs;  // cluster.join.nnodes_differ (the first one seen)
};
Result<Arrivals> watch_arrivals(rendezvous::Store& s, const JoinConfig& cfg, Clock::time_point join_deadline);
// cluster.join.unreadable_member for view.unreadable (nullopt when every record was read).
std::optional<report::Finding> unreadable_members_finding(const JoinConfig& cfg, const ClusterView& view);

// The leader's mesh step (join_mesh.cc): publishes the plan, runs this node's part, collects every node's
// probes into view.mesh; stops waiting for a node that left.
struct MeshStep {
  std::vector<std::string> no_mesh;  // ranks whose results did not arrive before the deadline
  std::vector<int> lost;             // members that left after they joined (their live key went)
};
MeshStep run_cluster_mesh(rendezvous::Store& s, const JoinConfig& cfg, ClusterView& view,
                          Clock::time_point end);

// Liveness: every member sets its live key when it joins (rendezvous::publish_member); on the embedded TCP
// store it goes with its connection, so rendezvous::wait_for_all (liveness on) and rendezvous::gone_ranks see
// a member whose process died. The finding for members that left after they joined (join_liveness.cc):
report::Finding lost_members_finding(const JoinConfig& cfg, const std::vector<Member>& members,
                                     const std::vector<int>& lost);
// After the mesh (join_liveness.cc): the members among `ranks` whose live key is gone, looked at until one is
// or `grace` passed (at least once). Over a slow link the close of a node killed just before the master
// looked comes late (a FIN queued behind a full link, or retransmitted): looking again names it as gone
// instead of reporting its slow connects.
std::vector<int> gone_after_mesh(rendezvous::Store& s, const JoinConfig& cfg, const std::vector<int>& ranks,
                                 std::chrono::milliseconds grace, Clock::time_point read_by);
// How long to look again: three times the slowest connect the mesh measured (a round trip over the slowest
// link and a retransmission), at most 2 s; nothing on a fast network.
std::chrono::milliseconds liveness_grace(const MeshResult& mesh);
// Probes to or from a lost member's node say nothing about the links: dropped.
void drop_lost_probes(ClusterView& view, const std::vector<int>& lost);

}  // namespace dd::cluster::join_detail
