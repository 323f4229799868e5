// Signal counting for the launcher (see stop_signals.h): async-signal-safe handlers that only store numbers.
#include "launch/stop_signals.h"

#include <signal.h>

#include <atomic>

namespace dd::launch {

namespace {
std::atomic<int> g_first{0};
std::atomic<int> g_count{0};

void on_signal(int sig) {
  int expected = 0;
  g_first.compare_exchange_strong(expected, sig);
  g_count.fetch_add(1);
}
}  // namespace

void install_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int s : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(s, &sa, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
}

int stop_signal() { return g_first.load(); }
int stop_signal_count() { return g_count.load(); }

void reset_stop_signals_for_tests() {
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(s, SIG_DFL);
  g_first = 0;
  g_count = 0;
}

}  // namespace dd::launch
