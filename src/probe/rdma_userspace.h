// RDMA user space next to the kernel's RDMA devices: /dev/infiniband (the verbs device files a container
// gets only with --device or a device plugin), libibverbs.so.1 and its provider drivers (libmlx5-rdmav*.so
// in <libdir>/libibverbs/, /etc/libibverbs.d/*.driver). Reads only through Fs; run when RDMA devices exist.
#pragma once
#include <string>
#include <vector>

#include "probe/env_probe.h"
#include "probe/facts.h"
#include "probe/fs.h"

namespace dd::probe {

// Fills ib.dev_infiniband, ib.dev_files, ib.verbs_lib, ib.verbs_providers and sets ib.userspace_probed.
void probe_rdma_userspace(const Fs& fs, const EnvMap& env, IbFacts& ib);

// "libmlx5-rdmav34.so" -> "mlx5"; "mlx5.driver" -> "mlx5"; "" when the name is neither form.
std::string verbs_provider_name(const std::string& file);

}  // namespace dd::probe
