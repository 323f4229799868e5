// Host probe implementation (uname, gethostname, getaddrinfo with AI_CANONNAME, boot id, network namespace).
#include "probe/host_probe.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>

namespace dd::probe {

std::string detect_container(const Fs& fs, bool has_k8s_env) {
  if (has_k8s_env || fs.exists("/var/run/secrets/kubernetes.io/serviceaccount")) return "kubernetes";
  if (fs.exists("/.dockerenv")) return "docker";
  auto cg = fs.read("/proc/1/cgroup");
  if (cg) {
    const std::string& s = *cg;
    if (s.find("kubepods") != std::string::npos) return "kubernetes";
    if (s.find("docker") != std::string::npos) return "docker";
    if (s.find("lxc") != std::string::npos || s.find("containerd") != std::string::npos) return "other";
  }
  if (fs.exists("/run/.containerenv")) return "other";  // podman
  return "none";
}

void read_kernel_identity(const Fs& fs, HostFacts& h) {
  if (auto b = read_trimmed(fs, "/proc/sys/kernel/random/boot_id")) h.boot_id = *b;
  if (auto n = fs.readlink("/proc/self/ns/net")) h.netns = *n;
}

std::string host_name() {
  char name[256] = {0};
  return gethostname(name, sizeof(name) - 1) == 0 ? name : "";
}

HostFacts probe_host(const Fs& fs, const EnvMap& env, bool resolve) {
  HostFacts h;
  h.hostname = host_name();
  struct utsname u;
  if (uname(&u) == 0) h.kernel = u.release;
  h.pid = getpid();
  h.distdoctor_version = DD_VERSION;
  h.container = detect_container(fs, env.count("KUBERNETES_SERVICE_HOST") > 0);
  read_kernel_identity(fs, h);

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_CANONNAME;
  addrinfo* res = nullptr;
  if (resolve && !h.hostname.empty() && getaddrinfo(h.hostname.c_str(), nullptr, &hints, &res) == 0) {
    if (res && res->ai_canonname) h.fqdn = res->ai_canonname;
    for (addrinfo* a = res; a; a = a->ai_next) {
      char buf[INET6_ADDRSTRLEN] = {0};
      const void* src =
          a->ai_family == AF_INET
              ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr)
              : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr);
      if (inet_ntop(a->ai_family, src, buf, sizeof(buf))) {
        std::string s = buf;
        if (std::find(h.resolved_addrs.begin(), h.resolved_addrs.end(), s) == h.resolved_addrs.end())
          h.resolved_addrs.push_back(s);
      }
    }
    freeaddrinfo(res);
  }
  if (h.fqdn.empty()) h.fqdn = h.hostname;
  return h;
}

}  // namespace dd::probe
