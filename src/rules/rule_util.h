// Small helpers shared by the rules: reading NCCL settings and environment from facts, NCCL version codes,
// byte formatting. Pure functions over NodeFacts.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nccl/if_select.h"
#include "probe/facts.h"

namespace dd::rules {

// An NCCL_* setting in effect: facts.nccl.settings (env merged with nccl.conf), else facts.env.
std::optional<std::string> nccl_setting(const probe::NodeFacts& f, const std::string& name);
// "NCCL_X=v (from /etc/nccl.conf)" for evidence.
std::string describe_setting(const probe::NodeFacts& f, const std::string& name);
// Any other environment variable recorded in facts.env.
std::optional<std::string> env_value(const probe::NodeFacts& f, const std::string& name);

// NCCL's integer parameters: strtoll(value, 0) as ncclLoadParam does; unparsable -> 0 here (NCCL keeps
// default).
int64_t nccl_int(const std::string& v, int64_t dflt = 0);

// True when NCCL's strtoll reads no digits from a non-empty value ("true", "yes"): NCCL then uses 0.
bool nccl_int_unparsed(const std::string& v);

// Version code in NCCL's >=2.9 scheme (major*10000 + minor*100 + patch) from a lib record; -1 unknown.
int nccl_version_code(const probe::NcclLib& lib);
// Lowest version among the loadable libs (the one a job may get); -1 when none known.
int nccl_min_version_code(const probe::NodeFacts& f);
std::string nccl_version_string(int code);  // 22809 -> "2.28.9"

std::string human_bytes(int64_t bytes);  // size_in_words (common/units.h), "unknown" when negative

// Network helpers.
// "Is this interface local-only": its addresses are not reachable from other nodes. The one decision used by
// the node rules, the cluster rules, the cluster layer and the log rules.
// By the name alone (logs name interfaces but say nothing else): lo, docker*, virbr*, br-* (docker networks)
// and veth* (the host end of a container's link).
bool iface_name_is_local_only(const std::string& name);
// With the interface's facts: loopback and docker kinds, lo/docker*/virbr* names, br-* only when it is a
// bridge; a veth is judged by its kind (in a namespace or container it is the node's real link).
bool iface_is_local_only(const probe::NetInterface& i);
// "10.0.0.1", "10.0.0.1/24", "10.0.", "fd00::1": an address where an interface name was expected.
bool looks_like_ip(const std::string& s);
// The interface holding address `ip` (without prefix length), or nullptr.
const probe::NetInterface* iface_with_addr(const probe::NetFacts& net, const std::string& ip);
const probe::NetInterface* iface_by_name(const probe::NetFacts& net, const std::string& name);

std::string join(const std::vector<std::string>& v, const std::string& sep = ", ");

// What NCCL's interface selection reads from a node's facts: NCCL_SOCKET_IFNAME, NCCL_SOCKET_FAMILY and
// NCCL_COMM_ID as in effect (env over NCCL_CONF_FILE/~/.nccl.conf over /etc/nccl.conf) and the lowest
// loadable NCCL version. The input of both the node rules and the cluster path; points into f.net.
nccl::IfSelectInput nccl_if_select_input(const probe::NodeFacts& f);
// The interfaces NCCL's socket transport uses on that node, in NCCL's order (candidates point into f.net).
std::vector<nccl::IfCandidate> nccl_socket_ifs(const probe::NodeFacts& f);
// NCCL_SOCKET_IFNAME as in effect on that node ("" unset).
std::string socket_ifname_setting(const probe::NodeFacts& f);

}  // namespace dd::rules
