// Rule: the libnccl.so.2 copies a job could load: missing, unloadable, several versions, older than 2.8.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "rules/node_rules.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

// Versions of the libraries that load; one nccl.load_error per library that does not; one listing line each.
std::set<int> loadable_versions(const std::vector<probe::NcclLib>& libs, std::vector<Finding>& out,
                                std::vector<std::string>& listing) {
  std::set<int> versions;
  for (const auto& l : libs) {
    if (!l.error.empty()) {
      out.push_back(
          {"nccl.load_error",
           Severity::warn,
           fmt::format("libnccl at {} cannot be loaded: {}", l.path, l.error),
           {fmt::format("{} ({}): {}", l.path, l.source, l.error)},
           "Reinstall it or remove it from LD_LIBRARY_PATH; check `ldd` for missing libcudart/libstdc++"});
      continue;
    }
    int c = nccl_version_code(l);
    if (c > 0) versions.insert(c);
    listing.push_back(
        fmt::format("{} {} ({})", l.path, c > 0 ? nccl_version_string(c) : "version unknown", l.source));
  }
  return versions;
}

std::vector<Finding> check_nccl_version(const probe::NodeFacts& f, const CheckOptions&) {
  std::vector<Finding> out;
  const auto& libs = f.nccl.libs;
  bool gpus = !f.gpu.gpus.empty();
  if (libs.empty()) {
    out.push_back(
        {"nccl.missing",
         gpus ? Severity::warn : Severity::info,
         "No libnccl.so.2 found (loader path, LD_LIBRARY_PATH, CUDA, site-packages)",
         {fmt::format("loader choice: {}", f.nccl.loader_choice.empty() ? "none" : f.nccl.loader_choice)},
         "pip install nvidia-nccl-cu12 (what PyTorch wheels use), or apt install libnccl2; or pass "
         "--nccl-lib PATH to check the copy your framework ships"});
    return out;
  }
  std::vector<std::string> listing;
  std::set<int> versions = loadable_versions(libs, out, listing);
  if (versions.size() > 1) {
    std::vector<std::string> vs;
    for (int v : versions) vs.push_back(nccl_version_string(v));
    out.push_back(
        {"nccl.multiple_versions", Severity::warn,
         fmt::format("{} different NCCL versions visible ({}): which one a rank loads depends on the "
                     "framework and LD_LIBRARY_PATH",
                     versions.size(), join(vs)),
         listing,
         "Use one NCCL on every node (the framework's own, e.g. site-packages/nvidia/nccl/lib); drop other "
         "copies from LD_LIBRARY_PATH, and check with NCCL_DEBUG=VERSION"});
  }
  int oldest = versions.empty() ? -1 : *versions.begin();
  if (oldest > 0 && oldest < 20800) {
    out.push_back({"nccl.too_old", Severity::warn,
                   fmt::format("NCCL {} is older than 2.8", nccl_version_string(oldest)), listing,
                   "Upgrade NCCL (pip install -U nvidia-nccl-cu12, or the framework release that bundles a "
                   "newer one)"});
  }
  if (out.empty() ||
      std::none_of(out.begin(), out.end(), [](auto& x) { return x.severity >= Severity::warn; })) {
    out.push_back(
        {"nccl.version_ok", Severity::ok,
         fmt::format("NCCL {} ({} cop{} found)", oldest > 0 ? nccl_version_string(oldest) : "version unknown",
                     libs.size(), libs.size() == 1 ? "y" : "ies"),
         listing});
  }
  return out;
}

}  // namespace

NodeRule nccl_version_rule() {
  return {
      "nccl.version",
      check_nccl_version,
      {{"nccl.version_ok", "NCCL library found", "One NCCL version is visible and it is recent enough."},
       {"nccl.missing", "No libnccl.so.2",
        "No NCCL library was found where the dynamic loader, LD_LIBRARY_PATH, the CUDA toolkit or Python "
        "site-packages would provide it. PyTorch wheels load site-packages/nvidia/nccl/lib/libnccl.so.2; if "
        "your "
        "framework links NCCL statically this finding is harmless."},
       {"nccl.load_error", "A libnccl copy cannot be loaded",
        "dlopen or ncclGetVersion failed for this copy (missing dependencies, wrong architecture, truncated "
        "file). A job that picks it up fails at import or at the first collective."},
       {"nccl.multiple_versions", "Several NCCL versions visible",
        "Different NCCL versions on the same node (system libnccl2 vs the copy a framework bundles) mean the "
        "version a rank uses depends on LD_LIBRARY_PATH and import order. Nodes that end up with different "
        "versions fail or hang in init (\"NCCL version mismatch\")."},
       {"nccl.too_old", "NCCL older than 2.8",
        "NCCL before 2.8 lacks many fixes and features current frameworks expect; upgrade."}}};
}

}  // namespace dd::rules
