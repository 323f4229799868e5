// join_nodes (see launch_join.h): store, rank claim, settings from node rank 0, hellos, the waiting line.
#include "launch/launch_join.h"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <thread>

#include "cluster/advertise.h"
#include "cluster/join.h"
#include "cluster/token_handoff.h"
#include "common/safe_text.h"
#include "launch/stop_signals.h"
#include "rendezvous/memory_store.h"
#include "common/json_limits.h"

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
// other).
Finding nnodes_finding(int me, int mine, int other, int theirs, const std::string& other_host) {
  Finding f{"launch.join.nnodes_differ", Severity::fail, "", {}, ""};
  f.title = fmt::format("node rank {}{} was started with --nnodes {}, this node (rank {}) with --nnodes {}",
                        other, other_host.empty() ? "" : " (" + other_host + ")", theirs, me, mine);
  f.evidence.push_back(other == 0 ? "from node rank 0's job settings in the store"
                                  : fmt::format("from node rank {}'s hello in the store", other));
  f.fix =
      "Start every node with the same --nnodes (paste the command node rank 0 printed); under a scheduler, "
      "check that the node count of the allocation and of the launch line agree.";
  return f;
}

void announce(const JoinInput& in, const JoinedNodes& j, int port) {
  std::string master = fmt::format("{}:{}", cluster::pick_advertise_addr(in.facts), port);
  const cluster::TokenHandoff h =
      cluster::hand_off_token(j.token.token, j.token.generated, ::isatty(STDERR_FILENO) == 1);
  std::string out = fmt::format(
      "distdoctor launch: node rank 0 of {}, job {}, waiting on {} (timeout {:.0f} s).\n"
      "{}Start the other nodes with:\n\n",
      j.nnodes, j.job.job_id, master, in.args.cluster.timeout_s, h.where.empty() ? "" : h.where + "\n");
  if (j.nnodes <= 4)
    for (int r = 1; r < j.nnodes; ++r) out += "  " + paste_command(in, master, h.assignment, r) + "\n";
  else
    out += "  " + paste_command(in, master, h.assignment, -1) + "\n  (R = 1 .. " +
           std::to_string(j.nnodes - 1) + ", one per node)\n";
  std::cerr << out << "\n" << std::flush;
}

// Waits for every hello, printing who is missing when the count changes (and every 10 s).
Status wait_for_nodes(JoinedNodes& j, Clock::time_point deadline, bool talk) {
  std::vector<std::string> names;
  for (int n = 0; n < j.nnodes; ++n) names.push_back(keys::hello(n));
  int last_count = -1;
  auto last_print = Clock::now();
  std::vector<int> missing;  // as of the last answer: named when the deadline passes inside a check
  for (;;) {
    if (int sig = stop_signal())
      return Error::make(ErrorKind::other, fmt::format("stopped by signal {} while waiting for nodes", sig));
    auto have = j.store->check(names, std::min(deadline, Clock::now() + 5s));
    if (!have && Clock::now() >= deadline && !missing.empty())
      return Error::make(ErrorKind::timeout,
                         fmt::format("node rank {} did not join", cluster::rank_ranges(missing)));
    if (!have) return have.error();
    missing.clear();
    for (int n = 0; n < j.nnodes; ++n)
      if (!(*have)[n]) missing.push_back(n);
    if (missing.empty()) break;
    int count = j.nnodes - int(missing.size());
    if (talk && (count != last_count || Clock::now() - last_print > 10s)) {
      std::cerr << fmt::format("distdoctor launch: waiting for nodes: {}/{} joined (missing: rank {})\n",
                               count, j.nnodes, cluster::rank_ranges(missing))
                << std::flush;
      last_count = count;
      last_print = Clock::now();
    }
    if (Clock::now() > deadline)
      return Error::make(ErrorKind::timeout,
                         fmt::format("node rank {} did not join", cluster::rank_ranges(missing)));
    std::this_thread::sleep_for(100ms);
  }
  for (int n = 0; n < j.nnodes; ++n) {
    auto h = j.store->get(names[n], deadline);
    if (!h) return h.error();
    std::string why;
    auto hello = dd::parse_record<NodeHello>(*h, &why);
    if (!hello)
      return Error::make(ErrorKind::protocol, fmt::format("node rank {} sent an unreadable hello: {}", n, why));
    j.nodes.push_back(std::move(*hello));
  }
  return ok_status();
}

// Opens the store this node meets the others through; a single node keeps it in memory.
Status open(const JoinInput& in, JoinedNodes& j, Clock::time_point deadline) {
  const cluster::JobSpec& spec = in.plan.spec;
  j.store_url = j.nnodes == 1 ? "memory://" : cluster::store_open_url(in.args.cluster, spec, in.facts);
  bool etcd = j.store_url.rfind("etcd://", 0) == 0;
  if (etcd && j.store_url.find('/', 7) == std::string::npos)
    j.store_url +=
        fmt::format("/distdoctor-launch-{:016x}", cluster::fnv1a(j.token.token + "|" + spec.job_id));
  auto opened = rendezvous::open_store(
      j.store_url, j.token.token,
      spec.serve ? rendezvous::StoreRole::kMaster : rendezvous::StoreRole::kClient, deadline,
      rendezvous::OpenOptions{.listen_all = in.args.cluster.listen_all,
                              .expected_clients = static_cast<size_t>(spec.world)});
  if (!opened) {
    j.failure = cluster::store_finding(opened.error(), j.store_url, in.args.cluster.timeout_s, spec.serve);
    return opened.error();
  }
  j.store = opened->store;
  j.server = opened->server;
  j.notes.push_back("rendezvous: " + opened->description);
  if (!opened->listen_note.empty()) j.notes.push_back(opened->listen_note);
  if (spec.print_command) announce(in, j, opened->port);
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
  auto tok = cluster::choose_token(in.args.cluster, in.plan.spec, "launch");
  if (!tok) {
    j.failure =
        join_failure("no usable job token", tok.error(),
                     "Set DISTDOCTOR_TOKEN to the token node rank 0 printed, or point the token-file option at "
                     "a regular file that holds it; every node needs the same token.");
    return j;
  }
  j.token = *tok;
  if (!j.token.note.empty()) j.notes.push_back(j.token.note);
  if (!open(in, j, deadline)) return j;
  auto claim = j.store->add(keys::claim(j.node_rank), 1, deadline);
  if (claim && *claim > 1) {
    j.failure = Finding{"launch.join.rank_taken",
                        Severity::fail,
                        fmt::format("node rank {} is already taken by another node", j.node_rank),
                        {fmt::format("claims of node rank {}: {}", j.node_rank, *claim)},
                        "Give every node its own --node-rank (0 .. nnodes-1)."};
    return j;
  }
  Status st = claim ? ok_status() : Status(claim.error());
  if (st) {  // node rank 0's job settings, then our hello, in one round trip (Store::pipeline)
    std::vector<rendezvous::StoreOp> ops;
    if (j.node_rank == 0)
      ops.push_back(rendezvous::StoreOp::set(keys::kJob, json_text(nlohmann::json(in.wanted))));
    ops.push_back(rendezvous::StoreOp::set(keys::hello(j.node_rank), json_text(nlohmann::json(in.me))));
    if (auto r = j.store->pipeline(ops, deadline); !r) st = r.error();
  }
  if (st) {
    auto settings = j.store->get(keys::kJob, deadline);
    if (!settings)
      st = settings.error();
    else if (std::string why; auto job = dd::parse_record<JobSettings>(*settings, &why))
      j.job = std::move(*job);
    else
      st = Error::make(ErrorKind::protocol, "node rank 0's job settings are unreadable: " + why);
  }
  if (st && j.job.nnodes > 0 && j.job.nnodes != j.nnodes) {  // before waiting for nodes that never come
    j.failure = nnodes_finding(j.node_rank, j.nnodes, 0, j.job.nnodes, "");
    return j;
  }
  if (st) st = wait_for_nodes(j, deadline, j.node_rank == 0 || j.nnodes <= 8);
  for (const NodeHello& h : j.nodes)
    if (st && h.nnodes > 0 && h.nnodes != j.nnodes) {
      j.failure = nnodes_finding(j.node_rank, j.nnodes, h.node_rank, h.nnodes, h.host);
      return j;
    }
  if (!st && st.error().kind == ErrorKind::auth)  // the master's verdict on our token came with the claim
    j.failure = cluster::store_finding(st.error(), j.store_url, in.args.cluster.timeout_s, false);
  else if (!st)
    j.failure =
        join_failure(fmt::format("node rank {} could not meet the other nodes within {:.0f} s", j.node_rank,
                                 in.args.cluster.timeout_s),
                     st.error(),
                     "Start distdoctor launch on every node (the first node prints the command), check the "
                     "address and port of --master and that no firewall blocks it.");
  return j;
}

}  // namespace dd::launch
