// signal_name.h: names from numbers and back, unknown ones said as such.
#include "common/signal_name.h"

#include <gtest/gtest.h>

#include <csignal>
#include <utility>

namespace dd {
namespace {

TEST(SignalName, NamesAndNumbers) {
  EXPECT_EQ(signal_name(SIGKILL), "SIGKILL");
  EXPECT_EQ(signal_abbrev(SIGTERM), "SIGTERM");
  EXPECT_EQ(signal_name(0), "signal 0");
  EXPECT_EQ(signal_name(77), "signal 77");
  EXPECT_EQ(signal_abbrev(-9), "");
  EXPECT_EQ(signal_number("SIGINT"), SIGINT);
  EXPECT_EQ(signal_number("TERM"), SIGTERM);
  EXPECT_EQ(signal_number("SIG"), 0);
  EXPECT_EQ(signal_number("SIGNOPE"), 0);
  EXPECT_EQ(signal_number(""), 0);
}

// The table is glibc's (sigabbrev_np, which the portable build cannot call: glibc 2.32+): each standard
// signal by its <csignal> number, the real-time ones unnamed.
TEST(SignalName, TableIsTheStandardSignals) {
  const std::pair<int, const char*> named[] = {
      {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},       {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
      {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"},     {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
      {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"},     {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
      {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"},     {SIGTERM, "SIGTERM"}, {SIGSTKFLT, "SIGSTKFLT"},
      {SIGCHLD, "SIGCHLD"}, {SIGCONT, "SIGCONT"},     {SIGSTOP, "SIGSTOP"}, {SIGTSTP, "SIGTSTP"},
      {SIGTTIN, "SIGTTIN"}, {SIGTTOU, "SIGTTOU"},     {SIGURG, "SIGURG"},   {SIGXCPU, "SIGXCPU"},
      {SIGXFSZ, "SIGXFSZ"}, {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGWINCH, "SIGWINCH"},
      {SIGPOLL, "SIGPOLL"}, {SIGPWR, "SIGPWR"},       {SIGSYS, "SIGSYS"}};
  for (auto [number, name] : named) {
    EXPECT_EQ(signal_name(number), name);
    EXPECT_EQ(signal_number(name), number) << name;
  }
  EXPECT_EQ(signal_number("SIGIO"), 0);  // glibc names 29 SIGPOLL only
  for (int rt = 32; rt <= 64; ++rt) EXPECT_EQ(signal_abbrev(rt), "") << rt;
}

}  // namespace
}  // namespace dd
