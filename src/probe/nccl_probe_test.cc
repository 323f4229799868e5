// NCCL probe: library discovery on the recorded tree, ld.so cache scan, NCCL config files and precedence,
// version answers from children (real libnccl when installed, a non-library file, a missing file).
#include "probe/nccl_probe.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

#include "dynlib/nccl.h"
#include "process/child.h"

namespace dd::probe {
namespace {

const std::string kNcclRoot = std::string(DD_FIXTURE_DIR) + "/sysfs/node1";

TEST(NcclProbe, CandidatesDedupedByRealPathFirstSourceWins) {
  auto fs = make_real_fs(kNcclRoot);
  EnvMap env = {
      {"HOME", "/users/u"}, {"LD_LIBRARY_PATH", "/srv/ldpath::/nonexistent"}, {"VIRTUAL_ENV", "/opt/venv"}};
  auto c = find_nccl_candidates(*fs, env, "/usr/lib/python3.10/dist-packages/nvidia/nccl/lib");
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& x : c) got.emplace_back(x.path, x.source);
  std::vector<std::pair<std::string, std::string>> want = {
      {"/usr/lib/python3.10/dist-packages/nvidia/nccl/lib/libnccl.so.2", "--nccl-lib"},
      {"/usr/lib/x86_64-linux-gnu/libnccl.so.2.18.3", "LD_LIBRARY_PATH"},  // symlinks resolved
      {"/usr/local/cuda-12.4/targets/x86_64-linux/lib/libnccl.so.2", "cuda"},
      {"/users/u/.local/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2", "site-packages"},
      {"/opt/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2", "site-packages"},
      {"/opt/trainenv/.venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2",
       "site-packages (venv)"},
  };
  EXPECT_EQ(got, want);
}

// The H200 machine's case: python3 on PATH is a venv's (VIRTUAL_ENV unset) whose torch bundles its own NCCL.
TEST(NcclProbe, SitePackagesOfPythonOnPath) {
  auto fs = make_real_fs(kNcclRoot);
  EnvMap env = {{"PATH", "/nonexistent:/srv/tools/bin:/srv/envs/train/bin/:/usr/bin:/srv/envs/train/bin"}};
  EXPECT_EQ(python_prefixes_on_path(*fs, env), (std::vector<std::string>{"/srv/envs/train"}));
  auto c = find_nccl_candidates(*fs, env, "");
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& x : c)
    if (x.source.rfind("site-packages", 0) == 0) got.emplace_back(x.path, x.source);
  std::vector<std::pair<std::string, std::string>> want = {
      {"/usr/lib/python3.10/dist-packages/nvidia/nccl/lib/libnccl.so.2", "site-packages"},
      {"/srv/envs/train/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2",
       "site-packages (python on PATH)"},
      {"/opt/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2", "site-packages (venv)"},
      {"/opt/trainenv/.venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2",
       "site-packages (venv)"},
  };
  EXPECT_EQ(got, want);
  // Without a python on PATH, the venv outside the usual roots stays unseen.
  for (const auto& x : find_nccl_candidates(*fs, {{"PATH", "/srv/tools/bin"}}, ""))
    EXPECT_EQ(x.path.find("/srv/envs/"), std::string::npos) << x.path;
}

TEST(NcclProbe, InferLoaderChoice) {
  auto fs = make_real_fs(kNcclRoot);
  EXPECT_EQ(infer_loader_choice(*fs, {{"LD_LIBRARY_PATH", "/nonexistent:/srv/ldpath"}}),
            "/usr/lib/x86_64-linux-gnu/libnccl.so.2.18.3");
  // Without LD_LIBRARY_PATH: the cache's first existing entry (the tree's cache also names /opt/missing).
  EXPECT_EQ(infer_loader_choice(*fs, {}), "/usr/lib/x86_64-linux-gnu/libnccl.so.2.18.3");
  EXPECT_EQ(infer_loader_choice(*make_real_fs(kNcclRoot + "/nowhere"), {}), "");
}

TEST(NcclProbe, LdSoCacheScan) {
  using namespace std::string_literals;
  std::string cache =
      "glibc-ld.so.cache1.1\0libnccl.so.2\0/a/libnccl.so.2\0/b/libnccl.so.2.1\0/c/xlibnccl.so.2\0"s
      "/a/libnccl.so.2\0/d/libnccl.so.2"s;
  EXPECT_EQ(parse_ld_so_cache(cache, "libnccl.so.2"),
            (std::vector<std::string>{"/a/libnccl.so.2", "/d/libnccl.so.2"}));
  EXPECT_TRUE(parse_ld_so_cache("", "libnccl.so.2").empty());
}

TEST(NcclProbe, ConfSyntaxLikeSetEnvFile) {
  auto kv = parse_nccl_conf("# comment\nA=1\nA=2\nB = x\n=oops\nnovalue\nC=\nD=a=b\r\n");
  std::vector<std::pair<std::string, std::string>> want = {{"A", "1"}, {"B ", " x"}, {"C", ""}, {"D", "a=b"}};
  EXPECT_EQ(kv, want);
}

TEST(NcclProbe, SettingsPrecedenceEnvThenUserFileThenEtc) {
  auto fs = make_real_fs(kNcclRoot);
  std::vector<std::string> errors;
  auto s = nccl_settings(*fs, {{"HOME", "/users/u"}, {"NCCL_SOCKET_IFNAME", "=eth0"}}, &errors);
  EXPECT_EQ(s["NCCL_SOCKET_IFNAME"].value, "=eth0");
  EXPECT_EQ(s["NCCL_SOCKET_IFNAME"].source, "env");
  EXPECT_EQ(s["NCCL_DEBUG"].value, "INFO");  // ~/.nccl.conf before /etc/nccl.conf
  EXPECT_EQ(s["NCCL_DEBUG"].source, "/users/u/.nccl.conf");
  EXPECT_EQ(s["NCCL_IB_HCA"].value, "mlx5_bond_0");  // first line in a file wins
  EXPECT_EQ(s["NCCL_IB_GID_INDEX"].source, "/etc/nccl.conf");
  EXPECT_EQ(s.count("NOT_NCCL"), 0u);
  EXPECT_EQ(s.count("NCCL_NET_GDR_LEVEL "), 1u);  // spaces are part of the name, as in NCCL
  EXPECT_TRUE(errors.empty());

  // NCCL_CONF_FILE replaces ~/.nccl.conf; /etc/nccl.conf is still read.
  auto t = nccl_settings(*fs, {{"HOME", "/users/u"}, {"NCCL_CONF_FILE", "/users/u/custom.conf"}}, nullptr);
  EXPECT_EQ(t["NCCL_P2P_DISABLE"].source, "/users/u/custom.conf");
  EXPECT_EQ(t["NCCL_DEBUG"].value, "WARN");
  EXPECT_EQ(t["NCCL_CONF_FILE"].source, "env");
}

TEST(NcclProbe, VersionStrings) {
  EXPECT_EQ(dynlib::nccl_version_string(22809), "2.28.9");
  EXPECT_EQ(dynlib::nccl_version_string(21803), "2.18.3");
  EXPECT_EQ(dynlib::nccl_version_string(2708), "2.7.8");
  EXPECT_EQ(dynlib::nccl_version_string(-1), "");
}

TEST(NcclProbe, VersionChildOnBadFiles) {
  auto ans = process::run_children(
      {[] { return nccl_version_child(kNcclRoot + "/usr/lib/x86_64-linux-gnu/libnccl.so.2.18.3"); },
       [] { return nccl_version_child("/nonexistent/libnccl.so.2"); }},
      5000);
  NcclLib fake, missing;
  apply_nccl_answer(ans[0], fake);
  apply_nccl_answer(ans[1], missing);
  EXPECT_EQ(fake.version_code, -1);
  EXPECT_NE(fake.error.find("cannot load"), std::string::npos) << fake.error;
  EXPECT_NE(missing.error.find("No such file"), std::string::npos) << missing.error;
  NcclLib crashed;
  apply_nccl_answer(Result<std::string>(Error{"crashed: signal 11 (Segmentation fault)", 0}), crashed);
  EXPECT_NE(crashed.error.find("signal 11"), std::string::npos);
}

TEST(NcclProbe, RealLibraryVersionWhenInstalled) {
  const std::string path = "/usr/local/cuda/lib64/libnccl.so.2";
  if (!make_real_fs()->exists(path)) GTEST_SKIP() << path << " not installed";
  auto ans = process::run_children({[&] { return nccl_version_child(path); }}, 5000);
  NcclLib l;
  apply_nccl_answer(ans[0], l);
  EXPECT_TRUE(l.error.empty()) << l.error;
  EXPECT_GE(l.version_code, 20000);
  EXPECT_EQ(l.version, dynlib::nccl_version_string(l.version_code));
}

// 200k distinct keys and a duplicate of one: every key kept once, the first definition wins. (The parse is
// linear: a hash set over the keys; its speed is not asserted here, tests are not benchmarks.)
TEST(NcclProbe, LongConfKeepsTheFirstDefinition) {
  std::string text;
  for (int i = 0; i < 200000; ++i) text += "NCCL_KEY_" + std::to_string(i) + "=" + std::to_string(i) + "\n";
  text += "NCCL_KEY_7=dup\n";
  auto kv = parse_nccl_conf(text);
  ASSERT_EQ(kv.size(), 200000u);
  EXPECT_EQ(kv[7].second, "7");
}

// NCCL_CONF_FILE naming a FIFO or a device: reported as a probe error, never opened for a blocking read.
TEST(NcclProbe, ConfFileFifoOrDeviceReportedNotRead) {
  const std::string fifo =
      std::string(::testing::TempDir()) + "/dd_nccl_conf_fifo_" + std::to_string(getpid());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto fs = make_real_fs();
  for (const std::string& conf : {fifo, std::string("/dev/zero")}) {
    std::vector<std::string> errors;
    nccl_settings(*fs, {{"NCCL_CONF_FILE", conf}}, &errors);
    ASSERT_FALSE(errors.empty()) << conf;
    EXPECT_NE(errors[0].find(conf + " is a"), std::string::npos) << errors[0];
    EXPECT_NE(errors[0].find("not a regular file"), std::string::npos) << errors[0];
  }
  unlink(fifo.c_str());
}

}  // namespace
}  // namespace dd::probe
