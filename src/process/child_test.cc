// Children: answers, crashes, non-zero exits and deadlines, all in parallel.
#include "process/child.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

namespace dd::process {
namespace {

TEST(Children, AnswersCrashesAndTimeouts) {
  timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  Children c;
  c.start([] { return std::string(200000, 'x'); }, 2000);  // bigger than a pipe buffer
  c.start(
      []() -> std::string {
        signal(SIGSEGV, SIG_DFL);  // a crash by the signal itself, not a sanitizer's SEGV report (test-asan)
        raise(SIGSEGV);
        return "never";
      },
      2000);
  c.start(
      []() -> std::string {
        sleep(30);
        return "late";
      },
      200);
  c.start([]() -> std::string { _exit(7); }, 2000);
  c.start([]() -> std::string { throw std::runtime_error("boom"); }, 2000);
  auto r = c.wait();
  timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  ASSERT_EQ(r.size(), 5u);
  ASSERT_TRUE(r[0].ok());
  EXPECT_EQ(r[0]->size(), 200000u);
  ASSERT_FALSE(r[1].ok());
  EXPECT_NE(r[1].error().what.find("signal 11"), std::string::npos) << r[1].error().what;
  ASSERT_FALSE(r[2].ok());
  EXPECT_EQ(r[2].error().what, "timed out after 200 ms");
  ASSERT_FALSE(r[3].ok());
  EXPECT_EQ(r[3].error().what, "exited with status 7");
  EXPECT_FALSE(r[4].ok());
  double secs = double(t1.tv_sec - t0.tv_sec) + double(t1.tv_nsec - t0.tv_nsec) / 1e9;
  EXPECT_LT(secs, 1.5);  // the sleeper was killed at its deadline, not waited for
}

TEST(Children, ChildOutputDoesNotReachOurStdout) {
  auto r = run_children({[] {
                          printf("noise on stdout\n");
                          fflush(stdout);
                          return std::string("answer");
                        }},
                        2000);
  ASSERT_TRUE(r[0].ok());
  EXPECT_EQ(*r[0], "answer");
}

}  // namespace
}  // namespace dd::process
