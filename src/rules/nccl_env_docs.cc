// The long form of every finding the NCCL settings rule (nccl_env.cc) emits: `distdoctor explain ID`.
#include "rules/node_rules.h"

namespace dd::rules {

std::vector<FindingDoc> nccl_env_docs() {
  return {
      {"nccl.env.ok", "NCCL settings valid",
       "Every NCCL_* variable in effect (environment, NCCL_CONF_FILE, ~/.nccl.conf, /etc/nccl.conf) whose "
       "grammar NCCL documents was read the way NCCL reads it, for the NCCL version this node loads, and "
       "means something to NCCL."},
      {"nccl.algo.invalid", "NCCL_ALGO names an algorithm NCCL does not know",
       "NCCL_ALGO is a comma list of algorithms (Ring, Tree; CollNetDirect and CollNetChain from 2.14, NVLS "
       "2.17, NVLSTree 2.18, PAT 2.23; case-insensitive), '^' to exclude. From NCCL 2.24 the list may be "
       "given per function (\"ring;allreduce:tree\") and an unknown token makes communicator init fail "
       "with ncclInvalidUsage (\"Unrecognized element token\"), which a job reports only as a generic NCCL "
       "error. Before 2.24 NCCL silently ignores unknown tokens, including the per-function syntax."},
      {"nccl.proto.invalid", "NCCL_PROTO names a protocol NCCL does not know",
       "NCCL_PROTO is a comma list of LL, LL128 and Simple (case-insensitive), '^' to exclude, per function "
       "from NCCL 2.24. From 2.24 an unknown token fails communicator init; before, it is ignored."},
      {"nccl.algo.none_left", "NCCL_ALGO leaves a collective without an algorithm",
       "From NCCL 2.24 NCCL no longer falls back to Ring: a function whose allowed algorithms are all "
       "excluded fails with \"No algorithm/protocol available for function ...\" (ncclInvalidUsage). "
       "Broadcast and Reduce run only Ring; AllGather and ReduceScatter Ring, PAT, NVLS or CollNetDirect; "
       "so NCCL_ALGO=Tree breaks every broadcast (PyTorch DDP broadcasts the model at start)."},
      {"nccl.proto.none_left", "NCCL_PROTO leaves a collective without a protocol",
       "The value excludes every protocol for some function; NCCL fails those collectives with \"No "
       "algorithm/protocol available\"."},
      {"nccl.net.unknown", "NCCL_NET names no network NCCL has",
       "NCCL_NET must name, case-insensitively, a network NCCL has: its own \"IB\" (verbs: InfiniBand and "
       "RoCE) or \"Socket\" (TCP), or the name an external net plugin reports. Any other name fails "
       "communicator init. With NCCL_NET_PLUGIN set this is only info: the plugin may provide the name."},
      {"nccl.net.ib_unavailable", "NCCL_NET=IB where IB cannot work",
       "NCCL_NET=IB forces NCCL's IB transport and forbids the fallback to sockets. On a node without an "
       "InfiniBand/RoCE device, with every port down, with NCCL_IB_DISABLE=1, or with NCCL_IB_HCA selecting "
       "no active port, the IB transport does not initialise and NCCL fails init (\"Failed to initialize "
       "any NET plugin\", before 2.27 \"Error: network IB not found\")."},
      {"nccl.setting_suffix_ignored", "An NCCL number has a unit or suffix",
       "NCCL reads numeric settings with strtoll and stops at the first character that is not a digit: "
       "NCCL_BUFFSIZE set to 4M is 4 bytes, 1e6 is 1, 1.5 is 1. Write plain numbers (bytes for sizes)."},
      {"nccl.setting_out_of_range", "An NCCL number is outside its range",
       "The value is outside the range NCCL documents (NCCL_NTHREADS a multiple of 32 in 64..512, channels "
       "and CTAs 1..64, NCCL_SOCKET_NTHREADS 1..16, NCCL_NSOCKS_PERTHREAD 1..64, NCCL_IB_RETRY_CNT 0..7, "
       "NCCL_IB_SL 0..15, NCCL_IB_TIMEOUT 0..31, ...). NCCL clamps it, replaces it or fails later."},
      {"nccl.level.invalid", "NCCL path level not recognised",
       "NCCL_P2P_LEVEL and NCCL_NET_GDR_LEVEL take LOC, NVL, PIX, PXB, PHB or SYS (also NVB, C2C, P2C, PXN), "
       "compared case-sensitively, or a legacy integer. Anything else is ignored and NCCL picks its own "
       "level, so the setting silently does nothing."},
      {"nccl.debug.invalid", "NCCL_DEBUG / NCCL_DEBUG_SUBSYS not recognised",
       "NCCL_DEBUG takes VERSION, WARN, INFO, ABORT or TRACE; any other value gives no debug output at all "
       "(NCCL_DEBUG set to 1 prints nothing). NCCL_DEBUG_SUBSYS is a comma list of subsystems (INIT, COLL, "
       "P2P, "
       "SHM, NET, GRAPH, TUNING, ENV, ALLOC, CALL, PROXY, NVLS, BOOTSTRAP, REG, PROFILE, RAS, ALL)."},
      {"nccl.if_list.syntax", "NCCL interface/HCA list malformed",
       "NCCL_IB_HCA and NCCL_OOB_NET_IFNAME use NCCL's list grammar ('^' excludes, '=' exact, comma list of "
       "name prefixes, :PORT). NCCL matches names only, keeps at most 32 HCAs / 16 interfaces and copies "
       "each entry into a 64-byte buffer."},
      {"nccl.env.typo", "An NCCL_* variable that NCCL does not read, close to one it does",
       "NCCL reads only the names it knows; a misspelt one (NCCL_SOCKET_IFNAMES, NCCL_IB_HCAS, NCCL_DEBG) "
       "is silently ignored, so the setting the job relies on is not in effect. The closest name NCCL "
       "reads is given."},
      {"nccl.env.unknown_name", "An NCCL_* variable NCCL does not read",
       "No NCCL release from 2.12 to 2.30 reads this name, or NCCL stopped reading it. Net plugins and other "
       "tools read their own NCCL_* names (NCCL_SHARP_*, NCCL_TESTS_*...); those are not reported."},
  };
}

}  // namespace dd::rules
