// The NCCL settings rule, value by value: NCCL_ALGO/NCCL_PROTO lists, numeric switches and sizes (NCCL reads
// them with strtoll: "true" is 0, "4M" is 4), path levels and debug levels. See nccl_env_checks.h.
#include <fmt/format.h>

#include <array>
#include <climits>
#include <cstdlib>

#include "nccl/env_grammar.h"
#include "rules/nccl_env_checks.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

std::vector<std::string> item_evidence(const NcclEnvItem& it) {
  return {it.described, "nccl_version=" + nccl_version_string(it.version)};
}

// "NCCL 2.28.9", or "NCCL 2.24+" when the version is unknown (the newest grammar is assumed).
std::string nccl_named(int version) {
  return version > 0 ? "NCCL " + nccl_version_string(version) : std::string("NCCL 2.24+");
}

void add_finding(const NcclEnvItem& it, const char* id, Severity s, std::string title, std::string fix) {
  it.out->push_back({id, s, std::move(title), item_evidence(it), std::move(fix)});
}

// Numeric settings and the range NCCL uses them in (INT64_MIN/MAX: any number). Switches are 0/1 (some 2 =
// automatic); NCCL_P2P_DISABLE, NCCL_SHM_DISABLE and NCCL_IB_DISABLE are checked by their own rules.
struct NumberSpec {
  const char* name;
  int64_t min;
  int64_t max;
};
constexpr int64_t kAny = INT64_MIN, kAll = INT64_MAX;
constexpr std::array kNumbers = {
    NumberSpec{"NCCL_BUFFSIZE", 1, kAll},
    NumberSpec{"NCCL_NTHREADS", 64, 512},
    NumberSpec{"NCCL_MIN_NCHANNELS", 1, 64},
    NumberSpec{"NCCL_MAX_NCHANNELS", 1, 64},
    NumberSpec{"NCCL_MIN_CTAS", 1, 64},
    NumberSpec{"NCCL_MAX_CTAS", 1, 64},
    NumberSpec{"NCCL_SOCKET_NTHREADS", 1, 16},
    NumberSpec{"NCCL_NSOCKS_PERTHREAD", 1, 64},
    NumberSpec{"NCCL_IB_TIMEOUT", 0, 31},
    NumberSpec{"NCCL_IB_RETRY_CNT", 0, 7},
    NumberSpec{"NCCL_IB_SL", 0, 15},
    NumberSpec{"NCCL_IB_TC", 0, 255},
    NumberSpec{"NCCL_IB_FIFO_TC", 0, 255},
    NumberSpec{"NCCL_NVLS_ENABLE", 0, 2},
    NumberSpec{"NCCL_CROSS_NIC", 0, 2},
    NumberSpec{"NCCL_IB_GID_INDEX", kAny, kAll},
    NumberSpec{"NCCL_IB_QPS_PER_CONNECTION", 1, 128},
    NumberSpec{"NCCL_IB_AR_THRESHOLD", kAny, kAll},
    NumberSpec{"NCCL_P2P_NET_CHUNKSIZE", kAny, kAll},
    NumberSpec{"NCCL_P2P_NVL_CHUNKSIZE", kAny, kAll},
    NumberSpec{"NCCL_P2P_PCI_CHUNKSIZE", kAny, kAll},
    NumberSpec{"NCCL_P2P_LL_THRESHOLD", kAny, kAll},
    NumberSpec{"NCCL_LL128_BUFFSIZE", kAny, kAll},
    NumberSpec{"NCCL_LL_BUFFSIZE", kAny, kAll},
    NumberSpec{"NCCL_SOCKET_RETRY_CNT", kAny, kAll},
    NumberSpec{"NCCL_SOCKET_RETRY_SLEEP_MSEC", kAny, kAll},
    NumberSpec{"NCCL_MIN_P2P_NCHANNELS", kAny, kAll},
    NumberSpec{"NCCL_MAX_P2P_NCHANNELS", kAny, kAll},
    NumberSpec{"NCCL_P2P_DIRECT_DISABLE", kAny, kAll},
    NumberSpec{"NCCL_NVB_DISABLE", kAny, kAll},
    NumberSpec{"NCCL_PXN_DISABLE", kAny, kAll},
    NumberSpec{"NCCL_NET_GDR_READ", kAny, kAll},
    NumberSpec{"NCCL_IGNORE_CPU_AFFINITY", kAny, kAll},
    NumberSpec{"NCCL_CUMEM_ENABLE", kAny, kAll},
    NumberSpec{"NCCL_CUMEM_HOST_ENABLE", kAny, kAll},
    NumberSpec{"NCCL_DMABUF_ENABLE", kAny, kAll},
    NumberSpec{"NCCL_RAS_ENABLE", kAny, kAll},
    NumberSpec{"NCCL_COLLNET_ENABLE", kAny, kAll},
    NumberSpec{"NCCL_NET_SHARED_BUFFERS", kAny, kAll},
    NumberSpec{"NCCL_NET_SHARED_COMMS", kAny, kAll},
    NumberSpec{"NCCL_IB_ADAPTIVE_ROUTING", kAny, kAll},
    NumberSpec{"NCCL_IB_PCI_RELAXED_ORDERING", 0, 2},
    NumberSpec{"NCCL_RUNTIME_CONNECT", kAny, kAll},
    NumberSpec{"NCCL_GRAPH_REGISTER", kAny, kAll},
    NumberSpec{"NCCL_LOCAL_REGISTER", kAny, kAll},
    NumberSpec{"NCCL_CHECK_POINTERS", kAny, kAll},
    NumberSpec{"NCCL_MNNVL_ENABLE", kAny, kAll},
    NumberSpec{"NCCL_IB_SPLIT_DATA_ON_QPS", kAny, kAll},
    NumberSpec{"NCCL_IB_ECE_ENABLE", kAny, kAll},
    NumberSpec{"NCCL_OOB_NET_ENABLE", kAny, kAll},
    NumberSpec{"NCCL_IGNORE_DISABLED_P2P", kAny, kAll},
    NumberSpec{"NCCL_SET_THREAD_NAME", kAny, kAll},
};

bool spaces_only(const char* s) {
  while (*s == ' ' || *s == '\t' || *s == '\n') s++;
  return *s == 0;
}

// What NCCL makes of an out-of-range value.
std::string range_title(const NcclEnvItem& it, int64_t x, const NumberSpec& s) {
  if (it.name == "NCCL_NTHREADS")
    return fmt::format("NCCL_NTHREADS={} is not a multiple of 32 between 64 and 512: NCCL replaces it", x);
  return fmt::format("{}={} is outside {}..{}, the range NCCL uses it in", it.name, x, s.min, s.max);
}

}  // namespace

bool check_nccl_number(const NcclEnvItem& it) {
  const NumberSpec* spec = nullptr;
  for (const auto& s : kNumbers)
    if (it.name == s.name) spec = &s;
  if (!spec) return false;
  if (nccl_int_unparsed(it.value)) {
    add_finding(it, "nccl.setting_not_a_number", Severity::warn,
                fmt::format("{}=\"{}\" is not a number: NCCL reads it as 0", it.name, it.value),
                fmt::format("Set a number (NCCL parses {} with strtoll), or unset it", it.name));
    return true;
  }
  if (it.value.empty()) return true;
  char* end = nullptr;
  long long x = std::strtoll(it.value.c_str(), &end, 0);
  if (!spaces_only(end)) {
    add_finding(it, "nccl.setting_suffix_ignored", Severity::warn,
                fmt::format("{}=\"{}\": NCCL reads only the leading number, {}, and drops \"{}\"", it.name,
                            it.value, x, end),
                fmt::format("Write the plain number, e.g. {}={}", it.name,
                            std::string(end).rfind('M', 0) == 0   ? std::to_string(x << 20)
                            : std::string(end).rfind('K', 0) == 0 ? std::to_string(x << 10)
                                                                  : std::to_string(x)));
    return true;
  }
  bool nthreads_bad = it.name == "NCCL_NTHREADS" && x > 0 && x % 32 != 0;
  if (nthreads_bad || (x < spec->min && !(it.name == "NCCL_NTHREADS" && x <= 0)) || x > spec->max)
    add_finding(it, "nccl.setting_out_of_range", Severity::warn, range_title(it, x, *spec),
                fmt::format("Use a value in {}..{} (see NCCL's environment variable docs), or unset {}",
                            spec->min, spec->max, it.name));
  return true;
}

bool check_nccl_tune_list(const NcclEnvItem& it) {
  const bool algo = it.name == "NCCL_ALGO";
  if (!algo && it.name != "NCCL_PROTO") return false;
  const auto kind = algo ? nccl::TuneKind::algo : nccl::TuneKind::proto;
  const auto c = nccl::check_tune_list(it.value, kind, it.version);
  const std::string valid = join(nccl::nccl_tune_names(kind, it.version));
  const char* id = algo ? "nccl.algo.invalid" : "nccl.proto.invalid";
  const std::string what = algo ? "algorithm" : "protocol";
  if (!c.error.empty()) {
    add_finding(it, id, Severity::fail,
                fmt::format("{}=\"{}\": \"{}\" is not an NCCL {} or function; {} fails communicator "
                            "init (\"{}\")",
                            it.name, it.value, c.bad_token, what, nccl_named(it.version), c.error),
                fmt::format("Use {} from: {} (optionally \"^\" to exclude, \"allreduce:tree;...\" per "
                            "function), or unset {}",
                            algo ? "algorithms" : "protocols", valid, it.name));
  } else if (!c.ignored.empty()) {
    add_finding(
        it, id, Severity::warn,
        fmt::format("{}=\"{}\": NCCL {} silently ignores \"{}\"{}", it.name, it.value,
                    nccl_version_string(it.version), join(c.ignored, "\", \""),
                    c.per_function_syntax ? " (per-function \"func:list\" needs NCCL 2.24+)" : ""),
        fmt::format("Use {} from: {}, or unset {}", algo ? "algorithms" : "protocols", valid, it.name));
  } else if (!c.no_choice.empty()) {
    add_finding(it, algo ? "nccl.algo.none_left" : "nccl.proto.none_left", Severity::warn,
                fmt::format("{}=\"{}\" leaves {} without an {}: {} fails them with \"No "
                            "algorithm/protocol available\"",
                            it.name, it.value, join(c.no_choice), what, nccl_named(it.version)),
                algo ? "Keep Ring for the functions that have no other choice, e.g. "
                       "NCCL_ALGO=\"ring;allreduce:tree\" (Broadcast and Reduce run only Ring)"
                     : "Leave at least one protocol enabled for every function, or unset NCCL_PROTO");
  }
  return true;
}

bool check_nccl_level(const NcclEnvItem& it) {
  if (it.name != "NCCL_P2P_LEVEL" && it.name != "NCCL_NET_GDR_LEVEL" && it.name != "NCCL_P2P_PXN_LEVEL")
    return false;
  if (it.name == "NCCL_P2P_PXN_LEVEL") return true;  // an integer 0..2 in NCCL; nothing documented to check
  auto c = nccl::check_path_level(it.value);
  if (c.ok) return true;
  add_finding(it, "nccl.level.invalid", Severity::warn,
              fmt::format("{}=\"{}\" is not a path level NCCL knows{}: NCCL ignores it and picks its default",
                          it.name, it.value,
                          c.suggest.empty() ? "" : fmt::format(" (names are case-sensitive: {})", c.suggest)),
              fmt::format("export {}={}   (one of {}, or a legacy integer 0-4)", it.name,
                          c.suggest.empty() ? "PHB" : c.suggest, join(nccl::nccl_path_level_names())));
  return true;
}

bool check_nccl_debug(const NcclEnvItem& it) {
  if (it.name == "NCCL_DEBUG") {
    if (!it.value.empty() && !nccl::nccl_debug_level_known(it.value))
      it.out->push_back({"nccl.debug.invalid", Severity::info,
                         fmt::format("NCCL_DEBUG=\"{}\" is not a level NCCL knows ({}): NCCL prints no debug "
                                     "output",
                                     it.value, join(nccl::nccl_debug_levels())),
                         item_evidence(it), "export NCCL_DEBUG=INFO   (WARN for errors only)"});
    return true;
  }
  if (it.name != "NCCL_DEBUG_SUBSYS") return false;
  auto unknown = nccl::nccl_debug_subsys_unknown(it.value);
  if (!unknown.empty())
    it.out->push_back({"nccl.debug.invalid", Severity::info,
                       fmt::format("NCCL_DEBUG_SUBSYS=\"{}\": NCCL knows no subsystem \"{}\"", it.value,
                                   join(unknown, "\", \"")),
                       item_evidence(it), "Use INIT, COLL, P2P, SHM, NET, GRAPH, TUNING, ENV, ... or ALL"});
  return true;
}

}  // namespace dd::rules
