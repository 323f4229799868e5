// The dlopen layer end to end: fake libnvidia-ml / libnccl built from fixtures/fake_libs with the system C
// compiler, loaded by the real binary and by the probes. Skipped when no C compiler is installed; failed when
// the compiler is there but cannot build them.
#include <gtest/gtest.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dynlib/library.h"
#include "dynlib/nvml.h"
#include "probe/nccl_probe.h"
#include "process/child.h"

namespace dd::dynlib {
namespace {

class FakeLibs : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (system("command -v cc >/dev/null 2>&1") != 0) {
      skip_reason_ = "no C compiler (cc) to build the fake libraries";
      return;
    }
    const char* tmpdir = getenv("TMPDIR");
    std::string tmpl = std::string(tmpdir && *tmpdir ? tmpdir : P_tmpdir) + "/ddfakelibXXXXXX";
    if (!mkdtemp(tmpl.data())) {
      setup_error_ = "mkdtemp " + tmpl + " failed";
      return;
    }
    dir_ = tmpl;
    const std::string src = std::string(DD_FIXTURE_DIR) + "/fake_libs/";
    // A compiler that is present but fails is a test failure (with its output), not a skip.
    auto cc = [&](const std::string& flags, const std::string& in, const std::string& out) {
      std::string cmd = "cc -shared -fPIC -O1 " + flags + " -o " + dir_ + "/" + out + " " + src + in +
                        " 2>&1 && echo DD_CC_OK";
      std::string said = run(cmd);
      if (said.find("DD_CC_OK") != std::string::npos) return true;
      setup_error_ = "cc failed to build " + out + " from " + in + ": " + said;
      return false;
    };
    const bool built =
        cc("", "fake_nvml.c", "libnvidia-ml.so.1") &&
        system(("mkdir -p " + dir_ + "/old " + dir_ + "/crash " + dir_ + "/hang").c_str()) == 0 &&
        cc("-DFAKE_VERSION=2708", "fake_nccl.c", "old/libnccl.so.2") &&
        cc("", "fake_cuda.c", "libcuda.so.1") && cc("-DFAKE_CRASH", "fake_nccl.c", "crash/libnccl.so.2") &&
        cc("-DFAKE_HANG", "fake_nccl.c", "hang/libnccl.so.2");
    if (!built && setup_error_.empty()) setup_error_ = "mkdir -p under " + dir_ + " failed";
  }
  static void TearDownTestSuite() {
    if (!dir_.empty()) system(("rm -rf " + dir_).c_str());
  }
  void SetUp() override {
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
    ASSERT_TRUE(setup_error_.empty()) << setup_error_;
  }
  static std::string run(const std::string& cmd) {
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return out;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
    pclose(p);
    return out;
  }
  static inline std::string dir_;
  static inline std::string skip_reason_;  // no compiler: the tests skip
  static inline std::string setup_error_;  // the compiler or mkdtemp failed: the tests fail
};

TEST_F(FakeLibs, LibraryOpenPrefersEnvOverrideAndReportsErrors) {
  setenv("DD_TEST_LIB", (dir_ + "/old/libnccl.so.2").c_str(), 1);
  auto l = Library::open({"libdoesnotexist.so.1"}, "DD_TEST_LIB");
  unsetenv("DD_TEST_LIB");
  ASSERT_TRUE(l.ok()) << l.error().message();
  EXPECT_EQ(l->path(), dir_ + "/old/libnccl.so.2");
  EXPECT_NE(l->sym({"ncclGetVersion_v9", "ncclGetVersion"}), nullptr);  // falls back to the unversioned name
  EXPECT_EQ(l->sym({"nothere"}), nullptr);
  auto bad = Library::open({"libdoesnotexist.so.1", "libnorthis.so.2"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().what.find("libnorthis.so.2"), std::string::npos) << bad.error().what;
}

TEST_F(FakeLibs, NcclVersionsCrashAndHangBecomeErrors) {
  process::Children kids;
  kids.start([] { return probe::nccl_version_child(dir_ + "/old/libnccl.so.2"); }, 3000);
  kids.start([] { return probe::nccl_version_child(dir_ + "/crash/libnccl.so.2"); }, 3000);
  kids.start([] { return probe::nccl_version_child(dir_ + "/hang/libnccl.so.2"); }, 300);
  auto ans = kids.wait();
  probe::NcclLib old, crash, hang;
  probe::apply_nccl_answer(ans[0], old);
  probe::apply_nccl_answer(ans[1], crash);
  probe::apply_nccl_answer(ans[2], hang);
  EXPECT_EQ(old.version, "2.7.8");
  EXPECT_NE(crash.error.find("signal 11"), std::string::npos) << crash.error;
  EXPECT_NE(hang.error.find("timed out"), std::string::npos) << hang.error;
}

TEST_F(FakeLibs, BinaryReadsFakeNvmlAndNamedNccl) {
  std::string out = run("DISTDOCTOR_NVML_LIB=" + dir_ + "/libnvidia-ml.so.1 " + DD_BINARY +
                        " facts --json --nccl-lib " + dir_ + "/old/libnccl.so.2");
  auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  const auto& g = j["gpu"];
  ASSERT_TRUE(g["nvml_loaded"].get<bool>()) << g.dump();
  EXPECT_EQ(g["gpus"].size(), 2u);
  EXPECT_EQ(g["driver_version"], "580.95.05");
  EXPECT_EQ(g["gpus"][1]["pci_bus_id"], "00000000:2A:00.0");
  EXPECT_EQ(g["gpus"][1]["processes"][0]["pid"], 1);  // through the unversioned fallback
  EXPECT_EQ(g["gpus"][0]["nvlinks_active"], 18);
  EXPECT_EQ(g["topology"], nlohmann::json::parse(R"([["X","NV18"],["NV18","X"]])"));
  EXPECT_EQ(g["p2p_read"], nlohmann::json::parse(R"([["X","OK"],["OK","X"]])"));
  EXPECT_EQ(g["gpus"][0]["utilization_pct"], -1);  // not exported by the fake: unknown, no crash
  const auto& libs = j["nccl"]["libs"];
  ASSERT_GE(libs.size(), 1u);
  EXPECT_EQ(libs[0]["source"], "--nccl-lib");
  EXPECT_EQ(libs[0]["version"], "2.7.8");
}

TEST_F(FakeLibs, CudaDeviceCountUnderCudaVisibleDevices) {
  auto facts = [&](const std::string& cvd, std::string lib = "", const char* flags = "") {
    if (lib.empty()) lib = dir_ + "/libcuda.so.1";
    auto j = nlohmann::json::parse(
        run("env " + cvd + " DISTDOCTOR_CUDA_LIB=" + lib + " " + DD_BINARY + " facts --json " + flags),
        nullptr, false);
    return j.is_discarded() ? nlohmann::json() : j["cuda"];
  };
  // cuInit is skipped (it costs ~0.6 s on a GPU node) unless --cuda-init asks, CUDA_VISIBLE_DEVICES or not.
  auto skipped = facts("-u CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(skipped["init_probed"], false) << skipped.dump();
  EXPECT_EQ(skipped["device_count"], -1);
  EXPECT_EQ(facts("CUDA_VISIBLE_DEVICES=1")["init_probed"], false);
  auto unset = facts("-u CUDA_VISIBLE_DEVICES", "", "--cuda-init");
  EXPECT_EQ(unset["init_probed"], true) << unset.dump();
  EXPECT_EQ(unset["device_count"], 2) << unset.dump();
  EXPECT_EQ(unset["driver_loaded"], true);
  EXPECT_EQ(unset["visible_devices_set"], false);
  auto one = facts("CUDA_VISIBLE_DEVICES=1", "", "--cuda-init");
  EXPECT_EQ(one["device_count"], 1) << one.dump();
  EXPECT_EQ(one["visible_devices"], "1");
  auto none = facts("CUDA_VISIBLE_DEVICES=", "", "--cuda-init");
  EXPECT_EQ(none["device_count"], 0) << none.dump();  // CUDA_ERROR_NO_DEVICE means zero devices
  EXPECT_EQ(none["visible_devices_set"], true);
  auto missing = facts("CUDA_VISIBLE_DEVICES=0", "/nonexistent/libcuda.so.1", "--cuda-init");
  EXPECT_EQ(missing["device_count"], -1) << missing.dump();
  EXPECT_EQ(missing["driver_loaded"], false);
  EXPECT_NE(missing["driver_error"].get<std::string>().find("DISTDOCTOR_CUDA_LIB"), std::string::npos);
}

TEST_F(FakeLibs, CrashingNcclOnLoaderPathIsAFactNotACrash) {
  std::string out =
      run("LD_LIBRARY_PATH=" + dir_ + "/crash " + std::string(DD_BINARY) + " facts --json; echo \"rc=$?\"");
  EXPECT_NE(out.find("rc=0"), std::string::npos) << out;
  auto j = nlohmann::json::parse(out.substr(0, out.rfind("rc=")), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  bool found = false;
  for (const auto& l : j["nccl"]["libs"])
    if (l["path"] == dir_ + "/crash/libnccl.so.2") {
      found = true;
      EXPECT_NE(l["error"].get<std::string>().find("signal"), std::string::npos) << l.dump();
      EXPECT_EQ(l["source"], "loader");  // found in LD_LIBRARY_PATH, and the one the loader picks
    }
  EXPECT_TRUE(found) << j["nccl"].dump();
  EXPECT_EQ(j["nccl"]["loader_choice"], dir_ + "/crash/libnccl.so.2");  // inferred when loading it crashed
}

}  // namespace
}  // namespace dd::dynlib
