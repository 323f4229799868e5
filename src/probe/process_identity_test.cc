// process_identity: environ and maps parsing, this very process read through /proc, and NCCL's version string
// found in a library file (written here in the shape NCCL's .rodata holds it).
#include "probe/process_identity.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "common/test_files.h"

namespace dd::probe {
namespace {

TEST(ProcessIdentity, ParsesEnvironBlock) {
  std::string block("NCCL_PROTO=LL\0LD_PRELOAD=/x/libnccl.so.2\0EMPTY=\0=junk\0NOEQUALS\0A=b=c", 68);
  auto env = parse_environ(block);
  EXPECT_EQ(env["NCCL_PROTO"], "LL");
  EXPECT_EQ(env["LD_PRELOAD"], "/x/libnccl.so.2");
  EXPECT_EQ(env.count("EMPTY"), 1u);
  EXPECT_EQ(env["A"], "b=c");
  EXPECT_EQ(env.count("NOEQUALS"), 0u);
}

TEST(ProcessIdentity, FindsNcclAndCudaLibrariesInMaps) {
  const std::string maps =
      "7f0000000000-7f0000100000 r-xp 00000000 08:01 123 /opt/venv/site-packages/nvidia/nccl/lib/libnccl.so.2\n"
      "7f0000100000-7f0000200000 r--p 00100000 08:01 123 /opt/venv/site-packages/nvidia/nccl/lib/libnccl.so.2\n"
      "7f0000300000-7f0000400000 r-xp 00000000 08:01 124 /usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06\n"
      "7f0000500000-7f0000600000 r-xp 00000000 08:01 125 /opt/x/libcudart.so.13 (deleted)\n"
      "7f0000700000-7f0000800000 r-xp 00000000 08:01 126 /opt/x/libnccl-net.so\n"
      "7ffd00000000-7ffd00100000 rw-p 00000000 00:00 0 [stack]\n";
  auto libs = parse_mapped_libraries(maps);
  EXPECT_EQ(libs["libnccl"], "/opt/venv/site-packages/nvidia/nccl/lib/libnccl.so.2");
  EXPECT_EQ(libs["libcuda"], "/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06");
  EXPECT_EQ(libs["libcudart"], "/opt/x/libcudart.so.13");
  EXPECT_EQ(libs.size(), 3u) << "a net plugin is not the NCCL library";
}

TEST(ProcessIdentity, ReadsThisProcess) {
  ::setenv("DD_IDENTITY_TEST", "yes", 1);  // after start: /proc/self/environ shows the start-up block only
  ProcessIdentity me = read_process_identity(::getpid());
  EXPECT_TRUE(me.readable);
  EXPECT_EQ(me.pid, ::getpid());
  EXPECT_FALSE(me.env.empty());
  EXPECT_FALSE(me.nccl_loaded());
  ProcessIdentity gone = read_process_identity(0x7ffffff0);
  EXPECT_FALSE(gone.readable);
}

TEST(ProcessIdentity, FindsNcclsVersionStringInALibrary) {
  test_files::ScratchDir d;
  const std::string lib = d / "libnccl.so.2";
  {
    std::ofstream out(lib, std::ios::binary);
    std::string body(4096, 'x');
    body += std::string("NCCL version %s\0NCCL version detected : rank %d\0", 48);
    body += std::string(1000, '\0');
    body += std::string("NCCL version 2.28.3+cuda12.9\0", 29);
    out << body;
  }
  EXPECT_EQ(nccl_file_version(lib), "2.28.3+cuda12.9");
  EXPECT_EQ(nccl_file_version(d / "missing.so"), "");
  const std::string none = d / "other.so";
  std::ofstream(none) << "no version here";
  EXPECT_EQ(nccl_file_version(none), "");
}

}  // namespace
}  // namespace dd::probe
