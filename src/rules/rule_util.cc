// Helpers shared by the rules (see rule_util.h).
#include "rules/rule_util.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "common/units.h"

namespace dd::rules {

std::optional<std::string> nccl_setting(const probe::NodeFacts& f, const std::string& name) {
  auto it = f.nccl.settings.find(name);
  if (it != f.nccl.settings.end()) return it->second.value;
  return env_value(f, name);
}

std::string describe_setting(const probe::NodeFacts& f, const std::string& name) {
  auto it = f.nccl.settings.find(name);
  if (it != f.nccl.settings.end()) {
    bool from_env = it->second.source.empty() || it->second.source == "env";
    return fmt::format("{}=\"{}\"{}", name, it->second.value,
                       from_env ? "" : fmt::format(" (from {})", it->second.source));
  }
  auto v = env_value(f, name);
  return v ? fmt::format("{}=\"{}\"", name, *v) : fmt::format("{} unset", name);
}

std::optional<std::string> env_value(const probe::NodeFacts& f, const std::string& name) {
  auto it = f.env.find(name);
  if (it == f.env.end()) return std::nullopt;
  return it->second;
}

int64_t nccl_int(const std::string& v, int64_t dflt) {
  if (v.empty()) return dflt;
  errno = 0;
  char* end = nullptr;
  long long x = std::strtoll(v.c_str(), &end, 0);
  if (errno || end == v.c_str()) return end == v.c_str() ? 0 : dflt;
  return x;
}

bool nccl_int_unparsed(const std::string& v) {
  if (v.empty()) return false;
  char* end = nullptr;
  std::strtoll(v.c_str(), &end, 0);
  return end == v.c_str();
}

int nccl_version_code(const probe::NcclLib& lib) {
  int maj = 0, min = 0, pat = 0;
  if (!lib.version.empty() && std::sscanf(lib.version.c_str(), "%d.%d.%d", &maj, &min, &pat) >= 2 &&
      maj >= 1 && maj < 100 && min >= 0 && min < 100 && pat >= 0 && pat < 100)
    return maj * 10000 + min * 100 + pat;
  int c = lib.version_code;
  if (c <= 0) return -1;
  if (c < 10000) return (c / 1000) * 10000 + ((c % 1000) / 100) * 100 + c % 100;  // pre-2.9 scheme: 2804
  return c;
}

int nccl_min_version_code(const probe::NodeFacts& f) {
  int best = -1;
  for (const auto& l : f.nccl.libs) {
    if (!l.error.empty()) continue;
    int c = nccl_version_code(l);
    if (c > 0 && (best < 0 || c < best)) best = c;
  }
  return best;
}

std::string nccl_version_string(int code) {
  if (code <= 0) return "unknown";
  return fmt::format("{}.{}.{}", code / 10000, (code / 100) % 100, code % 100);
}

std::string human_bytes(int64_t b) { return b < 0 ? "unknown" : size_in_words(b); }

namespace {
// Names that are local-only whatever else is known: lo, docker*, virbr*.
bool name_always_local(const std::string& n) {
  return n == "lo" || n.rfind("docker", 0) == 0 || n.rfind("virbr", 0) == 0;
}
}  // namespace

bool iface_name_is_local_only(const std::string& n) {
  return name_always_local(n) || n.rfind("veth", 0) == 0 || n.rfind("br-", 0) == 0;
}

bool iface_is_local_only(const probe::NetInterface& i) {
  return i.kind == "loopback" || i.kind == "docker" || name_always_local(i.name) ||
         (i.kind == "bridge" && i.name.rfind("br-", 0) == 0);
}

bool looks_like_ip(const std::string& raw) {
  std::string s = raw.substr(0, raw.find('/'));
  if (s.empty()) return false;
  unsigned char buf[16];
  if (inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1) return true;
  bool dot = false;
  for (char c : s) {
    if (c == '.') {
      dot = true;
    } else if (c < '0' || c > '9') {
      return false;
    }
  }
  return dot;  // digits and dots: an address or an address prefix ("10.0.")
}

const probe::NetInterface* iface_with_addr(const probe::NetFacts& net, const std::string& ip) {
  for (const auto& i : net.interfaces) {
    for (const auto* list : {&i.ipv4, &i.ipv6})
      for (const auto& a : *list)
        if (a.substr(0, a.find('/')) == ip) return &i;
  }
  return nullptr;
}

const probe::NetInterface* iface_by_name(const probe::NetFacts& net, const std::string& name) {
  for (const auto& i : net.interfaces)
    if (i.name == name) return &i;
  return nullptr;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); i++) out += (i ? sep : "") + v[i];
  return out;
}

nccl::IfSelectInput nccl_if_select_input(const probe::NodeFacts& f) {
  nccl::IfSelectInput in;
  in.net = &f.net;
  in.socket_ifname = nccl_setting(f, "NCCL_SOCKET_IFNAME");
  in.socket_family = nccl_setting(f, "NCCL_SOCKET_FAMILY");
  in.comm_id = nccl_setting(f, "NCCL_COMM_ID");
  in.nccl_version_code = nccl_min_version_code(f);
  return in;
}

std::vector<nccl::IfCandidate> nccl_socket_ifs(const probe::NodeFacts& f) {
  return nccl::nccl_select_interfaces(nccl_if_select_input(f)).matched;
}

std::string socket_ifname_setting(const probe::NodeFacts& f) {
  return nccl_setting(f, "NCCL_SOCKET_IFNAME").value_or("");
}

}  // namespace dd::rules
