// The launcher's own signals: SIGINT, SIGTERM and SIGHUP are counted (the launch loop polls them and stops
// the job on every node; a second Ctrl-C skips the grace period); SIGPIPE is ignored (a closed terminal must
// not kill the launcher before it stops its workers).
#pragma once

namespace dd::launch {

// Installs the handlers (idempotent).
void install_stop_signals();
// The first stop signal received (0 = none) and how many arrived.
int stop_signal();
int stop_signal_count();
// Restores the default actions (workers are forked with defaults anyway: execve resets handlers).
void reset_stop_signals_for_tests();

}  // namespace dd::launch
