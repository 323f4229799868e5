// The launcher's own signals. SIGINT, SIGTERM and SIGHUP are counted (the launch loop polls them and stops
// the job on every node; one that arrives while a stop is under way, as a second Ctrl-C, skips the grace
// period). SIGUSR1, SIGUSR2 and SIGALRM, what a scheduler sends a job (Slurm's --signal=USR1@T asks for a
// checkpoint), are counted too and passed on to every worker's process group by the launch loop: they never
// end the launcher, the job's outcome is what the workers do with them. SIGPIPE is ignored (a closed terminal
// must not kill the launcher before it stops its workers). The handlers only add to lock-free atomics.
#pragma once
#include <vector>

namespace dd::launch {

// Installs the handlers (idempotent).
void install_stop_signals();
// The first stop signal received (0 = none) and how many arrived.
int stop_signal();
int stop_signal_count();
// The signals to pass on (SIGUSR1, SIGUSR2, SIGALRM) that arrived since the last call, each named once
// however often it came (the kernel merges a pending signal the same way), in signal-number order.
std::vector<int> take_forward_signals();
// Restores the default actions (workers are forked with defaults anyway: execve resets handlers).
void reset_stop_signals_for_tests();

}  // namespace dd::launch
