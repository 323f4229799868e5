// probe::find_strays names live descendants outside this process's group (not those inside it, not excluded
// ones, not zombies) and what is in the groups and sessions they made; process::stop_strays ends them,
// SIGKILL for one that ignores SIGTERM, scan after scan for one that changes its pid, and reaps them.
#include "probe/stray_children.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
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
  auto stopped = stop_strays([] { return find_strays(); }, 300ms);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  EXPECT_TRUE(found(stopped.found, outside));
  EXPECT_TRUE(found(stopped.found, stubborn));
  EXPECT_TRUE(stopped.left.empty());
  EXPECT_TRUE(::kill(outside, 0) != 0 && errno == ESRCH) << "reaped";
  EXPECT_TRUE(::kill(stubborn, 0) != 0 && errno == ESRCH) << "killed after the grace and reaped";
  EXPECT_TRUE(find_strays().empty());
  ::kill(inside, SIGKILL);
  ::waitpid(inside, nullptr, 0);
}

// A recorded /proc: pid 10 (us) has children 11 (own group), 12 (own session, name with spaces and a paren,
// no command line), 13 (a zombie outside the group) and 14 (outside, with a command); 15 is another's child.
TEST(Strays, RecordedProcTree) {
  std::string tmpl = ::testing::TempDir() + "dd-strays-XXXXXX";  // honours TEST_TMPDIR / TMPDIR
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
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

// Descendants, groups and sessions in a recorded /proc: we are 10 (group 10, session 1). 20 is our child in
// a session of its own and 21 its child; 30 was re-parented elsewhere but is in 20's session; 50 is in the
// group of a worker (77) whose leader is gone; 60 is our child in a group that is not the job's (99); 40 is
// another's, and 70 is a child of ours in our own group.
TEST(Strays, DescendantsAndTheGroupsAndSessionsTheyMade) {
  std::string tmpl = ::testing::TempDir() + "dd-strays-XXXXXX";  // honours TEST_TMPDIR / TMPDIR
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  const std::string root = tmpl;
  auto put = [&](const std::string& pid, const std::string& stat) {
    std::filesystem::create_directories(root + "/proc/" + pid);
    std::ofstream(root + "/proc/" + pid + "/stat") << stat;
  };
  put("10", "10 (launch) S 5 10 1 0");
  put("20", "20 (daemon) S 10 20 20 0");
  put("21", "21 (helper) S 20 20 20 0");
  put("30", "30 (moved) S 1 20 20 0");
  put("40", "40 (other) S 1 40 40 0");
  put("50", "50 (left) S 1 77 1 0");
  put("60", "60 (joined) S 10 99 1 0");
  put("70", "70 (ours) S 10 10 1 0");
  auto fs = make_real_fs(root);
  auto v = find_strays(*fs, 10, 10, {}, {77});
  std::vector<std::pair<pid_t, pid_t>> got;  // pid, group
  for (const auto& s : v) got.push_back({s.pid, s.group});
  EXPECT_EQ(got, (std::vector<std::pair<pid_t, pid_t>>{{20, 20}, {21, 20}, {30, 20}, {50, 77}, {60, 0}}));
  EXPECT_EQ(find_strays(*fs, 10, 10).size(), 4u) << "50 is the job's only by its group";
  std::filesystem::remove_all(root);
}

// A chain of processes that changes its pid every 2 ms, each in a session of its own, each exiting once its
// grandchild is in its own session (tests/launch/signals.py's hopper): ending the processes one scan finds
// and their groups misses the newest; stop_strays scans again until a scan finds nothing. We are a child
// subreaper meanwhile, as launch is, so the orphans come back to us.
void hop_chain() {
  ::signal(SIGPIPE, SIG_IGN);  // a parent killed before we tell it: carry on
  int up = -1;
  for (int generation = 0; generation < 20000; ++generation) {  // 40 s at most
    ::setsid();
    if (up >= 0) (void)!::write(up, "s", 1);
    ::usleep(2000);
    int p[2];
    if (::pipe(p) != 0) ::_exit(1);
    if (::fork() == 0) {
      ::close(p[0]);
      if (up >= 0) ::close(up);
      up = p[1];
      continue;
    }
    ::close(p[1]);
    char b;
    if (::read(p[0], &b, 1) == 1) {  // the child is in its own session; tell ours, wait for the grandchild
      if (up >= 0) (void)!::write(up, "g", 1);
      (void)!::read(p[0], &b, 1);
    }
    ::_exit(0);
  }
  ::_exit(0);
}

TEST(Strays, APidHoppingProcessIsStopped) {
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  pid_t first = ::fork();
  if (first == 0) hop_chain();
  ASSERT_GT(first, 0);
  std::this_thread::sleep_for(50ms);  // it hops
  auto stopped = stop_strays([] { return find_strays(); }, 100ms);
  EXPECT_GE(stopped.found.size() + stopped.more, 2u) << "never one process alone";
  EXPECT_TRUE(stopped.left.empty());
  EXPECT_TRUE(find_strays().empty()) << "nothing of it runs on";
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

}  // namespace
}  // namespace dd::probe
