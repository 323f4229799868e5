// NCCL's settings grammar against the behaviour of NCCL's own parsers (parseList in src/graph/tuning.cc of
// 2.23 and 2.24+, ncclGetLevel in src/graph/paths.cc, src/debug.cc) and the name tables.
#include "nccl/env_grammar.h"

#include <gtest/gtest.h>

#include "nccl/env_names.h"

namespace dd::nccl {
namespace {

TEST(NcclEnvGrammar, AlgoNamesPerVersion) {
  auto has = [](const std::vector<std::string>& v, const char* n) {
    return std::find(v.begin(), v.end(), n) != v.end();
  };
  EXPECT_TRUE(has(nccl_tune_names(TuneKind::algo, 21300), "CollNet"));
  EXPECT_FALSE(has(nccl_tune_names(TuneKind::algo, 21300), "NVLS"));
  EXPECT_TRUE(has(nccl_tune_names(TuneKind::algo, 21800), "NVLSTree"));
  EXPECT_FALSE(has(nccl_tune_names(TuneKind::algo, 22200), "PAT"));
  EXPECT_TRUE(has(nccl_tune_names(TuneKind::algo, 22809), "PAT"));
  EXPECT_FALSE(has(nccl_tune_names(TuneKind::algo, 22809), "CollNet"));
}

TEST(NcclEnvGrammar, NewParserRejectsUnknownTokens) {
  auto c = check_tune_list("bogus", TuneKind::algo, 22809);
  EXPECT_EQ(c.bad_token, "bogus");
  EXPECT_EQ(c.error, "Unrecognized element token \"bogus\" when parsing \"bogus\"");
  c = check_tune_list("ring;allreduce:tree,collnetdirect;broadcast:ring", TuneKind::algo, 22809);
  EXPECT_TRUE(c.error.empty()) << c.error;
  EXPECT_TRUE(c.per_function_syntax);
  EXPECT_TRUE(c.no_choice.empty());
  c = check_tune_list("allgatherv:ring", TuneKind::algo, 22809);
  EXPECT_EQ(c.bad_token, "allgatherv");
  c = check_tune_list("ring;tree", TuneKind::algo, 22809);  // a second entry without a prefix
  EXPECT_NE(c.error.find("must have a prefix"), std::string::npos);
  EXPECT_TRUE(check_tune_list("RING,Tree", TuneKind::algo, 22809).error.empty());  // case-insensitive
  EXPECT_TRUE(check_tune_list("^LL128;allreduce:LL128", TuneKind::proto, 22809).error.empty());
  EXPECT_EQ(check_tune_list("LL,fast", TuneKind::proto, -1).bad_token, "fast");  // unknown version: newest
}

TEST(NcclEnvGrammar, NewParserFindsFunctionsLeftWithoutAnAlgorithm) {
  auto c = check_tune_list("Tree", TuneKind::algo, 22809);
  EXPECT_EQ(c.no_choice, (std::vector<std::string>{"Broadcast", "Reduce", "AllGather", "ReduceScatter"}));
  c = check_tune_list("^ring", TuneKind::algo, 22809);
  EXPECT_EQ(c.no_choice, (std::vector<std::string>{"Broadcast", "Reduce"}));
  EXPECT_TRUE(check_tune_list("allreduce:tree", TuneKind::algo, 22809).no_choice.empty());
  EXPECT_EQ(check_tune_list("^LL,LL128,Simple", TuneKind::proto, 22809).no_choice.size(), 5u);
  EXPECT_TRUE(check_tune_list("^LL128", TuneKind::proto, 22809).no_choice.empty());
}

TEST(NcclEnvGrammar, OldParserIgnoresUnknownTokens) {
  auto c = check_tune_list("bogus,ring", TuneKind::algo, 22304);
  EXPECT_TRUE(c.error.empty());
  EXPECT_EQ(c.ignored, (std::vector<std::string>{"bogus"}));
  c = check_tune_list("allreduce:tree", TuneKind::algo, 21805);
  EXPECT_TRUE(c.per_function_syntax);
  EXPECT_EQ(c.ignored, (std::vector<std::string>{"allreduce:tree"}));
  EXPECT_TRUE(check_tune_list("^pat", TuneKind::algo, 22304).ignored.empty());
  EXPECT_EQ(check_tune_list("pat", TuneKind::algo, 22204).ignored, (std::vector<std::string>{"pat"}));
}

TEST(NcclEnvGrammar, PathLevelsAreCaseSensitive) {
  EXPECT_TRUE(check_path_level("NVL").ok);
  EXPECT_TRUE(check_path_level("SYS").ok);
  EXPECT_TRUE(check_path_level("3").ok);  // legacy integer
  auto c = check_path_level("pxb");
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.suggest, "PXB");
  EXPECT_FALSE(check_path_level("NVLINK").ok);
  EXPECT_TRUE(check_path_level("NVLINK").suggest.empty());
}

TEST(NcclEnvGrammar, DebugLevelsAndSubsystems) {
  EXPECT_TRUE(nccl_debug_level_known("INFO"));
  EXPECT_TRUE(nccl_debug_level_known("warn"));
  EXPECT_FALSE(nccl_debug_level_known("1"));
  EXPECT_FALSE(nccl_debug_level_known("DEBUG"));
  EXPECT_TRUE(nccl_debug_subsys_unknown("INIT,^NET,coll").empty());
  EXPECT_EQ(nccl_debug_subsys_unknown("INIT,NETWORK"), (std::vector<std::string>{"NETWORK"}));
}

TEST(NcclEnvNames, KnownRetiredForeignAndTypos) {
  for (const char* n : {"NCCL_ALGO", "NCCL_PROTO", "NCCL_NET", "NCCL_SOCKET_IFNAME", "NCCL_IB_HCA",
                        "NCCL_P2P_LEVEL", "NCCL_NET_GDR_LEVEL", "NCCL_DEBUG", "NCCL_BUFFSIZE",
                        "NCCL_NVLS_ENABLE", "NCCL_MAX_NRINGS", "NCCL_CUMEM_ENABLE"})
    EXPECT_TRUE(nccl_env_name_known(n)) << n;
  EXPECT_FALSE(nccl_env_name_known("NCCL_VERSION"));
  EXPECT_TRUE(nccl_env_name_foreign("NCCL_VERSION"));  // NGC images set it
  EXPECT_TRUE(nccl_env_name_foreign("NCCL_ASYNC_ERROR_HANDLING"));
  EXPECT_TRUE(nccl_env_name_foreign("NCCL_SHARP_GROUP_SIZE_THRESH"));
  EXPECT_FALSE(nccl_env_name_retired("NCCL_IB_GDR_LEVEL").empty());
  EXPECT_EQ(nccl_env_nearest_name("NCCL_SOCKET_IFNAMES"), "NCCL_SOCKET_IFNAME");
  EXPECT_EQ(nccl_env_nearest_name("NCCL_IB_HAC"), "NCCL_IB_HCA");
  EXPECT_EQ(nccl_env_nearest_name("NCCL_DEBG"), "NCCL_DEBUG");
  EXPECT_EQ(nccl_env_nearest_name("NCCL_P2P_DISABEL"), "NCCL_P2P_DISABLE");
  EXPECT_EQ(nccl_env_nearest_name("NCCL_SOMETHING_ELSE_ENTIRELY"), "");
}

}  // namespace
}  // namespace dd::nccl
