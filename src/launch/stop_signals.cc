// Signal counting for the launcher (see stop_signals.h): async-signal-safe handlers that only store numbers.
#include "launch/stop_signals.h"

#include <signal.h>

#include <atomic>
#include <iterator>

namespace dd::launch {

namespace {
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr int kForwardSignals[] = {SIGUSR1, SIGUSR2, SIGALRM};  // in signal-number order

std::atomic<int> g_first{0};
std::atomic<int> g_count{0};
std::atomic<int> g_forward[std::size(kForwardSignals)];  // per forwarded signal: arrivals not yet taken
static_assert(std::atomic<int>::is_always_lock_free, "the handlers may only touch lock-free atomics");

void on_stop(int sig) {
  int expected = 0;
  g_first.compare_exchange_strong(expected, sig);
  g_count.fetch_add(1);
}

void on_forward(int sig) {
  for (size_t i = 0; i < std::size(kForwardSignals); ++i)
    if (kForwardSignals[i] == sig) g_forward[i].fetch_add(1);
}

void install(int sig, void (*handler)(int)) {
  struct sigaction sa {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(sig, &sa, nullptr);
}
}  // namespace

void install_stop_signals() {
  for (int s : kStopSignals) install(s, on_stop);
  for (int s : kForwardSignals) install(s, on_forward);
  ::signal(SIGPIPE, SIG_IGN);
}

int stop_signal() { return g_first.load(); }
int stop_signal_count() { return g_count.load(); }

std::vector<int> take_forward_signals() {
  std::vector<int> out;
  for (size_t i = 0; i < std::size(kForwardSignals); ++i)
    if (g_forward[i].exchange(0) > 0) out.push_back(kForwardSignals[i]);
  return out;
}

void reset_stop_signals_for_tests() {
  for (int s : kStopSignals) ::signal(s, SIG_DFL);
  for (int s : kForwardSignals) ::signal(s, SIG_DFL);
  ::signal(SIGPIPE, SIG_DFL);
  g_first = 0;
  g_count = 0;
  for (auto& n : g_forward) n = 0;
}

}  // namespace dd::launch
