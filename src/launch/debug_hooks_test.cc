// debug_hook_env(), the stack file's markers and the hook's modes under umask 002; the hook file itself is
// run by a real Python in tests/launch_hang_test.sh.
#include "launch/debug_hooks.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "common/test_files.h"

namespace dd::launch {
namespace {

std::map<std::string, std::string> hook_env_map(const EnvPairs& e) { return {e.begin(), e.end()}; }

TEST(DebugHooks, FlightRecorderAndStackHookByDefault) {
  auto p = debug_hook_paths("logs/job/0");
  auto env = hook_env_map(debug_hook_env(p, {}, 1, 5, {"PATH=/usr/bin", "PYTHONPATH=src:lib"}));
  EXPECT_EQ(env["TORCH_FR_BUFFER_SIZE"], "2000");
  EXPECT_EQ(env["TORCH_NCCL_DUMP_ON_TIMEOUT"], "1");
  EXPECT_EQ(env["TORCH_NCCL_ENABLE_TIMING"], "1") << "GPU times: how a rank whose GPU is late is found";
  EXPECT_EQ(env["TORCH_FR_DUMP_TEMP_FILE"], "logs/job/0/flight_recorder/rank");
  EXPECT_EQ(env.count("TORCH_NCCL_DEBUG_INFO_PIPE_FILE"), 0u) << "PyTorch's own on-demand dump is not used";
  EXPECT_EQ(env["DISTDOCTOR_FR_REQUEST"], "logs/job/0/flight_recorder/request_5.fifo");
  EXPECT_EQ(env["DISTDOCTOR_FR_DUMP"], "logs/job/0/flight_recorder/asked_rank5");
  EXPECT_EQ(env["DISTDOCTOR_FR_EXIT"], "logs/job/0/flight_recorder/exit_rank5");
  EXPECT_EQ(env["PYTHONPATH"], "logs/job/0/.pyhooks:src:lib");
  EXPECT_EQ(env["DISTDOCTOR_STACK_FILE"], "logs/job/0/stacks/node1.rank5.txt");
  EXPECT_EQ(fr_dump_path(p, {}, 5, {}), "logs/job/0/flight_recorder/rank5");
  EXPECT_EQ(fr_request_path(p, {}, 5, {}), "logs/job/0/flight_recorder/request_5.fifo");
  EXPECT_EQ(fr_asked_path(p, {}, 5, {}), "logs/job/0/flight_recorder/asked_rank5");
  EXPECT_EQ(fr_exit_path(p, {}, 5, {}), "logs/job/0/flight_recorder/exit_rank5");
}

TEST(DebugHooks, TheUsersSettingsWin) {
  auto p = debug_hook_paths("d");
  const std::vector<std::string> base = {"TORCH_NCCL_TRACE_BUFFER_SIZE=500", "TORCH_FR_DUMP_TEMP_FILE=/x/fr_",
                                         "TORCH_NCCL_ENABLE_TIMING=0"};
  auto env = hook_env_map(debug_hook_env(p, {}, 0, 2, base));
  EXPECT_EQ(env.count("TORCH_FR_BUFFER_SIZE"), 0u) << "the user sized it under the older name";
  EXPECT_EQ(env.count("TORCH_FR_DUMP_TEMP_FILE"), 0u);
  EXPECT_EQ(env.count("TORCH_NCCL_ENABLE_TIMING"), 0u) << "the user turned NCCL timing off";
  EXPECT_EQ(env["TORCH_NCCL_DUMP_ON_TIMEOUT"], "1");
  EXPECT_EQ(fr_dump_path(p, {}, 2, base), "/x/fr_2");
  auto off = hook_env_map(debug_hook_env(p, {}, 0, 2, {"TORCH_FR_BUFFER_SIZE=0"}));
  EXPECT_EQ(off.count("TORCH_NCCL_DUMP_ON_TIMEOUT"), 0u) << "the user turned it off";
  EXPECT_EQ(off.count("PYTHONPATH"), 1u) << "the stack hook does not need the Flight Recorder";
  EXPECT_EQ(fr_dump_path(p, {}, 2, {"TORCH_FR_BUFFER_SIZE=0"}), "");
  DebugHookOptions no;
  no.flight_recorder = false;
  EXPECT_TRUE(debug_hook_env(p, no, 0, 2, {}).empty());
  EXPECT_EQ(fr_request_path(p, no, 2, {}), "");
  EXPECT_EQ(fr_exit_path(p, {}, 2, {"TORCH_FR_BUFFER_SIZE=0"}), "") << "no recorder, no exit dump";
  EXPECT_EQ(off.count("DISTDOCTOR_FR_REQUEST"), 0u);
}

TEST(DebugHooks, MarkersAndTheLastDump) {
  const std::string text =
      "# distdoctor: stack hook pid 4242\n"
      "# distdoctor: stack hook pid 4300\n"
      "Current thread 0x1 (most recent call first):\n  File \"a.py\", line 3 in <module>\n"
      "# distdoctor: stacks requested\n"
      "Current thread 0x1 (most recent call first):\n  File \"a.py\", line 9 in <module>\n";
  EXPECT_EQ(stack_hook_pids(text), (std::vector<int>{4242, 4300}));
  EXPECT_EQ(last_stack_dump(text),
            "Current thread 0x1 (most recent call first):\n  File \"a.py\", line 9 in <module>\n");
  EXPECT_TRUE(stack_hook_pids("x # distdoctor: stack hook pid 7\n").empty()) << "a marker starts a line";
  const std::string two =
      "# distdoctor: stacks requested\n"
      "Thread 0x2 (most recent call first):\n  File \"d/.pyhooks/sitecustomize.py\", line 44 in serve\n"
      "  File \"threading.py\", line 982 in run\n\n"
      "Current thread 0x1 (most recent call first):\n  File \"a.py\", line 9 in <module>\n";
  EXPECT_EQ(answered_stack(two),
            "Current thread 0x1 (most recent call first):\n  File \"a.py\", line 9 in <module>\n")
      << "the hook's own thread is launch's, not the job's";
}

mode_t hook_mode(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? st.st_mode & 07777 : 0;
}

TEST(DebugHooks, TheHookIsTheOwnersAloneWhateverTheUmask) {
  test_files::ScratchDir d;
  const auto p = debug_hook_paths(d.path.string());
  const mode_t old = ::umask(002);
  const Status written = write_debug_hooks(p);
  ::umask(old);
  ASSERT_TRUE(written.ok()) << written.error().message();
  EXPECT_EQ(hook_mode(p.site_dir), 0700u);
  EXPECT_EQ(hook_mode(p.site_dir + "/sitecustomize.py"), 0600u);
  EXPECT_EQ(hook_mode(d / "stacks"), 0755u);
  EXPECT_EQ(hook_mode(d / "flight_recorder"), 0755u);
  // A link planted where the hook goes is refused, and its target is not written.
  std::filesystem::remove(p.site_dir + "/sitecustomize.py");
  std::filesystem::create_symlink(d / "elsewhere.py", p.site_dir + "/sitecustomize.py");
  EXPECT_FALSE(write_debug_hooks(p).ok());
  EXPECT_FALSE(std::filesystem::exists(d / "elsewhere.py"));
}

// The "stacks requested" note goes only into the stack file the hook made: never through a link planted in
// its place, never into a file it makes itself; the request FIFO replaces what an earlier run left.
TEST(DebugHooks, TheStackNoteAndTheFifoStayInTheirOwnFiles) {
  test_files::ScratchDir d;
  note_stack_request(d / "none.txt");
  EXPECT_FALSE(std::filesystem::exists(d / "none.txt"));
  { std::ofstream(d / "stack.txt") << "# distdoctor: stack hook pid 7\n"; }
  note_stack_request(d / "stack.txt");
  EXPECT_EQ(test_files::slurp(d / "stack.txt"),
            "# distdoctor: stack hook pid 7\n# distdoctor: stacks requested\n");
  { std::ofstream(d / "victim.txt") << "kept\n"; }
  std::filesystem::create_symlink(d / "victim.txt", d / "link.txt");
  note_stack_request(d / "link.txt");
  EXPECT_EQ(test_files::slurp(d / "victim.txt"), "kept\n");
  { std::ofstream(d / "req.fifo") << "stale"; }
  EXPECT_EQ(make_fr_request_fifo(d / "req.fifo"), "");
  EXPECT_EQ(hook_mode(d / "req.fifo"), 0600u);
  struct stat st {};
  ASSERT_EQ(::lstat((d / "req.fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_NE(make_fr_request_fifo(d / "no/such/req.fifo"), "");
}

}  // namespace
}  // namespace dd::launch
