// Every rank's identity, compared: the settings and libraries that must be the same on every rank of a job
// (NCCL_*, CUDA_*, TORCH_* variables, LD_PRELOAD, the NCCL library and its version) and the rank that holds
// another value than the rest. One comparison for `launch` (from each worker's /proc) and `logs` (from NCCL's
// "X set by environment to Y" and "NCCL version" lines). Pure.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace dd::rules {

// What one rank runs with: name -> value ("NCCL_PROTO" -> "LL", "NCCL library" -> "/usr/lib/libnccl.so.2
// (2.28.3)"); a name it does not have is unset. known = false: nothing could be read (it is left out).
struct RankIdentity {
  int rank = -1;
  int node = -1;  // node rank, -1 unknown
  bool known = true;
  std::map<std::string, std::string> items;
  // What its launcher gave it (the launcher's own environment, filtered the same way), when known: with two
  // ranks, or no minority, the rank whose value differs from what it was given set its own.
  bool expected_known = false;
  std::map<std::string, std::string> expected;
};

// One setting where a minority of ranks differs from the rest.
struct OddSetting {
  std::string name;
  std::vector<int> ranks;    // the odd ones (sorted)
  std::string value;         // theirs ("" = unset)
  std::vector<int> others;   // every other rank that was compared (sorted)
  std::string others_value;  // the value most of them hold ("" = unset)
  bool whole_node = false;   // the odd ranks are exactly the ranks of their node(s): a node's setting
  bool singled_out = false;  // the odd ranks are a unique smallest group (else: all but the largest)
};

// Settings that differ between ranks, the odd ranks named only when they are fewer than the rest (a unique
// smallest group); a setting whose value is different on every rank (a per-rank path, a device id) is made
// per rank on purpose and is left out (with three ranks or more), as are the names of `ignore`. Ordered:
// libraries first, then by name. Without a minority (two ranks that differ, a tie), the ranks whose value
// differs from what their launcher gave them (RankIdentity::expected) are singled out; failing that, every
// rank but those of the most common value is listed in `ranks`, and none is singled out.
std::vector<OddSetting> odd_settings(const std::vector<RankIdentity>& ranks,
                                     const std::vector<std::string>& ignore = {});

// "rank 3 has NCCL_PROTO=LL where ranks 0-2 leave it unset", "rank 1 loads NCCL /x/libnccl.so.2 (2.28.3)
// where ranks 0,2,3 load /y/libnccl.so.2 (2.28.9)"; with no side singled out, "ranks disagree on the NCCL
// library: rank 0 2.28.9, rank 1 2.28.3".
std::string odd_setting_text(const OddSetting& s);

// Whether the setting changes what NCCL does (the library, an NCCL_* variable, LD_PRELOAD, LD_LIBRARY_PATH):
// ranks that disagree on it can fail or wait for each other in init or in a collective.
bool affects_nccl(const OddSetting& s);

// Whether a variable belongs in the comparison: NCCL_*, CUDA_*, TORCH_*, PYTORCH_*, NVIDIA_*, UCX_*,
// LD_PRELOAD, LD_LIBRARY_PATH.
bool identity_variable(const std::string& name);

// The name under which the NCCL library a rank loaded is compared.
inline constexpr const char* kNcclLibraryItem = "NCCL library";

}  // namespace dd::rules
