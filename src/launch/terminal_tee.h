// Which ranks' output `distdoctor launch` shows on the terminal (--tee) and the prefix each of their lines
// gets there: "[rank3]: " (PyTorch's own form; the global rank, also with several nodes). The rank's log file
// keeps its lines unprefixed. Pure.
#pragma once
#include <string>
#include <string_view>

namespace dd::launch {

// --tee's default: every rank, as torchrun shows them.
inline constexpr std::string_view kTeeDefault = "all";

// "[rank3]: " for global rank 3.
std::string rank_prefix(int rank);
// --tee's value ("all", "none", a rank) shows this global rank's lines.
bool tee_shows(std::string_view tee, int rank);
// "[scheduler]: " for a convention's companion process (not a rank: MindSpore's scheduler).
std::string companion_prefix(std::string_view role);
// --tee's value shows a companion process's lines (only "all": it has no rank).
bool tee_shows_companion(std::string_view tee);

}  // namespace dd::launch
