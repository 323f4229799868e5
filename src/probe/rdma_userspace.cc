// RDMA user-space probe (see rdma_userspace.h).
#include "probe/rdma_userspace.h"

#include <algorithm>

#include "probe/nccl_probe.h"

namespace dd::probe {
namespace {

constexpr const char* kVerbsSoname = "libibverbs.so.1";

// Where the dynamic loader would find libibverbs.so.1: LD_LIBRARY_PATH, ld.so.cache, the usual directories.
std::string find_verbs_lib(const Fs& fs, const EnvMap& env) {
  std::vector<std::string> tries;
  if (auto it = env.find("LD_LIBRARY_PATH"); it != env.end()) {
    const std::string& p = it->second;
    for (size_t start = 0; start <= p.size();) {
      size_t end = p.find(':', start);
      if (end == std::string::npos) end = p.size();
      if (end > start) tries.push_back(p.substr(start, end - start) + "/" + kVerbsSoname);
      start = end + 1;
    }
  }
  if (auto cache = fs.read("/etc/ld.so.cache"))
    for (const auto& p : parse_ld_so_cache(*cache, kVerbsSoname)) tries.push_back(p);
  for (const char* d : {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/lib64",
                        "/usr/lib", "/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu"})
    tries.push_back(std::string(d) + "/" + kVerbsSoname);
  for (const auto& t : tries)
    if (fs.exists(t)) return t;
  return "";
}

void add_providers(const Fs& fs, const std::string& dir, std::vector<std::string>& out) {
  auto files = fs.list(dir);
  if (!files) return;
  for (const auto& f : *files) {
    std::string n = verbs_provider_name(f);
    if (!n.empty() && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
}

}  // namespace

std::string verbs_provider_name(const std::string& file) {
  const std::string driver = ".driver";
  if (file.size() > driver.size() && file.compare(file.size() - driver.size(), driver.size(), driver) == 0)
    return file.substr(0, file.size() - driver.size());
  size_t rv = file.find("-rdmav");
  if (file.rfind("lib", 0) == 0 && rv != std::string::npos && rv > 3 &&
      file.find(".so", rv) != std::string::npos)
    return file.substr(3, rv - 3);
  return "";
}

void probe_rdma_userspace(const Fs& fs, const EnvMap& env, IbFacts& ib) {
  ib.userspace_probed = true;
  ib.dev_infiniband = fs.is_dir("/dev/infiniband") ? 1 : 0;
  ib.dev_files.clear();
  if (ib.dev_infiniband == 1)
    if (auto files = fs.list("/dev/infiniband")) ib.dev_files = *files;
  ib.verbs_lib = find_verbs_lib(fs, env);
  ib.verbs_providers.clear();
  if (!ib.verbs_lib.empty())
    add_providers(fs, ib.verbs_lib.substr(0, ib.verbs_lib.rfind('/')) + "/libibverbs", ib.verbs_providers);
  add_providers(fs, "/etc/libibverbs.d", ib.verbs_providers);
  std::sort(ib.verbs_providers.begin(), ib.verbs_providers.end());
}

}  // namespace dd::probe
