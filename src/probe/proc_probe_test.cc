// read_proc (and read_proc_stat, its stat-only part) on recorded /proc trees (a command name with spaces and
// parentheses) and on the real /proc (a sleeping child, a zombie, a missing pid); py_spy_dump with fake
// py-spy scripts on a temp PATH.
#include "probe/proc_probe.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

namespace dd::probe {
namespace {

using namespace std::chrono_literals;

class ProcProbe : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string t = std::string(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp") + "/dd_proc_XXXXXX";
    ASSERT_NE(mkdtemp(t.data()), nullptr);
    dir_ = t;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  void write_file(const std::string& rel, const std::string& text, mode_t mode = 0644) {
    std::string path = dir_ + "/" + rel;
    mkdir(path.substr(0, path.rfind('/')).c_str(), 0755);
    std::ofstream(path) << text;
    chmod(path.c_str(), mode);
  }
  std::string dir_;
};

TEST_F(ProcProbe, RecordedTreeWithAwkwardCommandName) {
  // comm "py (x) 1) S 9" would fool a parser that splits on the first ')' or on spaces.
  write_file("4242/stat",
             "4242 (py (x) 1) S 9) D 1 4242 4242 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 7 0 12345 1000 10 "
             "18446744073709551615 1 1 0 0 0 0 0 16781312 2 0 0 0 17 3 0 0 0 0 0\n");
  write_file("4242/wchan", "futex_wait_queue");
  ProcSnapshot s = read_proc(4242, dir_);
  ASSERT_TRUE(s.ok) << s.error;
  EXPECT_EQ(s.state, 'D');
  EXPECT_EQ(s.state_name, "D (disk sleep)");
  EXPECT_DOUBLE_EQ(s.cpu_s, 300.0 / double(sysconf(_SC_CLK_TCK)));
  EXPECT_EQ(s.threads, 7);
  EXPECT_EQ(s.wchan, "futex_wait_queue");
  EXPECT_FALSE(s.exiting);  // flags 4194304 (PF_RANDOMIZE) without PF_EXITING
  EXPECT_EQ(s.exit_status, -1);
  ProcSnapshot stat_only = read_proc_stat(4242, dir_);  // the same stat fields, no wchan read
  ASSERT_TRUE(stat_only.ok) << stat_only.error;
  EXPECT_EQ(stat_only.state_name, "D (disk sleep)");
  EXPECT_EQ(stat_only.threads, 7);
  EXPECT_EQ(stat_only.wchan, "");
}

// A SIGKILLed process whose main thread is still in the kernel's exit path (state D, PF_EXITING in the flags
// of field 9), as when a GPU driver frees its memory; field 52 already holds the status (9).
TEST_F(ProcProbe, RecordedExitingProcessShowsItsWaitStatus) {
  std::string fields_4_to_51;
  for (int f = 4; f <= 51; ++f) fields_4_to_51 += f == 9 ? " 4210756" : " 0";
  write_file("51/stat", "51 (python3) D" + fields_4_to_51 + " 9\n");
  ProcSnapshot s = read_proc(51, dir_);
  ASSERT_TRUE(s.ok) << s.error;
  EXPECT_TRUE(s.exiting);
  EXPECT_TRUE(WIFSIGNALED(s.exit_status));
  EXPECT_EQ(WTERMSIG(s.exit_status), SIGKILL);
  EXPECT_TRUE(read_proc_stat(51, dir_).exiting);  // what launch polls
  EXPECT_EQ(read_proc_stat(51, dir_).exit_status, s.exit_status);
  // The same line without PF_EXITING (4210752 = 4210756 - 4) is a live process: field 52 is not read.
  write_file("52/stat", "52 (python3) D" +
                            fields_4_to_51.replace(fields_4_to_51.find("4210756"), 7, "4210752") + " 9\n");
  EXPECT_FALSE(read_proc(52, dir_).exiting);
  EXPECT_EQ(read_proc(52, dir_).exit_status, -1);
}

TEST_F(ProcProbe, RecordedTreeWithoutWchanAndBrokenStat) {
  write_file("7/stat", "7 (sleep) S 1 7 7 0 -1 0 0 0 0 0 3 1 0 0 20 0 1 0 5 0 0\n");
  write_file("7/wchan", "0");
  ProcSnapshot s = read_proc(7, dir_);
  ASSERT_TRUE(s.ok) << s.error;
  EXPECT_EQ(s.state_name, "S (sleeping)");
  EXPECT_EQ(s.wchan, "");
  write_file("8/stat", "8 (cut");
  EXPECT_FALSE(read_proc(8, dir_).ok);
  ProcSnapshot missing = read_proc(9, dir_);
  EXPECT_FALSE(missing.ok);
  EXPECT_EQ(missing.error, "no such process");
}

TEST_F(ProcProbe, RealProcSleepingChildAndZombie) {
  pid_t kid = fork();
  ASSERT_GE(kid, 0);
  if (kid == 0) {
    pause();
    _exit(0);
  }
  ProcSnapshot s;
  for (int i = 0; i < 100 && s.state != 'S'; ++i) {  // until it reaches pause()
    std::this_thread::sleep_for(5ms);
    s = read_proc(kid);
  }
  EXPECT_TRUE(s.ok) << s.error;
  EXPECT_EQ(s.state_name, "S (sleeping)");
#ifdef __SANITIZE_THREAD__
  const int runtime_threads = 1;  // TSan restarts its background thread in a forked child (make test-tsan)
#else
  const int runtime_threads = 0;
#endif
  EXPECT_EQ(s.threads, 1 + runtime_threads);
  EXPECT_GE(s.cpu_s, 0);
  EXPECT_FALSE(s.exiting);
  kill(kid, SIGKILL);
  for (int i = 0; i < 100 && read_proc(kid).state != 'Z'; ++i) std::this_thread::sleep_for(5ms);
  ProcSnapshot z = read_proc(kid);
  EXPECT_EQ(z.state_name, "Z (zombie)");
  EXPECT_TRUE(z.exiting);
  EXPECT_TRUE(WIFSIGNALED(z.exit_status)) << z.exit_status;
  EXPECT_EQ(WTERMSIG(z.exit_status), SIGKILL);
  waitpid(kid, nullptr, 0);
  EXPECT_EQ(read_proc(kid).error, "no such process");
}

// A process whose main thread has ended while another thread runs on: Z, with the main thread's status,
// though waitpid cannot reap it yet. launch reads this to see a rank fail before its process is gone.
TEST_F(ProcProbe, RealProcMainThreadEndedWhileAThreadRuns) {
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  pid_t kid = fork();
  ASSERT_GE(kid, 0);
  if (kid == 0) {
    std::thread([fd = go[0]] {
      char c;
      (void)!read(fd, &c, 1);  // until the test has looked
      _exit(7);
    }).detach();
    syscall(SYS_exit, 7);  // this thread only
  }
  ProcSnapshot z;
  for (int i = 0; i < 200 && z.state != 'Z'; ++i) {
    std::this_thread::sleep_for(5ms);
    z = read_proc(kid);
  }
  EXPECT_TRUE(z.exiting);
  EXPECT_TRUE(WIFEXITED(z.exit_status)) << z.exit_status;
  EXPECT_EQ(WEXITSTATUS(z.exit_status), 7);
  int status = 0;
  EXPECT_EQ(waitpid(kid, &status, WNOHANG), 0);  // not reapable while its other thread runs
  (void)!write(go[1], "x", 1);
  EXPECT_EQ(waitpid(kid, &status, 0), kid);
  EXPECT_EQ(WEXITSTATUS(status), 7);
  close(go[0]);
  close(go[1]);
}

TEST_F(ProcProbe, RealProcStoppedChildNamesItsStopSignal) {
  pid_t kid = fork();
  ASSERT_GE(kid, 0);
  // Its own process group, whose parent (this test) is in another group of the session: not orphaned, so the
  // kernel does not discard SIGTSTP (it does for an orphaned group, as under ctest: this test was flaky).
  if (kid == 0) {
    setpgid(0, 0);
    for (;;) pause();
  }
  setpgid(kid, kid);
  auto wait_state = [&](char want) {
    ProcSnapshot s;
    for (int i = 0; i < 200 && s.state != want; ++i) {
      std::this_thread::sleep_for(5ms);
      s = read_proc(kid);
    }
    return s;
  };
  kill(kid, SIGSTOP);
  ProcSnapshot s = wait_state('T');
  EXPECT_EQ(s.state_name, "T (stopped)");
  EXPECT_EQ(s.stop_signal, SIGSTOP);
  kill(kid, SIGCONT);
  EXPECT_EQ(wait_state('S').stop_signal, 0);
  kill(kid, SIGTSTP);
  EXPECT_EQ(wait_state('T').stop_signal, SIGTSTP);
  kill(kid, SIGKILL);
  waitpid(kid, nullptr, 0);
}

TEST_F(ProcProbe, RecordedStoppedTreeReadsExitCodeField) {
  std::string stat = "5 (w) T 1 5 5 0 -1 0 0 0 0 0 3 1 0 0 20 0 1 0 5 0 0";
  for (int f = 25; f <= 51; ++f) stat += " 0";  // fields 25..51; the next one is 52 (exit_code)
  write_file("5/stat", stat + " 19\n");
  EXPECT_EQ(read_proc(5, dir_).stop_signal, SIGSTOP);
  write_file("6/stat", stat + " 0\n");  // the main thread did not take it: another thread did
  mkdir((dir_ + "/6/task").c_str(), 0755);
  write_file("6/task/6/stat", stat + " 0\n");
  write_file("6/task/61/stat", stat + " 20\n");
  EXPECT_EQ(read_proc(6, dir_).stop_signal, SIGTSTP);
}

TEST_F(ProcProbe, PySpyNotOnPath) {
  PyStack st = py_spy_dump(getpid(), dir_ + ":/nonexistent");
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.error, "py-spy not on PATH");
}

TEST_F(ProcProbe, PySpyFakeOutputsAndErrors) {
  write_file(
      "bin/py-spy",
      "#!/bin/sh\necho \"Process $3: python train.py ($1)\"\necho 'Thread 0x7f (idle): \"MainThread\"'\n"
      "echo '    all_reduce (torch/distributed.py:2050)'\n",
      0755);
  PyStack st = py_spy_dump(4242, "/nonexistent:" + dir_ + "/bin");
  ASSERT_TRUE(st.ok) << st.error;
  EXPECT_EQ(st.text,
            "Process 4242: python train.py (dump)\nThread 0x7f (idle): \"MainThread\"\n"
            "    all_reduce (torch/distributed.py:2050)\n");
  write_file("bin/py-spy", "#!/bin/sh\necho 'Error: Permission denied (os error 1)' >&2\nexit 1\n", 0755);
  st = py_spy_dump(4242, dir_ + "/bin");
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.error, "Error: Permission denied (os error 1)");
}

TEST_F(ProcProbe, PySpyPastItsDeadlineIsKilled) {
  write_file("bin/py-spy", "#!/bin/sh\necho partial\nsleep 30\necho never\n", 0755);
  auto t0 = std::chrono::steady_clock::now();
  PyStack st = py_spy_dump(4242, dir_ + "/bin", 300);
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.error, "py-spy timed out after 300 ms");
  EXPECT_EQ(st.text, "partial\n");
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 2s);
}

}  // namespace
}  // namespace dd::probe
