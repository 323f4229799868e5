// What a cluster run needs to know about this machine beyond the single-node probes: interfaces (getifaddrs,
// as a fallback when the net probe left them empty), boot id and network namespace, the job-relevant env.
#pragma once
#include <string>

#include "cluster/launcher_env.h"
#include "probe/facts.h"

namespace dd::cluster {

probe::NetFacts read_local_net();
std::string read_boot_id();  // "" when unreadable
std::string read_netns();    // "net:[4026531992]", "" when unreadable

// NCCL_*, CUDA_*, GLOO_*, UCX_*, OMPI_*, LD_LIBRARY_PATH, PYTHONPATH, MASTER_*, launcher vars.
std::map<std::string, std::string> relevant_env(const EnvMap& env);

// Fills what the cluster rules need and the probes did not (yet) provide: env, net, boot id, netns.
void complete_facts(probe::NodeFacts& facts, const EnvMap& env);

// The address other nodes should use to reach this one: the default-route interface's first IPv4, else
// the first interface NCCL would pick, else 127.0.0.1.
std::string pick_advertise_addr(const probe::NetFacts& net, const std::string& nccl_setting);

}  // namespace dd::cluster
