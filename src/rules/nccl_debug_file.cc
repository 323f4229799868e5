// Rule: NCCL_DEBUG_FILE as NCCL opens it (src/debug.cc: %h and %p expanded, fopen "w", only when NCCL_DEBUG
// is above VERSION): without %p every process of the node truncates and writes the same file; a "~" is not
// expanded, the open fails and the log goes to stdout without a word.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "rules/node_rules.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

std::string setting(const probe::NodeFacts& f, const std::string& name) {
  auto it = f.nccl.settings.find(name);
  return it == f.nccl.settings.end() ? "" : it->second.value;
}

// NCCL writes its debug file only at WARN, INFO, ABORT or TRACE (levels above VERSION).
bool debug_file_written(const std::string& level) {
  std::string l = level;
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return char(std::toupper(c)); });
  return l == "WARN" || l == "INFO" || l == "ABORT" || l == "TRACE";
}

std::vector<Finding> check_debug_file(const probe::NodeFacts& f, const CheckOptions& opt) {
  const std::string file = setting(f, "NCCL_DEBUG_FILE"), level = setting(f, "NCCL_DEBUG");
  if (file.empty() || !debug_file_written(level)) return {};
  std::vector<std::string> ev = {"NCCL_DEBUG_FILE=" + file, "NCCL_DEBUG=" + level};
  std::vector<Finding> out;
  if (file.find('~') != std::string::npos)
    out.push_back({"nccl.debug_file.tilde", Severity::warn,
                   fmt::format("NCCL_DEBUG_FILE={} holds a '~', which NCCL does not expand: the file is not "
                               "made and the log goes to stdout",
                               file),
                   ev, "Write the path out: NCCL_DEBUG_FILE=$HOME/nccl.%h.%p.log"});
  if (file.find("%p") == std::string::npos && opt.nproc_per_node != 1)
    out.push_back(
        {"nccl.debug_file.shared", Severity::warn,
         fmt::format("NCCL_DEBUG_FILE={} has no %p: every process of this node opens the same file "
                     "and truncates it, so one rank's log overwrites the others'",
                     file),
         ev, fmt::format("Put the host and the process id in the name: NCCL_DEBUG_FILE={}.%h.%p", file)});
  return out;
}

}  // namespace

NodeRule nccl_debug_file_rule() {
  return {
      "nccl.debug_file",
      check_debug_file,
      {{"nccl.debug_file.shared", "NCCL_DEBUG_FILE names one file for every process of the node",
        "NCCL replaces %h in NCCL_DEBUG_FILE with the host name and %p with the process id, then opens the "
        "file for writing from the start (fopen \"w\") when NCCL_DEBUG is WARN, INFO, ABORT or TRACE. "
        "Without %p all ranks of a node open the same file: each truncates what the others wrote and the "
        "lines that are left are interleaved, so the log of the rank that failed is usually gone. Not said "
        "when the check is told one process per node (--nproc-per-node 1).",
        "Add %h and %p: NCCL_DEBUG_FILE=/path/nccl.%h.%p.log"},
       {"nccl.debug_file.tilde", "NCCL_DEBUG_FILE holds a '~'",
        "NCCL does not expand '~' in NCCL_DEBUG_FILE (its docs say so): the open fails and NCCL keeps "
        "logging to stdout without a warning, so the file the user looks for never appears.",
        "Write the home directory out ($HOME in the shell expands before NCCL sees it)."}}};
}

}  // namespace dd::rules
