// Host probe: hostname, FQDN, what the hostname resolves to, kernel, container kind.
#pragma once
#include "probe/facts.h"
#include "probe/fs.h"

namespace dd::probe {

// `resolve`: also getaddrinfo(hostname) for fqdn and resolved_addrs (may block on DNS: collect.cc runs it in
// a child with a deadline).
HostFacts probe_host(const Fs& fs, bool resolve = true);

// Container kind from /.dockerenv, /proc/1/cgroup and the Kubernetes env: "docker", "kubernetes", "other",
// "none".
std::string detect_container(const Fs& fs, bool has_k8s_env);

}  // namespace dd::probe
