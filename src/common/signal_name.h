// Signal names as reports print them ("SIGTERM"), and back: the one place that turns a signal number into
// text, for the supervisor, launch and logs reports.
#pragma once
#include <string>
#include <string_view>

namespace dd {

// "SIGKILL"; empty when the number has no name.
std::string signal_abbrev(int sig);

// "SIGKILL"; "signal 77" when the number has no name.
std::string signal_name(int sig);

// 15 for "SIGTERM" or "TERM"; 0 when the text names no signal.
int signal_number(std::string_view name);

}  // namespace dd
