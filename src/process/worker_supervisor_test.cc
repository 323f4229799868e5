// WorkerSupervisor with real /bin/sh workers: exit status and reap time, event lines, a program that cannot
// be run, no event pipe, the append-mode log, the signal mask, stop_all's first signal and SIGKILL, group
// leftovers, forward (a signal passed on to every group), and die_with_parent.
#include "process/worker_supervisor.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/test_files.h"

namespace dd::process {
namespace {

using namespace std::chrono_literals;

WorkerSpec sh(const std::string& script, const std::string& log = "") {
  WorkerSpec s;
  s.argv = {"/bin/sh", "-c", script};
  s.log_path = log;
  return s;
}

std::string temp_dir() {
  std::string t = std::string(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp") + "/dd_sup_XXXXXX";
  return mkdtemp(t.data()) ? t : "";
}

using test_files::slurp;

// True when pid no longer runs: gone, or a zombie waiting for its (new) parent.
bool not_running(pid_t pid) {
  std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return true;
  size_t paren = stat.rfind(')');
  return paren != std::string::npos && stat.size() > paren + 2 && stat[paren + 2] == 'Z';
}

bool watch_all(WorkerSupervisor& sup, std::vector<std::string>* lines = nullptr) {
  return sup.watch(
      std::chrono::steady_clock::now() + 10s,
      [&](int, const std::string& l) {
        if (lines) lines->push_back(l);
      },
      nullptr, nullptr);
}

// Workers let exit unwatched count as done at once; the next start waits until they are reaped (a run after
// run never overlaps the last run's workers still freeing their memory).
TEST(WorkerSupervisor, LetExitReturnsAtOnceAndTheNextStartWaitsForThem) {
  pid_t pid = -1;
  auto t0 = std::chrono::steady_clock::now();
  {
    WorkerSupervisor sup;
    ASSERT_TRUE(sup.start({sh("echo left >&3; exec 3>&-; sleep 1")}, {"PATH=/usr/bin:/bin"}));
    pid = sup.workers()[0].pid;
    std::vector<std::string> lines;
    sup.watch(
        std::chrono::steady_clock::now() + 5s, [&](int, const std::string& l) { lines.push_back(l); },
        nullptr, [&] { return !lines.empty(); });
    ASSERT_EQ(lines.size(), 1u);
    sup.let_exit();
    EXPECT_TRUE(sup.workers()[0].exited);
    EXPECT_TRUE(sup.workers()[0].let_exit);
    EXPECT_EQ(sup.workers()[0].wait_status, 0);
  }  // the destructor signals nothing: the worker still sleeps
  EXPECT_FALSE(not_running(pid));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 800ms);
  WorkerSupervisor next;
  ASSERT_TRUE(next.start({sh("exit 0")}, {"PATH=/usr/bin:/bin"}));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 950ms);  // it waited for the first worker's end
  EXPECT_TRUE(not_running(pid));
  EXPECT_TRUE(watch_all(next));
}

TEST(WorkerSupervisor, ExitStatusEventsAndReapTime) {
  WorkerSupervisor sup;
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(sup.start({sh("echo hello >&3; exit 3"), sh("sleep 0.3; kill -9 $$")}, {"PATH=/usr/bin:/bin"}));
  std::vector<std::string> lines;
  ASSERT_TRUE(watch_all(sup, &lines));
  ASSERT_EQ(lines, std::vector<std::string>{"hello"});
  const auto& w = sup.workers();
  EXPECT_EQ(describe_wait_status(w[0].wait_status), "exit status 3");
  EXPECT_EQ(describe_wait_status(w[1].wait_status), "killed by signal 9 (SIGKILL)");
  EXPECT_FALSE(w[0].killed_by_us);
  EXPECT_LT(w[0].ended, w[1].ended);
  EXPECT_GE(w[1].ended - t0, 250ms);
}

TEST(WorkerSupervisor, ProgramThatCannotRunIsAnError) {
  WorkerSupervisor sup;
  WorkerSpec s;
  s.argv = {"/nonexistent/dd-prog", "x"};
  auto st = sup.start({s}, {});
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message(), "cannot run /nonexistent/dd-prog: No such file or directory");
  EXPECT_TRUE(sup.workers().empty());
}

TEST(WorkerSupervisor, NoEventPipeAppendLogAndCleanSignalMask) {
  std::string dir = temp_dir();
  ASSERT_FALSE(dir.empty());
  // fd 3 of the worker is whatever this process has there (ctest may leave one open): no event pipe.
  char own3[256] = "none";
  ssize_t n3 = readlink("/proc/self/fd/3", own3, sizeof own3 - 1);
  if (n3 > 0) own3[n3] = 0;
  WorkerSpec s = sh(
      "echo \"fd3=$(readlink /proc/self/fd/3 || echo none)\"; grep -E '^(flags|SigBlk)' /proc/self/fdinfo/1 "
      "/proc/self/status; echo done",
      dir + "/w.log");
  s.event_fd = -1;
  sigset_t term, old;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  sigprocmask(SIG_BLOCK, &term, &old);  // the worker must not inherit this
  WorkerSupervisor sup;
  auto st = sup.start({s}, {"PATH=/usr/bin:/bin"});
  sigprocmask(SIG_SETMASK, &old, nullptr);
  ASSERT_TRUE(st) << st.error().message();
  EXPECT_EQ(sup.workers()[0].event_fd, -1);
  ASSERT_TRUE(watch_all(sup));
  std::string log = slurp(dir + "/w.log");
  EXPECT_NE(log.find(std::string("fd3=") + own3 + "\n"), std::string::npos) << log;
  EXPECT_NE(log.find("SigBlk:\t0000000000000000"), std::string::npos) << log;
  size_t f = log.find("flags:\t");
  ASSERT_NE(f, std::string::npos) << log;
  long flags = std::strtol(log.c_str() + f + 7, nullptr, 8);
  EXPECT_TRUE(flags & O_APPEND) << log;
  EXPECT_NE(log.find("done"), std::string::npos);
  std::system(("rm -rf " + dir).c_str());
}

TEST(WorkerSupervisor, StopAllFirstSignalThenKill) {
  WorkerSupervisor sup;
  ASSERT_TRUE(sup.start({sh("trap 'exit 5' INT; while :; do sleep 0.05; done"),
                         sh("trap '' TERM INT; while :; do sleep 0.05; done"), sh("exit 0")},
                        {"PATH=/usr/bin:/bin"}));
  std::this_thread::sleep_for(200ms);  // let the shells set their traps
  auto t0 = std::chrono::steady_clock::now();
  sup.stop_all(400ms, SIGINT);
  auto took = std::chrono::steady_clock::now() - t0;
  const auto& w = sup.workers();
  EXPECT_EQ(describe_wait_status(w[0].wait_status), "exit status 5");
  EXPECT_EQ(describe_wait_status(w[1].wait_status), "killed by signal 9 (SIGKILL)");
  EXPECT_TRUE(w[0].killed_by_us);
  EXPECT_TRUE(w[1].killed_by_us);
  EXPECT_GE(took, 400ms);
  EXPECT_LT(took, 3s);
  EXPECT_LE(w[0].ended, w[1].ended);
}

// forward: a scheduler's SIGUSR1 reaches each worker's whole group (the shell and its sleep); the workers end
// as they choose (here exit 6), not marked as stopped by us.
TEST(WorkerSupervisor, ForwardReachesEveryGroupWithoutStoppingIt) {
  WorkerSupervisor sup;
  const std::string script = "trap 'exit 6' USR1; echo ready >&3; while :; do sleep 0.05; done";
  ASSERT_TRUE(sup.start({sh(script), sh(script)}, {"PATH=/usr/bin:/bin"}));
  int ready = 0;  // each shell has set its trap once it says so
  sup.watch(
      std::chrono::steady_clock::now() + 5s, [&](int, const std::string&) { ++ready; }, nullptr,
      [&] { return ready == 2; });
  ASSERT_EQ(ready, 2);
  EXPECT_EQ(sup.forward(SIGUSR1), 2);
  ASSERT_TRUE(watch_all(sup));
  for (const auto& w : sup.workers()) {
    EXPECT_EQ(describe_wait_status(w.wait_status), "exit status 6");
    EXPECT_FALSE(w.killed_by_us);
  }
  sup.stop_all(100ms);
  EXPECT_EQ(sup.forward(SIGUSR1), 0) << "no group left to reach";
}

TEST(WorkerSupervisor, StopAllEndsWhatAReapedWorkerLeftInItsGroup) {
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);  // the orphaned sleep comes back to us, as in launch
  WorkerSupervisor sup;
  ASSERT_TRUE(sup.start({sh("sleep 100 & echo $! >&3; exit 0")}, {"PATH=/usr/bin:/bin"}));
  std::vector<std::string> lines;
  ASSERT_TRUE(watch_all(sup, &lines));
  ASSERT_EQ(lines.size(), 1u);
  pid_t left = std::atoi(lines[0].c_str());
  ASSERT_GT(left, 0);
  EXPECT_FALSE(not_running(left));
  auto t0 = std::chrono::steady_clock::now();
  sup.stop_all(2s);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);  // group seen empty: no wait for the grace
  prctl(PR_SET_CHILD_SUBREAPER, 0);
  EXPECT_FALSE(sup.workers()[0].killed_by_us);  // it had exited on its own
  for (int i = 0; i < 100 && !not_running(left); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(not_running(left));
}

TEST(WorkerSupervisor, DieWithParent) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  prctl(PR_SET_CHILD_SUBREAPER, 1);  // the orphaned worker comes back to us to be reaped
  pid_t parent = fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    WorkerSpec s;
    s.argv = {"/bin/sleep", "100"};
    s.die_with_parent = true;
    WorkerSupervisor sup;
    if (!sup.start({s}, {})) _exit(1);
    pid_t pid = sup.workers()[0].pid;
    if (write(p[1], &pid, sizeof pid) != sizeof pid) _exit(1);
    pause();
    _exit(0);
  }
  close(p[1]);
  pid_t worker = -1;
  ASSERT_EQ(read(p[0], &worker, sizeof worker), ssize_t(sizeof worker));
  close(p[0]);
  kill(parent, SIGKILL);
  waitpid(parent, nullptr, 0);
  int ws = 0;
  pid_t r = 0;
  for (int i = 0; i < 200 && r == 0; ++i) {
    r = waitpid(worker, &ws, WNOHANG);
    if (r == 0) std::this_thread::sleep_for(5ms);
  }
  prctl(PR_SET_CHILD_SUBREAPER, 0);
  if (r == 0) kill(worker, SIGKILL);
  ASSERT_EQ(r, worker);
  EXPECT_TRUE(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL);
}

}  // namespace
}  // namespace dd::process
