// probe::find_strays names live children outside this process's group (not those inside it, not excluded
// ones, not zombies); process::stop_strays ends them, SIGKILL for one that ignores SIGTERM, and reaps them.
#include "probe/stray_children.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace dd::probe {
using process::stop_strays;
using process::Stray;
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
  for (const auto& s : strays) {
    if (s.pid == outside) {
      EXPECT_EQ(s.command, "sleep 300");
    }
  }
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

// A recorded /proc: pid 10 (us) has children 11 (own group), 12 (own session, name with spaces and a paren,
// no command line), 13 (a zombie outside the group) and 14 (outside, with a command); 15 is another's child.
TEST(Strays, RecordedProcTree) {
  char tmpl[] = "/tmp/dd-strays-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string root = tmpl;
  auto put = [&](const std::string& pid, const std::string& stat, const std::string& cmd) {
    std::filesystem::create_directories(root + "/proc/" + pid);
    std::ofstream(root + "/proc/" + pid + "/stat") << stat;
    std::ofstream(root + "/proc/" + pid + "/cmdline", std::ios::binary) << cmd;
  };
  put("11", "11 (python) S 10 10 10 0", std::string("python\0a.py\0", 12));
  put("12", "12 (my (odd) job) S 10 12 12 0", "");
  put("13", "13 (gone) Z 10 13 13 0", "");
  put("14", "14 (sleep) S 10 14 14 0", std::string("sleep") + '\0' + "300" + '\0');
  put("15", "15 (other) S 1 15 15 0", "");
  std::filesystem::create_directories(root + "/proc/self");
  auto fs = make_real_fs(root);
  auto v = find_strays(*fs, 10, 10);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].pid, 12);
  EXPECT_EQ(v[0].command, "(my (odd) job)");
  EXPECT_EQ(v[1].pid, 14);
  EXPECT_EQ(v[1].command, "sleep 300");
  EXPECT_TRUE(find_strays(*fs, 10, 10, {12, 14}).empty());
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace dd::probe
