// find_strays names live children outside this process's group (not those inside it, not excluded ones, not
// zombies); stop_strays ends them, SIGKILL for one that ignores SIGTERM, and reaps them.
#include "process/strays.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace dd::process {
namespace {

using namespace std::chrono_literals;

pid_t child(bool own_session, bool ignore_term) {
  pid_t pid = ::fork();
  if (pid == 0) {
    if (own_session) ::setsid();
    if (ignore_term) ::signal(SIGTERM, SIG_IGN);
    ::execlp("sleep", "sleep", "300", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

bool found(const std::vector<Stray>& v, pid_t pid) {
  for (const auto& s : v)
    if (s.pid == pid) return true;
  return false;
}

TEST(Strays, ChildrenOutsideOurGroupAreNamedAndStopped) {
  pid_t outside = child(true, false), stubborn = child(true, true), inside = child(false, false);
  std::this_thread::sleep_for(200ms);  // setsid and exec done
  auto strays = find_strays();
  EXPECT_TRUE(found(strays, outside));
  EXPECT_TRUE(found(strays, stubborn));
  EXPECT_FALSE(found(strays, inside));  // in our own group: not a stray
  for (const auto& s : strays)
    if (s.pid == outside) EXPECT_EQ(s.command, "sleep 300");
  EXPECT_FALSE(found(find_strays({outside}), outside));  // excluded
  const auto t0 = std::chrono::steady_clock::now();
  stop_strays(strays, 300ms);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  EXPECT_TRUE(::kill(outside, 0) != 0 && errno == ESRCH) << "reaped";
  EXPECT_TRUE(::kill(stubborn, 0) != 0 && errno == ESRCH) << "killed after the grace and reaped";
  EXPECT_TRUE(find_strays().empty());
  ::kill(inside, SIGKILL);
  ::waitpid(inside, nullptr, 0);
}

}  // namespace
}  // namespace dd::process
