// Tests of the per-user job secret: made once with mode 0600 in a 0700 folder, read back by every later call
// (and by a racing second creator), refused when others can read it, when it is a link or not this user's.
#include "probe/user_secret.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

namespace dd::probe {
namespace {

namespace fs = std::filesystem;

struct SecretDir {
  fs::path dir = fs::path(::testing::TempDir()) /
                 ("dd-secret-" + std::to_string(::getpid()) + "-" + std::to_string(::rand()));
  ~SecretDir() { fs::remove_all(dir); }
  std::string path() const { return user_secret_path((dir / "cfg").string(), "ignored-home"); }
};

const std::string kHexA(64, 'a'), kHexB(64, 'b');

mode_t mode_of(const std::string& p) {
  struct stat st {};
  ::stat(p.c_str(), &st);
  return st.st_mode & 07777;
}

TEST(UserSecret, PathFollowsXdgThenHome) {
  const std::string cfg = ::testing::TempDir() + "cfg", home = ::testing::TempDir() + "home";
  EXPECT_EQ(user_secret_path(cfg, home), cfg + "/distdoctor/job-secret");
  EXPECT_EQ(user_secret_path("", home), home + "/.config/distdoctor/job-secret");
  EXPECT_EQ(user_secret_path("relative", home), home + "/.config/distdoctor/job-secret");
  EXPECT_EQ(user_secret_path("", ""), "");
}

TEST(UserSecret, MadeOnceWithPrivateModesRegardlessOfUmask) {
  SecretDir d;
  const mode_t old = ::umask(0);  // the widest umask: the modes must not come from it
  auto first = read_or_create_user_secret(d.path(), kHexA);
  ::umask(old);
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_TRUE(first->created);
  EXPECT_EQ(first->secret, kHexA);
  EXPECT_EQ(mode_of(d.path()), 0600u);
  EXPECT_EQ(mode_of(fs::path(d.path()).parent_path().string()), 0700u);
  auto again = read_or_create_user_secret(d.path(), kHexB);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->created);
  EXPECT_EQ(again->secret, kHexA) << "a second call must read the first secret, not make another";
}

TEST(UserSecret, RacingCreatorsAgreeOnOneSecret) {
  SecretDir d;
  std::vector<std::string> got(8);
  std::vector<std::thread> ts;
  for (size_t i = 0; i < got.size(); ++i)
    ts.emplace_back([&, i] {
      auto s = read_or_create_user_secret(d.path(), std::string(64, "0123456789abcdef"[i]));
      got[i] = s ? s->secret : "error: " + s.error().message();
    });
  for (auto& t : ts) t.join();
  for (const auto& g : got) EXPECT_EQ(g, got[0]);
  EXPECT_EQ(got[0].size(), 64u);
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(fs::path(d.path()).parent_path())) ++files;
  EXPECT_EQ(files, 1u) << "temporary files left beside the secret";
}

TEST(UserSecret, RefusesWhatOthersCouldReadOrReplace) {
  SecretDir d;
  ASSERT_TRUE(read_or_create_user_secret(d.path(), kHexA).ok());
  ::chmod(d.path().c_str(), 0644);
  auto open = read_or_create_user_secret(d.path(), kHexB);
  ASSERT_FALSE(open.ok());
  EXPECT_NE(open.error().message().find("chmod 600"), std::string::npos) << open.error().message();
  fs::remove(d.path());
  { std::ofstream(d.dir / "elsewhere") << kHexB; }
  ::chmod((d.dir / "elsewhere").c_str(), 0600);
  fs::create_symlink(d.dir / "elsewhere", d.path());
  auto link = read_or_create_user_secret(d.path(), kHexB);
  ASSERT_FALSE(link.ok());
  EXPECT_NE(link.error().message().find("symbolic link"), std::string::npos) << link.error().message();
  fs::remove(d.path());
  { std::ofstream(d.path()) << "short"; }
  ::chmod(d.path().c_str(), 0600);
  auto bad = read_or_create_user_secret(d.path(), kHexB);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("does not hold a secret"), std::string::npos);
}

TEST(UserSecret, NoPlaceIsAnErrorWithTheCommandToRun) {
  EXPECT_FALSE(read_or_create_user_secret("", kHexA).ok());
  EXPECT_NE(user_secret_command(::testing::TempDir() + "h/.config/distdoctor/job-secret")
                .find("openssl rand -hex 32"),
            std::string::npos);
}

}  // namespace
}  // namespace dd::probe
