// Environment assignments inside prose (a finding's fix, a catalogue entry), and whether each value means
// what the prose says under the grammar of the program that reads it: NCCL's interface/HCA lists
// (nccl/if_list.h), its booleans and enumerations, CUDA_VISIBLE_DEVICES, and a few framework variables.
// Test support (defined in env_value_check_test.cc): every fix the tool prints must be one that works.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace dd::nccl {

struct EnvValue {
  std::string var;      // "NCCL_SOCKET_IFNAME"
  std::string value;    // "^docker,lo"
  std::string context;  // the words right after the value, up to the next clause ("to exclude")
};

// Every NAME=VALUE in `text`, plus bare list values ("=eth0", "^docker,lo") in a text that names
// NCCL_SOCKET_IFNAME or NCCL_IB_HCA (they belong to the variable named last before them). Values that are
// placeholders ("{}", "<IP>", "...", "$X") are left out.
std::vector<EnvValue> extract_env_values(std::string_view text);

// Empty when the value parses and means what its context says ("exclude" needs a leading '^', "exact" needs
// '='); otherwise what is wrong, in words.
std::string check_env_value(const EnvValue& v);

}  // namespace dd::nccl
