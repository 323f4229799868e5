// join_nodes (see launch_join.h): the meeting check uses too (cluster/meeting.h, rendezvous/meeting_*.h)
// under the launch's keys: store, rank claim, settings from node rank 0, hellos, the waiting line.
#include "launch/launch_join.h"

#include <fmt/format.h>
#include <unistd.h>

#include "cluster/meeting.h"
#include "cluster/node_count.h"
#include "cluster/token_handoff.h"
#include "common/json_limits.h"
#include "common/safe_text.h"
#include "launch/report_parts.h"
#include "launch/stop_signals.h"
#include "rendezvous/meeting_join.h"
#include "rendezvous/meeting_wait.h"
#include "rendezvous/memory_store.h"
#include "report/rank_ranges.h"

namespace dd::launch {

using namespace std::chrono_literals;
using rendezvous::Clock;
using report::Finding;
using report::Severity;

std::string shell_quote(const std::string& w) {
  if (!w.empty() &&
      w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%") ==
          std::string::npos)
    return w;
  std::string q = "'";
  for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string paste_command(const JoinInput& in, const std::string& master, const std::string& assignment,
                          int node_rank) {
  const LaunchArgs& a = in.args;
  std::string exe = in.self.executable.empty() ? "distdoctor" : in.self.executable;
  std::string cmd =
      fmt::format("{} {} launch --nnodes {} --node-rank {} --master {}", assignment, shell_quote(exe),
                  a.cluster.nnodes, node_rank < 0 ? std::string("R") : std::to_string(node_rank), master);
  cmd += " --nproc-per-node " + shell_quote(a.nproc);
  if (a.log_dir != LaunchArgs{}.log_dir) cmd += " --log-dir " + shell_quote(a.log_dir);
  if (a.tee != LaunchArgs{}.tee) cmd += " --tee " + shell_quote(a.tee);
  cmd += " --";
  for (const auto& w : a.command) cmd += " " + shell_quote(w);
  return cmd;
}

namespace {

Finding join_failure(const std::string& what, const Error& e, const std::string& fix) {
  return Finding{"launch.join.failed", Severity::fail, what, {e.message()}, fix};
}

// launch.join.nnodes_differ: two nodes of one job started with different --nnodes (each side names the
// other; the one comparison check makes too, cluster/node_count.h).
std::optional<Finding> nnodes_differ(const JoinedNodes& j, int other, int theirs, const std::string& host,
                                     const std::string& seen) {
  return cluster::nnodes_differ({.id = "launch.join.nnodes_differ"}, {j.node_rank, j.nnodes, "", true},
                                {other, theirs, host}, seen);
}

// launch.join.command_differs: node `other` was started with another command line than this node. Only
// digests travel: the store never carries a command a node would run.
Finding command_finding(const JoinInput& in, int other, const std::string& theirs, const std::string& host) {
  const std::string& mine = in.me.command_digest;
  Finding f{"launch.join.command_differs", Severity::fail, "", {}, ""};
  f.title = fmt::format("node rank {}{} was started with another command than this node (rank {})", other,
                        host.empty() ? "" : " (" + host + ")", in.me.node_rank);
  f.evidence.push_back(fmt::format("this node's command: {} (sha256 {})",
                                   parts::command_text(in.args.command), mine.substr(0, 16)));
  f.evidence.push_back(
      theirs.empty()
          ? fmt::format("node rank {} sent no command digest (an older distdoctor, "
                        "or a value written by something else)",
                        other)
          : fmt::format("node rank {}'s command: sha256 {}", other, printable(theirs.substr(0, 16))));
  f.fix =
      "Start every node with the same command after -- (paste the command node rank 0 printed, with the same "
      "distdoctor version). Each node runs its own command line; no node takes one from the store, so a "
      "difference stops the job instead of running something else.";
  return f;
}

void announce(const JoinInput& in, const JoinedNodes& j, const std::string& master) {
  const cluster::TokenHandoff h =
      cluster::hand_off_token(j.token.token, j.token.generated, in.commands_on_terminal, master);
  std::string out = fmt::format(
      "distdoctor launch: node rank 0 of {}, job {}, waiting on {} (timeout {:.0f} s).\n"
      "{}Start the other nodes with:\n\n",
      j.nnodes, j.job.job_id, master, in.args.cluster.timeout_s, h.where.empty() ? "" : h.where + "\n");
  if (j.nnodes <= 4)
    for (int r = 1; r < j.nnodes; ++r) out += "  " + paste_command(in, master, h.assignment, r) + "\n";
  else
    out += "  " + paste_command(in, master, h.assignment, -1) + "\n  (R = 1 .. " +
           std::to_string(j.nnodes - 1) + ", one per node)\n";
  if (in.show_commands) in.show_commands(out + "\n");
}

// Waits for every node's hello (its member record: rendezvous::wait_for_all), printing who is missing when
// the count changes (and every 10 s), reading each as it comes: a node started with another --nnodes ends the
// wait at once (the caller names it), as does an unreadable hello.
Status wait_for_nodes(JoinedNodes& j, Clock::time_point deadline, const ProgressSink& progress) {
  std::vector<std::optional<NodeHello>> hellos(j.nnodes);
  std::optional<Error> unreadable;
  rendezvous::WaitForAll w{.ranks = rendezvous::all_ranks(j.nnodes),
                           .until = deadline,
                           .call_slice = 5s,
                           .poll = 100ms,
                           .progress_every = 10s,
                           .progress_on_change = true,
                           .stop = [] { return stop_signal() != 0; }};
  if (progress)
    w.progress = [&](const rendezvous::WaitProgress& p) {
      say(progress, ProgressKind::progress,
          fmt::format("waiting for nodes: {}/{} joined (missing: rank {})", p.arrived, j.nnodes,
                      report::rank_ranges(p.missing)));
    };
  w.on_arrival = [&](int n) {
    auto h = j.store->get(kLaunchKeys.member(n), deadline);
    std::string why;
    std::optional<NodeHello> hello;
    if (h) hello = dd::parse_record<NodeHello>(*h, &why);
    if (!hello) {
      unreadable = h ? Error::make(ErrorKind::protocol,
                                   fmt::format("node rank {} sent an unreadable hello: {}", n, why))
                     : h.error();
      return true;
    }
    const bool differs = hello->nnodes > 0 && hello->nnodes != j.nnodes;
    hellos[size_t(n)] = std::move(*hello);
    return differs;  // it expects another node count: waiting for the rest is pointless
  };
  auto waited = rendezvous::wait_for_all(*j.store, kLaunchKeys, w);
  if (!waited) return waited.error();
  if (unreadable) return *unreadable;
  if (waited->stopped && stop_signal() != 0)
    return Error::make(ErrorKind::other,
                       fmt::format("stopped by signal {} while waiting for nodes", stop_signal()));
  for (auto& h : hellos)
    if (h) j.nodes.push_back(std::move(*h));
  if (waited->stopped) return ok_status();  // a node with another --nnodes: join_nodes names it
  if (!waited->missing.empty())
    return Error::make(ErrorKind::timeout,
                       fmt::format("node rank {} did not join", report::rank_ranges(waited->missing)));
  return ok_status();
}

// Opens the store this node meets the others through (cluster/meeting.h); node rank 0 of a by-hand job
// prints the command for the others.
Status open(const JoinInput& in, JoinedNodes& j, Clock::time_point deadline) {
  auto m = cluster::open_meeting(cluster::MeetingPlace{
      in.args.cluster, in.plan.spec, in.facts, "distdoctor-launch", deadline, in.progress, in.store_log});
  if (!m) {
    j.failure = join_failure(
        "no usable job token", m.error(),
        "Set DISTDOCTOR_TOKEN to the token node rank 0 printed, or point the token-file option at "
        "a regular file that holds it; every node needs the same token.");
    return m.error();
  }
  j.token = m->token;
  j.store_url = m->url;
  j.notes.insert(j.notes.end(), m->notes.begin(), m->notes.end());
  if (m->failure) {
    j.failure = std::move(m->failure);
    return Error::make(ErrorKind::other, "the store could not be opened");
  }
  j.store = m->opened.store;
  j.server = m->opened.server;
  if (!m->announce_master.empty()) announce(in, j, m->announce_master);
  return ok_status();
}

}  // namespace

namespace {

// Claimed: node rank 0's job settings, then our hello, in one round trip (rendezvous::publish_member); then
// the settings every node adopts.
Status publish_and_adopt(const JoinInput& in, JoinedNodes& j, Clock::time_point deadline) {
  std::vector<rendezvous::StoreOp> job;
  if (j.node_rank == 0)
    job.push_back(rendezvous::StoreOp::set(kLaunchKeys.at("job"), json_text(nlohmann::json(in.wanted))));
  Status st = rendezvous::publish_member(*j.store, kLaunchKeys, j.node_rank, json_text(nlohmann::json(in.me)),
                                         job, deadline);
  if (!st) return st;
  auto settings = j.store->get(kLaunchKeys.at("job"), deadline);
  if (!settings) return settings.error();
  std::string why;
  auto adopted = dd::parse_record<JobSettings>(*settings, &why);
  if (!adopted) return Error::make(ErrorKind::protocol, "node rank 0's job settings are unreadable: " + why);
  j.job = std::move(*adopted);
  return ok_status();
}

// Every node's hello is here: a node started with another --nnodes or another command stops the join.
std::optional<Finding> nodes_disagree(const JoinInput& in, const JoinedNodes& j) {
  for (const NodeHello& h : j.nodes)
    if (auto f = nnodes_differ(j, h.node_rank, h.nnodes, h.host,
                               fmt::format("from node rank {}'s hello in the store", h.node_rank)))
      return f;
  for (const NodeHello& h : j.nodes)
    if (h.command_digest != in.me.command_digest)
      return command_finding(in, h.node_rank, h.command_digest, h.host);
  return std::nullopt;
}

// Why the join failed, as the finding the launch reports.
Finding join_failed_finding(const JoinInput& in, const JoinedNodes& j, const Error& e) {
  if (e.kind == ErrorKind::auth) {  // the master's verdict on our token came with the claim
    Finding f = cluster::store_finding(e, j.store_url, in.args.cluster.timeout_s, false);
    cluster::add_secret_hint(f, j.token);
    return f;
  }
  return join_failure(fmt::format("node rank {} could not meet the other nodes within {:.0f} s", j.node_rank,
                                  in.args.cluster.timeout_s),
                      e,
                      "Start distdoctor launch on every node (the first node prints the command), check the "
                      "address and port of --master and that no firewall blocks it.");
}

// Claims the node rank, publishes and adopts the settings, waits for every node: ok, or why not (a finding
// set in j.failure, or an error).
Status meet(const JoinInput& in, JoinedNodes& j, Clock::time_point deadline) {
  auto claim = rendezvous::claim_rank(*j.store, kLaunchKeys, j.node_rank, deadline);
  if (claim && *claim > 1) {
    j.failure = Finding{"launch.join.rank_taken",
                        Severity::fail,
                        fmt::format("node rank {} is already taken by another node", j.node_rank),
                        {fmt::format("claims of node rank {}: {}", j.node_rank, *claim)},
                        "Give every node its own --node-rank (0 .. nnodes-1)."};
    return ok_status();
  }
  Status st = claim ? publish_and_adopt(in, j, deadline) : Status(claim.error());
  if (!st) return st;
  // Before waiting for nodes that never come.
  if (auto f = nnodes_differ(j, 0, j.job.nnodes, "", "from node rank 0's job settings in the store")) {
    j.failure = std::move(f);
    return ok_status();
  }
  if (j.node_rank != 0 && j.job.command_digest != in.me.command_digest) {
    j.failure = command_finding(in, 0, j.job.command_digest, "");
    return ok_status();
  }
  st = wait_for_nodes(j, deadline, j.node_rank == 0 || j.nnodes <= 8 ? in.progress : ProgressSink{});
  if (!st) return st;
  j.failure = nodes_disagree(in, j);
  return ok_status();
}

}  // namespace

JoinedNodes join_nodes(const JoinInput& in) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(int64_t(in.args.cluster.timeout_s * 1000));
  JoinedNodes j;
  j.node_rank = in.me.node_rank;
  j.nnodes = in.plan.spec.world;
  j.notes = in.plan.spec.notes;
  j.job = in.wanted;
  if (j.nnodes == 1) {  // one node: an in-process store, nothing to authenticate
    j.store = std::make_shared<rendezvous::MemoryStore>();
    j.store_url = "memory://";
    j.notes.push_back("rendezvous: in-process (one node)");
    j.nodes = {in.me};
    return j;
  }
  if (!open(in, j, deadline)) return j;
  const Status st = meet(in, j, deadline);
  if (!st) {
    j.failure = join_failed_finding(in, j, st.error());
    return j;
  }
  if (j.failure) return j;
  // Every node is here: their clocks against node rank 0's, for the Flight Recorder's times.
  auto clocks = measure_clock_offsets(*j.store, kLaunchKeys, j.node_rank, j.nnodes,
                                      Clock::now() + 2 * kClockMeasureTime);
  if (clocks)
    j.clocks = std::move(*clocks);
  else
    j.notes.push_back("clock offsets between nodes not measured: " + clocks.error().message());
  return j;
}

}  // namespace dd::launch
