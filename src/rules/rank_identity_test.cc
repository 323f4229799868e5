// odd_settings: the odd rank singled out, per-rank values left alone, libraries first, whole nodes noticed.
#include "rules/rank_identity.h"

#include <gtest/gtest.h>

namespace dd::rules {
namespace {

RankIdentity id(int rank, std::map<std::string, std::string> items, int node = 0) {
  RankIdentity r;
  r.rank = rank;
  r.node = node;
  r.items = std::move(items);
  return r;
}

TEST(RankIdentity, OneRankWithItsOwnNcclVariable) {
  std::vector<RankIdentity> ranks = {id(0, {}), id(1, {}), id(2, {}), id(3, {{"NCCL_PROTO", "LL"}})};
  auto odd = odd_settings(ranks);
  ASSERT_EQ(odd.size(), 1u);
  EXPECT_EQ(odd[0].ranks, std::vector<int>({3}));
  EXPECT_EQ(odd[0].others, std::vector<int>({0, 1, 2}));
  EXPECT_TRUE(odd[0].singled_out);
  EXPECT_EQ(odd_setting_text(odd[0]), "rank 3 has NCCL_PROTO=LL where ranks 0-2 leave it unset");
}

TEST(RankIdentity, AnotherLibraryComesFirstAndNamesBothPaths) {
  const std::string mine = "/usr/lib/libnccl.so.2.28.3 (2.28.3)",
                    theirs = "site-packages/libnccl.so.2 (2.28.9)";
  std::vector<RankIdentity> ranks = {
      id(0, {{kNcclLibraryItem, theirs}}),
      id(1, {{kNcclLibraryItem, mine}, {"LD_PRELOAD", "/usr/lib/libnccl.so.2.28.3"}}),
      id(2, {{kNcclLibraryItem, theirs}}), id(3, {{kNcclLibraryItem, theirs}})};
  auto odd = odd_settings(ranks);
  ASSERT_EQ(odd.size(), 2u);
  EXPECT_EQ(odd[0].name, kNcclLibraryItem);
  EXPECT_EQ(odd[0].ranks, std::vector<int>({1}));
  EXPECT_EQ(odd_setting_text(odd[0]), "rank 1 loads NCCL " + mine + " where ranks 0,2,3 load " + theirs);
  EXPECT_EQ(odd[1].name, "LD_PRELOAD");
}

TEST(RankIdentity, PerRankValuesAndIgnoredNamesAreLeftOut) {
  std::vector<RankIdentity> ranks = {id(0, {{"CUDA_VISIBLE_DEVICES", "0"}, {"TORCH_X", "a"}}),
                                     id(1, {{"CUDA_VISIBLE_DEVICES", "1"}, {"TORCH_X", "a"}}),
                                     id(2, {{"CUDA_VISIBLE_DEVICES", "2"}, {"TORCH_X", "a"}})};
  EXPECT_TRUE(odd_settings(ranks).empty()) << "a device per rank is made so on purpose";
  ranks[2].items["TORCH_X"] = "b";
  EXPECT_EQ(odd_settings(ranks).size(), 1u);
  EXPECT_TRUE(odd_settings(ranks, {"TORCH_X"}).empty());
}

TEST(RankIdentity, TwoRanksThatDifferAreBothListedNeitherSingledOut) {
  auto odd = odd_settings({id(0, {{"NCCL_P2P_DISABLE", "1"}}), id(1, {})});
  ASSERT_EQ(odd.size(), 1u);
  EXPECT_FALSE(odd[0].singled_out);
  EXPECT_EQ(odd[0].ranks.size() + odd[0].others.size(), 2u);
  EXPECT_EQ(odd_setting_text(odd[0]), "ranks disagree on NCCL_P2P_DISABLE: rank 0 1, rank 1 unset");
}

TEST(RankIdentity, WithTwoRanksTheOneThatChangedWhatItWasGivenIsSingledOut) {
  std::vector<RankIdentity> ranks = {id(0, {}), id(1, {{"NCCL_PROTO", "LL"}})};
  for (auto& r : ranks) r.expected_known = true;  // the launcher gave neither NCCL_PROTO
  auto odd = odd_settings(ranks);
  ASSERT_EQ(odd.size(), 1u);
  EXPECT_TRUE(odd[0].singled_out);
  EXPECT_EQ(odd[0].ranks, std::vector<int>({1}));
  EXPECT_EQ(odd_setting_text(odd[0]), "rank 1 has NCCL_PROTO=LL where rank 0 leaves it unset");
  ranks[0].expected_known = false;  // one launcher's environment unknown: no guess
  EXPECT_FALSE(odd_settings(ranks)[0].singled_out);
}

TEST(RankIdentity, AWholeNodeThatDiffersIsMarked) {
  auto odd = odd_settings({id(0, {{"NCCL_IB_HCA", "mlx5_0"}}, 0), id(1, {{"NCCL_IB_HCA", "mlx5_0"}}, 0),
                           id(2, {{"NCCL_IB_HCA", "mlx5_0"}}, 1), id(3, {{"NCCL_IB_HCA", "mlx5_0"}}, 1),
                           id(4, {}, 2), id(5, {}, 2)});
  ASSERT_EQ(odd.size(), 1u);
  EXPECT_EQ(odd[0].ranks, std::vector<int>({4, 5}));
  EXPECT_TRUE(odd[0].whole_node);
}

TEST(RankIdentity, UnknownRanksAreNotCompared) {
  RankIdentity unknown = id(3, {});
  unknown.known = false;
  EXPECT_TRUE(odd_settings({id(0, {{"NCCL_PROTO", "LL"}}), id(1, {{"NCCL_PROTO", "LL"}}), unknown}).empty());
}

TEST(RankIdentity, VariablesCompared) {
  EXPECT_TRUE(identity_variable("NCCL_PROTO"));
  EXPECT_TRUE(identity_variable("LD_PRELOAD"));
  EXPECT_FALSE(identity_variable("RANK"));
  EXPECT_FALSE(identity_variable("HOME"));
}

}  // namespace
}  // namespace dd::rules
