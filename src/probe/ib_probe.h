// InfiniBand / RoCE probe: devices under /sys/class/infiniband, their ports, non-zero GIDs with RoCE type
// and netdev, and the net devices each HCA drives. Reads only through Fs.
#pragma once
#include <string>
#include <vector>

#include "probe/facts.h"
#include "probe/fs.h"

namespace dd::probe {

IbFacts probe_ib(const Fs& fs, std::vector<std::string>* errors);

// "fe80:0000:0000:0000:0000:0000:0000:0000" is the unset GID; any all-zero GID is skipped.
bool gid_is_zero(const std::string& gid);

}  // namespace dd::probe
