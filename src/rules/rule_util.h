// Small helpers shared by the rules: reading NCCL settings and environment from facts, NCCL version codes,
// byte formatting. Pure functions over NodeFacts.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

std::string human_bytes(int64_t bytes);  // "64 MiB", "1.5 GiB"

// Network helpers.
// Loopback, docker*, virbr* and docker user bridges (br-*): addresses other nodes cannot reach.
bool iface_is_local_only(const probe::NetInterface& i);
// "10.0.0.1", "10.0.0.1/24", "10.0.", "fd00::1": an address where an interface name was expected.
bool looks_like_ip(const std::string& s);
// The interface holding address `ip` (without prefix length), or nullptr.
const probe::NetInterface* iface_with_addr(const probe::NetFacts& net, const std::string& ip);
const probe::NetInterface* iface_by_name(const probe::NetFacts& net, const std::string& name);

std::string join(const std::vector<std::string>& v, const std::string& sep = ", ");

}  // namespace dd::rules
