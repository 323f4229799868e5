// Host probe: hostname, FQDN, what the hostname resolves to, kernel, container kind, and the kernel identity
// (boot id, network namespace) that tells whether two processes share one machine and one network stack.
#pragma once
#include "probe/env_probe.h"
#include "probe/facts.h"
#include "probe/fs.h"

namespace dd::probe {

// `resolve`: also getaddrinfo(hostname) for fqdn and resolved_addrs (may block on DNS: collect.cc runs it in
// a child with a deadline).
// `env`: the process environment (read_environment()); KUBERNETES_SERVICE_HOST marks a Kubernetes pod.
HostFacts probe_host(const Fs& fs, const EnvMap& env, bool resolve = true);

// This machine's host name (gethostname), "" when it cannot be read: what every --json says as "node".
std::string host_name();

// boot_id from /proc/sys/kernel/random/boot_id and netns from the /proc/self/ns/net link
// ("net:[4026531992]"); left empty when unreadable.
void read_kernel_identity(const Fs& fs, HostFacts& h);

// Container kind from /.dockerenv, /proc/1/cgroup and the Kubernetes env: "docker", "kubernetes", "other",
// "none".
std::string detect_container(const Fs& fs, bool has_k8s_env);

}  // namespace dd::probe
