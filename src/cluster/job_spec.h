// JobSpec: who this process is in the cluster run and where the job meets, resolved from the command line
// (--nnodes, --node-rank, --master, --token...) and the launcher's environment. Pure: no I/O but what the
// caller passes in.
#pragma once
#include <string>
#include <vector>

#include "cluster/launcher_env.h"
#include "common/result.h"

namespace dd::cluster {

struct ClusterArgs {
  int nnodes = 0;
  int node_rank = -1;
  std::string master;  // HOST:PORT or etcd://HOST:PORT[/prefix]
  std::string token;   // secret
  std::string token_file;
  double timeout_s = 60;
  bool listen_all = false;  // the master's store listens on every address, not only --master's
  bool mesh_bandwidth = false;
  int bandwidth_mib = 4;
};

struct JobSpec {
  bool by_hand = true;
  int world = 1, rank = 0, local_rank = 0, local_world = 1, node_rank = -1;
  std::string store_url;       // what open_store gets
  bool serve = false;          // start the embedded TCP server here
  bool print_command = false;  // first node started with --nnodes alone: print the command for the others
  // Node rank 0 by hand (--nnodes alone, or --node-rank 0 with --master, serving the store): makes the job
  // token when none was given, and then prints the command for the others.
  bool make_token = false;
  std::string launcher;  // the launcher that started this process ("srun", "mpirun"...; "" by hand)
  std::string job_id;
  std::vector<std::string> expected_hosts;  // by node rank
  std::vector<std::string> notes;           // where each value came from
};

// True when the user asked for a cluster run, or a launcher started more than one process.
bool cluster_requested(const ClusterArgs& a, const LauncherInfo& li);

// Resolves the spec. advertise_addr: this host's address for a master picked here; uid/ppid feed the port
// and token derived under a launcher that names no master port.
Result<JobSpec> resolve_job(const ClusterArgs& a, const LauncherInfo& li, const EnvMap& env);

// Deterministic port in 20000-49999 from a job id: every rank of one job computes the same one.
int derived_port(const std::string& job_id);

// 64-bit FNV-1a (job tags, derived ports).
uint64_t fnv1a(const std::string& s);

}  // namespace dd::cluster
