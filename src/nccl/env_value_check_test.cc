// extract_env_values / check_env_value (see env_value_check.h), and the cases they must tell apart: values
// NCCL reads differently from what the surrounding prose intends.
#include "nccl/env_value_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

#include "nccl/if_list.h"

namespace dd::nccl {

namespace {

bool is_placeholder(const std::string& v) {
  return v.empty() || v.find_first_of("{}<>$\\") != std::string::npos || v.find("...") != std::string::npos ||
         v.find("…") != std::string::npos;
}

std::string trim_value(std::string v) {
  while (!v.empty() && std::string(".,;:)'\"`").find(v.back()) != std::string::npos) v.pop_back();
  return v;
}

// The words after a value up to the end of its clause (or the next value).
std::string clause_after(std::string_view text, size_t pos) {
  std::string s(text.substr(pos, 60));
  size_t cut = s.find_first_of(";.,()=^\n");
  if (size_t o = s.find(" or "); o < cut) cut = o;
  return s.substr(0, cut);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

bool one_of(const std::string& v, std::initializer_list<const char*> options, bool nocase = false) {
  for (const char* o : options) {
    std::string a = v, b = o;
    if (nocase) {
      std::transform(a.begin(), a.end(), a.begin(), ::toupper);
      std::transform(b.begin(), b.end(), b.begin(), ::toupper);
    }
    if (a == b) return true;
  }
  return false;
}

// What NCCL does with a parsed list, in words: "selects exactly '^docker', 'lo'".
std::string meaning(const IfList& l) {
  std::string s =
      std::string(l.exclude ? "excludes " : "selects ") + (l.exact ? "exactly " : "names starting with ");
  for (size_t i = 0; i < l.entries.size(); ++i) s += (i ? ", '" : "'") + l.entries[i].prefix + "'";
  return s;
}

// NCCL_SOCKET_IFNAME / NCCL_IB_HCA: NCCL's list grammar, and the intent the prose states.
std::string check_if_list(const EnvValue& v, bool hca) {
  IfList l = parse_if_list(v.value, hca ? kNcclMaxIbDevs : kNcclMaxIfs);
  for (const auto& e : l.entries) {
    if (e.prefix.find_first_of("^=") != std::string::npos)
      return "entry '" + e.prefix +
             "' holds '^' or '=': NCCL reads them only at the start, '^' before '=', so it " + meaning(l);
    if (!hca && std::regex_match(e.prefix, std::regex(R"(\d+(\.\d+){1,3})")))
      return "'" + e.prefix + "' is an address: NCCL matches interface names, never addresses";
  }
  if (l.entries.empty()) return "the list names no interface";
  if (l.overlong) return "an entry is longer than NCCL's 63-character buffer";
  if (l.dropped > 0) return "NCCL reads only the first entries of this list";
  if (hca)
    for (const auto& part : split(v.value, ','))
      if (size_t c = part.find(':'); c != std::string::npos && !all_digits(part.substr(c + 1)))
        return "the port after ':' in '" + part + "' is not a number";
  if (v.context.find("exclud") != std::string::npos && !l.exclude)
    return "the text says it excludes, but without a leading '^' NCCL selects these names";
  if (v.context.find("exact") != std::string::npos && !l.exact)
    return "the text says exact, but without '=' NCCL matches these as prefixes";
  return "";
}

std::string check_cuda_visible(const std::string& value) {
  std::set<std::string> seen;
  for (const auto& d : split(value, ',')) {
    if (!all_digits(d) && d.rfind("GPU-", 0) != 0 && d.rfind("MIG-", 0) != 0)
      return "'" + d + "' is neither an index nor a GPU-/MIG- UUID";
    if (!seen.insert(d).second) return "device " + d + " is listed twice (two ranks would share one GPU)";
  }
  return "";
}

std::string check_debug_subsys(std::string value) {
  if (!value.empty() && value[0] == '^') value.erase(0, 1);
  for (const auto& s : split(value, ','))
    if (!one_of(s,
                {"INIT", "COLL", "P2P", "SHM", "NET", "GRAPH", "TUNING", "ENV", "ALLOC", "CALL", "PROXY",
                 "NVLS", "BOOTSTRAP", "REG", "PROFILE", "RAS", "ALL"},
                true))
      return "'" + s + "' is not an NCCL debug subsystem";
  return "";
}

bool is_boolean_var(const std::string& var) {
  auto ends = [&](const char* suf) {
    std::string s = suf;
    return var.size() > s.size() && var.compare(var.size() - s.size(), s.size(), s) == 0;
  };
  return ends("_DISABLE") || ends("_ENABLE") ||
         one_of(var, {"CUDA_LAUNCH_BLOCKING", "PYTHONFAULTHANDLER", "NCCL_BLOCKING_WAIT",
                      "TORCH_NCCL_BLOCKING_WAIT", "NCCL_IGNORE_CPU_AFFINITY", "NCCL_CUMEM_ENABLE"});
}

}  // namespace

std::vector<EnvValue> extract_env_values(std::string_view text) {
  std::vector<EnvValue> out;
  std::string s(text);
  static const std::regex assign(R"(\b([A-Z][A-Z0-9_]*[A-Z0-9])=(\S*))");
  for (std::sregex_iterator it(s.begin(), s.end(), assign), end; it != end; ++it) {
    if (is_placeholder((*it)[2].str())) continue;
    std::string value = trim_value((*it)[2].str());
    size_t after = static_cast<size_t>(it->position(2)) + value.size();
    out.push_back({(*it)[1].str(), value, clause_after(text, after)});
  }
  // Bare list values ("=eth0", "^docker,lo") in prose about one of NCCL's list variables.
  static const std::regex bare(R"((^|[\s('"`])([=^]{1,2}[A-Za-z0-9_][A-Za-z0-9_.,:^=-]*))");
  for (std::sregex_iterator it(s.begin(), s.end(), bare), end; it != end; ++it) {
    size_t pos = static_cast<size_t>(it->position(2));
    // The variable named last before the value; failing that, the first one named after it.
    size_t ifn = s.rfind("SOCKET_IFNAME", pos), hca = s.rfind("IB_HCA", pos);
    bool is_hca = hca != std::string::npos && (ifn == std::string::npos || hca > ifn);
    if (ifn == std::string::npos && hca == std::string::npos) {
      size_t next_ifn = s.find("SOCKET_IFNAME", pos), next_hca = s.find("IB_HCA", pos);
      if (next_ifn == std::string::npos && next_hca == std::string::npos) continue;
      is_hca = next_hca < next_ifn;
    }
    if (is_placeholder((*it)[2].str())) continue;
    std::string value = trim_value((*it)[2].str());
    out.push_back(
        {is_hca ? "NCCL_IB_HCA" : "NCCL_SOCKET_IFNAME", value, clause_after(text, pos + value.size())});
  }
  return out;
}

std::string check_env_value(const EnvValue& v) {
  const std::string& x = v.value;
  if (v.var == "NCCL_SOCKET_IFNAME") return check_if_list(v, false);
  if (v.var == "NCCL_IB_HCA") return check_if_list(v, true);
  if (v.var == "GLOO_SOCKET_IFNAME" && x.find_first_of("^=") != std::string::npos)
    return "Gloo takes interface names only; '^' and '=' are NCCL's grammar";
  if (is_boolean_var(v.var)) return one_of(x, {"0", "1"}) ? "" : "a boolean: 0 or 1";
  if (v.var == "NCCL_DEBUG")
    return one_of(x, {"VERSION", "WARN", "INFO", "TRACE", "ABORT"}, true) ? "" : "not an NCCL_DEBUG level";
  if (v.var == "NCCL_DEBUG_SUBSYS") return check_debug_subsys(x);
  if (v.var == "NCCL_NET")
    return one_of(x, {"IB", "Socket"}, true) ? "" : "NCCL's own networks are IB and Socket";
  if (one_of(v.var, {"NCCL_IB_GID_INDEX", "NCCL_IB_TC", "NCCL_IB_TIMEOUT", "NCCL_IB_RETRY_CNT",
                     "NCCL_BUFFSIZE", "NCCL_NTHREADS", "NCCL_SOCKET_NTHREADS", "NCCL_NSOCKS_PERTHREAD"}))
    return all_digits(x) ? "" : "an integer";
  if (v.var == "TORCH_DISTRIBUTED_DEBUG")
    return one_of(x, {"OFF", "INFO", "DETAIL"}) ? "" : "OFF, INFO or DETAIL";
  if (v.var == "CUDA_DEVICE_ORDER")
    return one_of(x, {"FASTEST_FIRST", "PCI_BUS_ID"}) ? "" : "FASTEST_FIRST or PCI_BUS_ID";
  if (v.var == "CUDA_VISIBLE_DEVICES") return check_cuda_visible(x);
  if (v.var == "NCCL_COMM_ID") {
    size_t c = x.rfind(':');
    return c != std::string::npos && all_digits(x.substr(c + 1)) ? "" : "host:port";
  }
  if (v.var == "UCX_NET_DEVICES")
    for (const auto& d : split(x, ','))
      if (size_t c = d.find(':'); c != std::string::npos && !all_digits(d.substr(c + 1)))
        return "the port after ':' in '" + d + "' is not a number";
  return "";
}

namespace {

TEST(FixEnvValues, TheCheckCatchesWhatNcclReadsDifferently) {
  auto bad = [](const std::string& text) {
    std::string all;
    for (const auto& v : extract_env_values(text)) all += check_env_value(v);
    return all;
  };
  EXPECT_NE(bad("set NCCL_SOCKET_IFNAME to the interface (e.g. =eth0 or =^docker,lo to exclude)"), "");
  EXPECT_NE(bad("export NCCL_SOCKET_IFNAME==^docker0"), "");
  EXPECT_NE(bad("NCCL_SOCKET_IFNAME=10.0.0.1"), "");
  EXPECT_NE(bad("NCCL_IB_HCA=mlx5_0 to exclude the bond"), "");
  EXPECT_NE(bad("NCCL_SOCKET_IFNAME=eth0 to use exactly eth0"), "");
  EXPECT_NE(bad("NCCL_P2P_DISABLE=yes"), "");
  EXPECT_NE(bad("NCCL_DEBUG=VERBOSE"), "");
  EXPECT_NE(bad("NCCL_IB_HCA=mlx5_0:x"), "");
  EXPECT_NE(bad("CUDA_VISIBLE_DEVICES=0,0"), "");
  EXPECT_EQ(bad("NCCL_SOCKET_IFNAME=^docker,lo excludes; '=eth0' requires an exact match"), "");
  EXPECT_EQ(bad("export NCCL_SOCKET_IFNAME=^=docker0 to exclude docker0 only"), "");
  EXPECT_EQ(
      bad("NCCL_IB_HCA==mlx5_0:1,mlx5_1:1 NCCL_P2P_DISABLE=1 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET"),
      "");
  EXPECT_EQ(bad("MASTER_ADDR=<IP> NCCL_SOCKET_IFNAME={} NCCL_IB_HCA=..."), "");  // placeholders
}

}  // namespace
}  // namespace dd::nccl
