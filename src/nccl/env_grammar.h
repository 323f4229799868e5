// NCCL's grammar for its non-numeric settings, modelled on NCCL's parsers: NCCL_ALGO and NCCL_PROTO
// (parseList in src/graph/tuning.cc: before 2.24 a '^'-able comma list whose unknown tokens are ignored;
// from 2.24 "[func:]list;func:list" whose unknown tokens fail the init), the path levels of NCCL_P2P_LEVEL
// and NCCL_NET_GDR_LEVEL (ncclGetLevel in src/graph/paths.cc: exact, case-sensitive names or a legacy
// integer), NCCL_DEBUG and NCCL_DEBUG_SUBSYS (src/debug.cc).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace dd::nccl {

enum class TuneKind { algo, proto };

// Names NCCL of that version accepts (version_code 22809; <= 0: the newest), in NCCL's spelling.
std::vector<std::string> nccl_tune_names(TuneKind kind, int version_code);
// The collective functions NCCL_ALGO/NCCL_PROTO may name from 2.24 ("Broadcast", ..., "AllReduce").
const std::vector<std::string>& nccl_tune_functions();

struct TuneListCheck {
  bool per_function_syntax = false;    // the value uses "func:" or ';' (NCCL >= 2.24 grammar)
  std::string error;                   // >= 2.24: NCCL's WARN when it rejects the value (init fails); else ""
  std::string bad_token;               // the token NCCL rejects or ignores
  std::vector<std::string> ignored;    // < 2.24: tokens NCCL silently ignores
  std::vector<std::string> no_choice;  // >= 2.24: functions left with no usable algorithm/protocol
};

TuneListCheck check_tune_list(std::string_view value, TuneKind kind, int version_code);

// NCCL_P2P_LEVEL / NCCL_NET_GDR_LEVEL. ok: NCCL uses the value; otherwise NCCL ignores it and picks its
// default. `suggest`: the name it likely meant ("PXB" for "pxb"), or "".
struct PathLevelCheck {
  bool ok = false;
  std::string suggest;
};
PathLevelCheck check_path_level(std::string_view value);
const std::vector<std::string>& nccl_path_level_names();  // LOC NVL ... SYS

// NCCL_DEBUG: a level NCCL knows (case-insensitive)?
bool nccl_debug_level_known(std::string_view value);
const std::vector<std::string>& nccl_debug_levels();
// NCCL_DEBUG_SUBSYS: the tokens NCCL does not know (each may start with '^').
std::vector<std::string> nccl_debug_subsys_unknown(std::string_view value);

}  // namespace dd::nccl
