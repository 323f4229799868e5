// NCCL's grammar for NCCL_ALGO, NCCL_PROTO, path levels and debug settings (see env_grammar.h).
#include "nccl/env_grammar.h"

#include <strings.h>

#include <algorithm>

namespace dd::nccl {
namespace {

bool same_nocase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// strtok_r: pieces between separators, empty pieces skipped.
std::vector<std::string> tokens(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string_view::npos) end = s.size();
    if (end > start) out.emplace_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

int index_of(const std::vector<std::string>& names, std::string_view tok) {
  for (size_t i = 0; i < names.size(); i++)
    if (same_nocase(names[i], tok)) return static_cast<int>(i);
  return -1;
}

// Algorithms each function can run (ncclTopoTuneModel, 2.24 to 2.30): Broadcast and Reduce only Ring,
// AllGather/ReduceScatter Ring, PAT, NVLS or CollNetDirect, AllReduce all but PAT.
bool algo_serves(const std::string& func, const std::string& algo) {
  if (func == "Broadcast" || func == "Reduce") return algo == "Ring";
  if (func == "AllGather" || func == "ReduceScatter")
    return algo == "Ring" || algo == "PAT" || algo == "NVLS" || algo == "CollNetDirect";
  return algo != "PAT";
}

// NCCL < 2.24: optional '^', a comma list; unknown tokens are ignored.
TuneListCheck check_old_list(std::string_view value, const std::vector<std::string>& names) {
  TuneListCheck c;
  c.per_function_syntax =
      value.find(';') != std::string_view::npos || value.find(':') != std::string_view::npos;
  if (!value.empty() && value[0] == '^') value.remove_prefix(1);
  for (const auto& t : tokens(value, ','))
    if (index_of(names, t) < 0) c.ignored.push_back(t);
  if (!c.ignored.empty()) c.bad_token = c.ignored.front();
  return c;
}

}  // namespace

std::vector<std::string> nccl_tune_names(TuneKind kind, int v) {
  if (kind == TuneKind::proto) return {"LL", "LL128", "Simple"};
  const bool newest = v <= 0;
  std::vector<std::string> out = {"Tree", "Ring"};
  if (!newest && v < 21400) out.push_back("CollNet");
  if (newest || v >= 21400) out.insert(out.end(), {"CollNetDirect", "CollNetChain"});
  if (newest || v >= 21700) out.push_back("NVLS");
  if (newest || v >= 21800) out.push_back("NVLSTree");
  if (newest || v >= 22300) out.push_back("PAT");
  return out;
}

const std::vector<std::string>& nccl_tune_functions() {
  static const std::vector<std::string> f = {"Broadcast", "Reduce", "AllGather", "ReduceScatter",
                                             "AllReduce"};
  return f;
}

TuneListCheck check_tune_list(std::string_view value, TuneKind kind, int v) {
  const auto names = nccl_tune_names(kind, v);
  if (v > 0 && v < 22400) return check_old_list(value, names);
  TuneListCheck c;
  c.per_function_syntax =
      value.find(';') != std::string_view::npos || value.find(':') != std::string_view::npos;
  const auto& funcs = nccl_tune_functions();
  // enabled[f][e]: everything enabled until the value says otherwise.
  std::vector<std::vector<bool>> enabled(funcs.size(), std::vector<bool>(names.size(), true));
  const std::string whole(value);
  auto entries = tokens(value, ';');
  for (size_t k = 0; k < entries.size(); k++) {
    auto parts = tokens(entries[k], ':');
    if (parts.empty()) continue;
    std::string prefix = parts.size() >= 2 ? parts[0] : "";
    std::string list = parts.size() >= 2 ? parts[1] : parts[0];
    if (parts.size() < 2 && k > 0) {
      c.error = "All entries except the first must have a prefix: \"" + whole + "\"";
      c.bad_token = entries[k];
      return c;
    }
    bool invert = !list.empty() && list[0] == '^';
    if (invert) list.erase(0, 1);
    int fi = prefix.empty() ? -1 : index_of(funcs, prefix);
    if (!prefix.empty() && fi < 0) {
      c.error = "Unrecognized prefix token \"" + prefix + "\" when parsing \"" + whole + "\"";
      c.bad_token = prefix;
      return c;
    }
    for (size_t f = 0; f < funcs.size(); f++) {
      if (fi >= 0 && static_cast<int>(f) != fi) continue;
      enabled[f].assign(names.size(), invert);
      for (const auto& t : tokens(list, ',')) {
        int e = index_of(names, t);
        if (e < 0) {
          c.error = "Unrecognized element token \"" + t + "\" when parsing \"" + whole + "\"";
          c.bad_token = t;
          return c;
        }
        enabled[f][e] = !invert;
      }
    }
  }
  for (size_t f = 0; f < funcs.size(); f++) {
    bool any = false;
    for (size_t e = 0; e < names.size(); e++)
      any = any || (enabled[f][e] && (kind == TuneKind::proto || algo_serves(funcs[f], names[e])));
    if (!any) c.no_choice.push_back(funcs[f]);
  }
  return c;
}

const std::vector<std::string>& nccl_path_level_names() {
  // topoPathTypeStr up to PATH_SYS (src/graph/topo.cc); NCCL compares with strcmp.
  static const std::vector<std::string> n = {"LOC", "NVL", "NVB", "C2C", "PIX",
                                             "PXB", "P2C", "PXN", "PHB", "SYS"};
  return n;
}

PathLevelCheck check_path_level(std::string_view value) {
  PathLevelCheck c;
  const auto& names = nccl_path_level_names();
  if (std::find(names.begin(), names.end(), value) != names.end()) {
    c.ok = true;
    return c;
  }
  if (!value.empty() && value[0] >= '0' && value[0] <= '9') {  // legacy integer: strtol, > 4 means SYS
    c.ok = true;
    return c;
  }
  int i = index_of(names, value);
  if (i >= 0) c.suggest = names[i];
  return c;
}

const std::vector<std::string>& nccl_debug_levels() {
  static const std::vector<std::string> l = {"VERSION", "WARN", "INFO", "ABORT", "TRACE"};
  return l;
}

bool nccl_debug_level_known(std::string_view value) { return index_of(nccl_debug_levels(), value) >= 0; }

std::vector<std::string> nccl_debug_subsys_unknown(std::string_view value) {
  static const std::vector<std::string> subsys = {
      "INIT", "COLL",  "P2P",  "SHM",       "NET", "GRAPH",   "TUNING", "ENV",     "ALLOC", "ALLOC_HOST",
      "CALL", "PROXY", "NVLS", "BOOTSTRAP", "REG", "PROFILE", "RAS",    "DESTROY", "ALL"};
  std::vector<std::string> out;
  for (const auto& t : tokens(value, ',')) {
    std::string_view name = t;
    if (!name.empty() && name[0] == '^') name.remove_prefix(1);
    if (index_of(subsys, name) < 0) out.push_back(t);
  }
  return out;
}

}  // namespace dd::nccl
