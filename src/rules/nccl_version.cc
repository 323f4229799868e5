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

bool is_framework_copy(const probe::NcclLib& l) {
  return l.source.rfind("site-packages", 0) == 0 || l.source == "PYTHONPATH" || l.source == "conda";
}

// Several versions on one node are normal (PyTorch loads the copy in its site-packages, programs linked to
// the system's libnccl load that one). They are a risk only where the environment can hand a framework a
// copy of another version than its own: LD_PRELOAD naming a libnccl (always loaded first), or
// LD_LIBRARY_PATH holding one (searched before a library's RUNPATH). Nodes that differ are the cluster
// check's comparison.
Finding multiple_versions_finding(const probe::NodeFacts& f, const std::set<int>& versions,
                                  const std::vector<std::string>& listing) {
  std::vector<std::string> vs;
  for (int v : versions) vs.push_back(nccl_version_string(v));
  std::set<int> framework;
  for (const auto& l : f.nccl.libs)
    if (is_framework_copy(l) && nccl_version_code(l) > 0) framework.insert(nccl_version_code(l));
  std::vector<std::string> risks;
  const auto preload = f.env.find("LD_PRELOAD");
  if (preload != f.env.end() && preload->second.find("libnccl") != std::string::npos)
    risks.push_back("LD_PRELOAD=" + preload->second +
                    " loads that NCCL into every process, ahead of the "
                    "framework's own");
  for (const auto& l : f.nccl.libs) {
    const int c = nccl_version_code(l);
    if (l.source != "LD_LIBRARY_PATH" || c <= 0) continue;
    for (int fw : framework)
      if (fw != c)
        risks.push_back(
            fmt::format("LD_LIBRARY_PATH holds NCCL {} ({}), searched before the framework's own "
                        "{}: a rank can load either",
                        nccl_version_string(c), l.path, nccl_version_string(fw)));
  }
  std::vector<std::string> ev = risks;
  ev.insert(ev.end(), listing.begin(), listing.end());
  if (!risks.empty())
    return {
        "nccl.multiple_versions", Severity::warn,
        fmt::format("{} NCCL versions ({}) and the environment can hand a job the wrong one", versions.size(),
                    join(vs)),
        ev,
        "Remove the other copy from LD_PRELOAD/LD_LIBRARY_PATH (or make it the framework's version), so "
        "every "
        "rank loads the NCCL its framework was built with; NCCL_DEBUG=VERSION prints the one a rank loaded."};
  std::string who;
  for (const auto& l : f.nccl.libs) {
    const int c = nccl_version_code(l);
    if (c <= 0) continue;
    std::string role = is_framework_copy(l)   ? "the framework's own (" + l.source + ")"
                       : l.source == "loader" ? std::string("what programs linked to libnccl.so.2 load")
                                              : l.source;
    who += (who.empty() ? "" : "; ") + nccl_version_string(c) + ": " + role;
  }
  return {"nccl.multiple_versions", Severity::info,
          fmt::format("{} NCCL versions on this node ({}): each program loads its own, as usual",
                      versions.size(), join(vs)),
          ev,
          "Nothing to do on one node: " + who +
              ". Make sure every node has the same ones (distdoctor check on all nodes compares them)."};
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
  if (versions.size() > 1) out.push_back(multiple_versions_finding(f, versions, listing));
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
       {"nccl.multiple_versions", "Several NCCL versions on one node",
        "A node often has more than one NCCL: the system's libnccl2 (what nccl-tests and other programs "
        "linked "
        "to libnccl.so.2 load) and the copy a framework bundles (PyTorch wheels load "
        "site-packages/nvidia/nccl/"
        "lib). That alone is normal and reported as info. It is a warning when the environment can hand a "
        "job "
        "another version than its framework's own: LD_PRELOAD naming a libnccl, or LD_LIBRARY_PATH holding a "
        "copy of another version (searched before the framework's RUNPATH). Nodes that end up with different "
        "versions fail or hang in init; the multi-node check compares them."},
       {"nccl.too_old", "NCCL older than 2.8",
        "NCCL before 2.8 lacks many fixes and features current frameworks expect; upgrade."}}};
}

}  // namespace dd::rules
