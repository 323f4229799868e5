// Resolution of the JobSpec from flags and launcher variables, with a note for each value's source.
#include "cluster/job_spec.h"

#include <fmt/format.h>

namespace dd::cluster {

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

int derived_port(const std::string& job_id) { return 20000 + static_cast<int>(fnv1a(job_id) % 30000); }

bool cluster_requested(const ClusterArgs& a, const LauncherInfo& li) {
  if (a.nnodes > 0 || !a.master.empty()) return true;
  return li.detected() && li.world_size.known() && li.world_size.value > 1;
}

namespace {

// By hand: --nnodes with --master (and --node-rank), or --nnodes alone on the first node.
Result<JobSpec> resolve_by_hand(const ClusterArgs& a) {
  JobSpec j;
  if (a.nnodes < 1) return Error{"give --nnodes N (the number of nodes in the job) with --master"};
  j.world = a.nnodes;
  if (a.master.empty()) {
    if (a.node_rank > 0)
      return Error{fmt::format("--node-rank {} needs --master HOST:PORT (the address node rank 0 printed)",
                               a.node_rank)};
    j.rank = 0;
    j.serve = true;
    j.print_command = true;
    j.make_token = true;
    j.store_url = "0.0.0.0:0";
    j.notes.push_back(fmt::format("by hand: {} node(s); this is the master (node rank 0)", a.nnodes));
    j.node_rank = j.rank;
    return j;
  }
  if (a.node_rank < 0)
    return Error{"give --node-rank R (0 .. nnodes-1) with --master; node rank 0 runs the store"};
  if (a.node_rank >= a.nnodes)
    return Error{fmt::format("--node-rank {} is outside 0..{}", a.node_rank, a.nnodes - 1)};
  j.rank = a.node_rank;
  j.store_url = a.master;
  bool etcd = a.master.rfind("etcd://", 0) == 0;
  j.serve = !etcd && a.node_rank == 0;
  j.make_token = j.serve;
  j.notes.push_back(fmt::format("by hand: node rank {} of {} (from --node-rank), master {} (from --master)",
                                a.node_rank, a.nnodes, a.master));
  j.node_rank = j.rank;
  return j;
}

// The port under a launcher: MASTER_PORT (+1 when torchrun's agent store holds it), else derived from the
// job id. *why says which.
int launcher_port(const LauncherInfo& li, const EnvMap& env, const std::string& host, std::string* why) {
  int port = li.master_port;
  *why = li.master_port_source;
  if (port > 0) {
    auto agent = env.find("TORCHELASTIC_USE_AGENT_STORE");
    if (agent != env.end() && (agent->second == "True" || agent->second == "true" || agent->second == "1")) {
      port += 1;  // torchrun's agent already serves MASTER_PORT
      *why += "+1 (the torchrun agent holds MASTER_PORT)";
    }
    return port;
  }
  std::string seed = !li.job_id.empty() ? li.job_id : env.count("DD_PPID") ? env.at("DD_PPID") : "";
  *why = fmt::format("derived from the job id \"{}\"", seed);
  return derived_port(seed + "/" + host);
}

// Where a launcher's ranks meet without --master: MASTER_ADDR or the first Slurm host (or loopback when all
// ranks share one host), and launcher_port().
Status set_meeting_point(const LauncherInfo& li, const EnvMap& env, JobSpec& j) {
  std::string host = li.master_addr;
  std::string why = li.master_addr_source;
  if (host.empty() && li.local_world_size.known() && li.local_world_size.value == j.world) {
    host = "127.0.0.1";
    why = "all ranks on one host (local size = world size)";
  }
  if (host.empty())
    return Error{
        fmt::format("under {} with ranks on several hosts, distdoctor needs a meeting point: pass "
                    "--master HOST:PORT or set MASTER_ADDR to rank 0's host (mpirun -x MASTER_ADDR=...)",
                    li.launcher)};
  std::string port_why;
  int port = launcher_port(li, env, host, &port_why);
  if (host.find(':') != std::string::npos && host.front() != '[') host = "[" + host + "]";
  j.store_url = fmt::format("{}:{}", host, port);
  j.notes.push_back(fmt::format("meeting point {} (host from {}, port {})", j.store_url, why, port_why));
  return Ok{};
}

// Under a launcher every process is a rank.
Result<JobSpec> resolve_under_launcher(const ClusterArgs& a, const LauncherInfo& li, const EnvMap& env) {
  if (!li.rank.known() || !li.world_size.known())
    return Error{fmt::format("launcher {} detected but {}", li.launcher,
                             li.errors.empty() ? "rank or size missing" : li.errors.front())};
  JobSpec j;
  j.by_hand = false;
  j.launcher = li.launcher;
  j.world = li.world_size.value;
  j.rank = li.rank.value;
  if (j.rank >= j.world) return Error{fmt::format("rank {} is not below world size {}", j.rank, j.world)};
  j.local_rank = li.local_rank.known() ? li.local_rank.value : 0;
  j.local_world = li.local_world_size.known() ? li.local_world_size.value : 1;
  j.node_rank = a.node_rank >= 0 ? a.node_rank : (li.node_rank.known() ? li.node_rank.value : -1);
  j.expected_hosts = li.nodelist;
  j.job_id = li.job_id;
  for (const auto& n : li.notes()) j.notes.push_back(n);
  if (!a.master.empty()) {
    j.store_url = a.master;
    j.notes.push_back("master " + a.master + " from --master");
  } else if (auto st = set_meeting_point(li, env, j); !st) {
    return st.error();
  }
  j.serve = j.rank == 0 && j.store_url.rfind("etcd://", 0) != 0;
  return j;
}

}  // namespace

Result<JobSpec> resolve_job(const ClusterArgs& a, const LauncherInfo& li, const EnvMap& env) {
  bool launcher = li.detected() && a.nnodes <= 0;
  return launcher ? resolve_under_launcher(a, li, env) : resolve_by_hand(a);
}

}  // namespace dd::cluster
