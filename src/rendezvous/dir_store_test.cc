// Tests of DirStore: set/get, counters, and deadlines that name the missing keys.
#include "rendezvous/dir_store.h"

#include <gtest/gtest.h>
#include <stdio.h>
#include <stdlib.h>

#include <filesystem>
#include <thread>

namespace dd::rendezvous {

TEST(DirStore, SetGetAddWaitCheck) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "dd-dirstore-XXXXXX").string();
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  DirStore s(tmpl);
  auto soon = rendezvous::deadline_in(std::chrono::milliseconds(1000));
  ASSERT_TRUE(s.set("a/b c", std::string("x\0y", 3), soon).ok());
  auto v = s.get("a/b c", rendezvous::deadline_in(std::chrono::milliseconds(100)));
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, std::string("x\0y", 3));
  EXPECT_EQ(*s.add("n", 2, soon), 2);
  EXPECT_EQ(*s.add("n", 3, soon), 5);
  auto t0 = rendezvous::Clock::now();
  auto w = s.wait({"a/b c", "missing"}, rendezvous::deadline_in(std::chrono::milliseconds(50)));
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().message().find("missing"), std::string::npos);
  EXPECT_EQ(w.error().kind, ErrorKind::timeout);
  EXPECT_LT(rendezvous::Clock::now() - t0, std::chrono::milliseconds(1000));
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    s.set("late", "1", rendezvous::deadline_in(std::chrono::milliseconds(1000)));
  });
  EXPECT_TRUE(s.get("late", rendezvous::deadline_in(std::chrono::milliseconds(2000))).ok());
  later.join();
  auto c = s.check({"late", "nope"}, rendezvous::deadline_in(std::chrono::milliseconds(1000)));
  EXPECT_EQ(*c, (std::vector<bool>{true, false}));
  EXPECT_TRUE(s.remove("late", rendezvous::deadline_in(std::chrono::milliseconds(1000))).ok());
  EXPECT_FALSE(s.get("late", rendezvous::deadline_in(std::chrono::milliseconds(10))).ok());
  std::filesystem::remove_all(tmpl);
}

}  // namespace dd::rendezvous
