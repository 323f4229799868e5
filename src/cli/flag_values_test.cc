// Tests of the flag value parsers and validators: NaN, infinities, malformed masters, bad sizes and unknown
// choices are refused with a message; good values pass unchanged.
#include "cli/flag_values.h"

#include <gtest/gtest.h>

#include "cli/request_limits.h"

namespace dd::cli {
namespace {

TEST(FlagValues, SecondsRefuseNanInfinityJunkAndRange) {
  EXPECT_FALSE(parse_seconds("nan", 1, 600));
  EXPECT_FALSE(parse_seconds("NaN", 0, 600));
  EXPECT_FALSE(parse_seconds("inf", 0, 1e9));
  EXPECT_FALSE(parse_seconds("", 0, 10));
  EXPECT_FALSE(parse_seconds("5s", 0, 10));
  EXPECT_FALSE(parse_seconds("0.5", 1, 10));
  EXPECT_FALSE(parse_seconds("11", 1, 10));
  ASSERT_TRUE(parse_seconds("2.5", 1, 10));
  EXPECT_DOUBLE_EQ(*parse_seconds("2.5", 1, 10), 2.5);
}

TEST(FlagValues, ByteSizes) {
  EXPECT_EQ(*parse_byte_size("8"), 8u);
  EXPECT_EQ(*parse_byte_size("64K"), 65536u);
  EXPECT_EQ(*parse_byte_size("256M"), 256u << 20);
  EXPECT_EQ(*parse_byte_size("8G"), 8ull << 30);
  EXPECT_EQ(*parse_byte_size("1MiB"), 1u << 20);
  EXPECT_EQ(*parse_byte_size("1.5K"), 1536u);
  for (const char* bad : {"nan", "inf", "", "-8", "8X", "8MM", "1e3", "K", "abc", "99999999999999T"})
    EXPECT_FALSE(parse_byte_size(bad)) << bad;
}

TEST(FlagValues, ByteSizeLists) {
  auto l = parse_byte_size_list("64M,1G,8G");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(*l, (std::vector<uint64_t>{64u << 20, 1u << 30, 8ull << 30}));
  EXPECT_EQ(parse_byte_size_list("4K")->size(), 1u);
  for (const char* bad : {"", "1M,", ",1M", "1M,,2M", "1M,x", "nan"}) {
    auto r = parse_byte_size_list(bad);
    EXPECT_FALSE(r.ok()) << bad;
  }
  EXPECT_NE(parse_byte_size_list("1M,x").error().message().find("'x'"), std::string::npos);
}

// --gpus used atoi: "0,x,1" became devices 0,0,1 (issue 27).
TEST(FlagValues, IndexLists) {
  auto l = parse_index_list("0,1,3", 7);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(*l, (std::vector<int>{0, 1, 3}));
  for (const char* bad : {"", "0,x,1", "0,,1", "1,", "-1", "8", "1.5", " 1", "99999999999"})
    EXPECT_FALSE(parse_index_list(bad, 7).ok()) << bad;
  EXPECT_NE(parse_index_list("0,x,1", 7).error().message().find("'x'"), std::string::npos);
}

TEST(FlagValues, Masters) {
  for (const char* good :
       {"198.18.0.1:29500", "node0:1", "[::1]:65535", "etcd://198.18.0.1:2379", "etcd://h:2379/prefix"})
    EXPECT_TRUE(parse_master(good)) << good;
  for (const char* bad : {"198.18.0.1", "198.18.0.1:0", "198.18.0.1:65536", ":29500", "etcd://",
                          "etcd://:2379", "host:", "host:12ab", "host:-1"})
    EXPECT_FALSE(parse_master(bad)) << bad;
}

TEST(FlagValues, Choices) {
  EXPECT_TRUE(parse_choice("nccl", {"nccl", "gloo"}));
  EXPECT_FALSE(parse_choice("mpi", {"nccl", "gloo"}));
  EXPECT_NE(parse_choice("mpi", {"nccl", "gloo"}).error().message().find("nccl, gloo"), std::string::npos);
  EXPECT_TRUE(parse_choice_list("a,b", {"a", "b"}));
  EXPECT_FALSE(parse_choice_list("a,foo", {"a", "b"}));
  EXPECT_FALSE(parse_choice_list("a,", {"a", "b"}));
  EXPECT_FALSE(parse_choice_list("", {"a", "b"}));
}

TEST(FlagValues, ValidatorsReturnTheMessage) {
  std::string nan = "nan", ok = "5", huge = "1000000", gpu = "gpu", many = "5000";
  EXPECT_FALSE(seconds_in(1, 10)(nan).empty());
  EXPECT_TRUE(seconds_in(1, 10)(ok).empty());
  EXPECT_NE(node_count()(huge).find("60000"), std::string::npos);
  EXPECT_TRUE(node_count()(ok).empty());
  EXPECT_TRUE(worker_count()(gpu).empty());
  EXPECT_FALSE(worker_count()(many).empty());
  std::string all = "all", rank = "3";
  EXPECT_TRUE(rank_or({"all", "none"})(all).empty());
  EXPECT_TRUE(rank_or({"all", "none"})(rank).empty());
  EXPECT_FALSE(rank_or({"all", "none"})(nan).empty());
}

TEST(RequestLimits, WorkersAndBuffers) {
  probe::NodeFacts f;
  f.system.nofile_soft = 1024;
  EXPECT_EQ(workers_beyond_node("--nproc-per-node", 8, f), "");
  EXPECT_NE(workers_beyond_node("--nproc-per-node", 3000, f).find("--nproc-per-node 3000"),
            std::string::npos);
  f.system.nofile_soft = -2;  // unknown: no refusal
  EXPECT_EQ(workers_beyond_node("--nproc-per-node", 3000, f), "");
  EXPECT_EQ(buffers_beyond_gpu("--max-bytes", 64ull << 30, f), "");  // no GPU memory known
  probe::Gpu g;
  g.memory_total_mib = 81559;
  f.gpu.gpus = {g};
  EXPECT_EQ(buffers_beyond_gpu("--max-bytes", 8ull << 30, f), "");
  EXPECT_NE(buffers_beyond_gpu("--max-bytes", 64ull << 30, f).find("--max-bytes"), std::string::npos);
  // Sizes in words (was "two buffers of 65536 MiB ... 81559 MiB").
  EXPECT_NE(buffers_beyond_gpu("-e", 64ull << 30, f).find("-e 64 GiB: two buffers of 64 GiB each"),
            std::string::npos)
      << buffers_beyond_gpu("-e", 64ull << 30, f);
}

}  // namespace
}  // namespace dd::cli
