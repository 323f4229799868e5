// OrphanGuard with real processes: a "launcher" child starts a guard and a `sleep 100` in its own process
// group, registers the group, and is SIGKILLed: the sleep must die within 1 s. Dismissed or forgotten
// groups are left alone. This test process is a child subreaper meanwhile, so the orphans come back to it to
// be reaped.
#include "process/orphan_guard.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "probe/self_probe.h"

namespace dd::process {
namespace {

using namespace std::chrono_literals;

pid_t spawn_sleep_in_own_group() {
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    execl("/bin/sleep", "sleep", "100", (char*)nullptr);
    _exit(127);
  }
  setpgid(pid, pid);
  return pid;
}

enum class LauncherEnd { killed, dismissed, forgot_then_killed };

struct Pids {
  pid_t guard = -1, sleeper = -1;
};

// Forks a launcher that does its part and then waits to be killed; returns the pids it reported.
pid_t run_launcher(LauncherEnd end, Pids& pids) {
  int p[2];
  if (pipe(p) != 0) return -1;
  pid_t launcher = fork();
  if (launcher == 0) {
    close(p[0]);
    auto guard = OrphanGuard::start();
    if (!guard) _exit(1);
    Pids mine{(*guard)->pid(), spawn_sleep_in_own_group()};
    (*guard)->watch_group(mine.sleeper);
    if (end == LauncherEnd::forgot_then_killed) (*guard)->forget_group(mine.sleeper);
    if (end == LauncherEnd::dismissed) (*guard)->dismiss();
    if (write(p[1], &mine, sizeof mine) != sizeof mine) _exit(1);
    pause();
    _exit(0);
  }
  close(p[1]);
  if (read(p[0], &pids, sizeof pids) != sizeof pids) pids = {};
  close(p[0]);
  return launcher;
}

// Reaps pid (an orphan re-parented to us) within the time limit; its wait status, or -1.
int reap_within(pid_t pid, std::chrono::milliseconds limit) {
  auto until = std::chrono::steady_clock::now() + limit;
  int ws = 0;
  while (std::chrono::steady_clock::now() < until) {
    if (waitpid(pid, &ws, WNOHANG) == pid) return ws;
    std::this_thread::sleep_for(2ms);
  }
  return -1;
}

// /proc/WHAT, whole ("" when unreadable).
std::string slurp_proc(const std::string& what) {
  std::string out;
  if (FILE* f = fopen(("/proc/" + what).c_str(), "rb")) {
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
    fclose(f);
  }
  return out;
}

class OrphanGuardTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0); }
  void TearDown() override {
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    for (pid_t p : {pids_.sleeper, pids_.guard})
      if (p > 0 && kill(p, SIGKILL) == 0) waitpid(p, nullptr, 0);
  }
  void kill_launcher(pid_t launcher) {
    ASSERT_GT(launcher, 0);
    ASSERT_GT(pids_.sleeper, 0);
    ASSERT_EQ(kill(launcher, SIGKILL), 0);
    ASSERT_EQ(waitpid(launcher, nullptr, 0), launcher);
  }
  Pids pids_;
};

TEST_F(OrphanGuardTest, LauncherKilledTakesItsGroupsWithIt) {
  pid_t launcher = run_launcher(LauncherEnd::killed, pids_);
  kill_launcher(launcher);
  int ws = reap_within(pids_.sleeper, 1s);
  ASSERT_NE(ws, -1) << "the sleep outlived its launcher by 1 s";
  EXPECT_TRUE(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL);
  EXPECT_NE(reap_within(pids_.guard, 1s), -1);  // the guard exits after its work
  pids_ = {};
}

TEST_F(OrphanGuardTest, DismissedGuardKillsNothing) {
  pid_t launcher = run_launcher(LauncherEnd::dismissed, pids_);
  kill_launcher(launcher);
  EXPECT_EQ(reap_within(pids_.sleeper, 300ms), -1);
  EXPECT_EQ(kill(pids_.sleeper, 0), 0);  // still running
  pids_.guard = -1;                      // reaped by the launcher's dismiss()
}

TEST_F(OrphanGuardTest, ForgottenGroupIsLeftAlone) {
  pid_t launcher = run_launcher(LauncherEnd::forgot_then_killed, pids_);
  kill_launcher(launcher);
  EXPECT_NE(reap_within(pids_.guard, 1s), -1);
  EXPECT_EQ(kill(pids_.sleeper, 0), 0);
  pids_.guard = -1;
}

TEST_F(OrphanGuardTest, GuardHoldsOnlyItsSocketAndIgnoresTerm) {
  auto guard = OrphanGuard::start();
  ASSERT_TRUE(guard);
  pid_t pid = (*guard)->pid();
  std::this_thread::sleep_for(50ms);  // let it close its fds
  int fds = 0;
  if (DIR* d = opendir(("/proc/" + std::to_string(pid) + "/fd").c_str())) {
    while (dirent* e = readdir(d)) fds += e->d_name[0] != '.';
    closedir(d);
  }
  EXPECT_EQ(fds, 1);
  kill(pid, SIGTERM);
  kill(pid, SIGINT);
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), 0);  // still there
  (*guard)->dismiss();
  EXPECT_EQ(kill(pid, 0), -1);  // reaped by dismiss
}

// The signals a scheduler sends a job (Slurm signals every process of a step) do not end the guard, and it
// goes by its own name: its command name, and the command line in the argument area it was given (its copy
// of ours; ours stays), so that a kill by the launcher's name (killall, pkill -f) misses it.
TEST_F(OrphanGuardTest, GuardIgnoresSchedulerSignalsAndDropsTheLaunchersNames) {
  const std::string own_cmdline = slurp_proc("self/cmdline");
  const probe::ArgumentArea args = probe::read_argument_area();
  ASSERT_NE(args.start, nullptr);
  ASSERT_EQ(std::string(args.start, args.size), own_cmdline);
  auto guard = OrphanGuard::start(args.start, args.size);
  ASSERT_TRUE(guard);
  const std::string at = std::to_string((*guard)->pid());
  std::string comm;
  for (int i = 0; i < 100 && comm != "dd-orphan-guard\n"; ++i, std::this_thread::sleep_for(5ms))
    comm = slurp_proc(at + "/comm");
  EXPECT_EQ(comm, "dd-orphan-guard\n");
  const std::string cmdline = slurp_proc(at + "/cmdline");
  EXPECT_EQ(cmdline.substr(0, 16), std::string("dd-orphan-guard\0", 16));
  EXPECT_EQ(cmdline.find_first_not_of('\0', 16), std::string::npos) << "nothing of ours after the name";
  EXPECT_EQ(slurp_proc("self/cmdline"), own_cmdline);
  for (int s : {SIGUSR1, SIGUSR2, SIGALRM, SIGQUIT}) kill((*guard)->pid(), s);
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(waitpid((*guard)->pid(), nullptr, WNOHANG), 0);  // still there
  const pid_t pid = (*guard)->pid();
  (*guard)->dismiss();
  EXPECT_EQ(kill(pid, 0), -1);
}

// A launcher that registered a run directory (files and a subdirectory) and is SIGKILLed: the guard removes
// the directory; a dismissed guard leaves it alone.
TEST_F(OrphanGuardTest, LauncherKilledLeavesNoRunDirectory) {
  for (bool dismiss : {false, true}) {
    std::string dir = ::testing::TempDir() + "/dd-guard-XXXXXX";
    ASSERT_NE(mkdtemp(dir.data()), nullptr);
    ASSERT_EQ(mkdir((dir + "/store").c_str(), 0700), 0);
    for (const char* f : {"/plan.json", "/store/key", "/worker.0.log"}) fclose(fopen((dir + f).c_str(), "w"));
    pid_t launcher = fork();
    if (launcher == 0) {
      auto guard = OrphanGuard::start();
      if (!guard) _exit(1);
      (*guard)->watch_dir(dir);
      if (dismiss) (*guard)->dismiss();
      pause();
      _exit(0);
    }
    std::this_thread::sleep_for(100ms);
    ASSERT_EQ(kill(launcher, SIGKILL), 0);
    ASSERT_EQ(waitpid(launcher, nullptr, 0), launcher);
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i, std::this_thread::sleep_for(10ms))
      gone = access(dir.c_str(), F_OK) != 0;
    EXPECT_EQ(gone, !dismiss) << dir;
    if (!gone) std::system(("rm -rf '" + dir + "'").c_str());
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
  }
}

}  // namespace
}  // namespace dd::process
