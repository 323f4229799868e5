// Host probe: hostname, FQDN, what the hostname resolves to, kernel, container kind.
#pragma once
#include "probe/facts.h"
#include "probe/fs.h"

namespace dd::probe {

HostFacts probe_host(const Fs& fs);

// Container kind from /.dockerenv, /proc/1/cgroup and the Kubernetes env: "docker", "kubernetes", "other", "none".
std::string detect_container(const Fs& fs, bool has_k8s_env);

}  // namespace dd::probe
