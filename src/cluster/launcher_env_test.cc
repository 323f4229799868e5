// Tests of launcher detection and Slurm hostlist expansion.
#include "cluster/launcher_env.h"

#include <gtest/gtest.h>

namespace dd::cluster {

static std::vector<std::string> expand(const std::string& s) {
  std::vector<std::string> out;
  std::string err;
  EXPECT_TRUE(expand_hostlist(s, &out, &err)) << s << ": " << err;
  return out;
}

TEST(ClusterHostlist, ExpandsRangesListsAndPadding) {
  EXPECT_EQ(expand("gpu[01-04,07],cpu[1-2]"),
            (std::vector<std::string>{"gpu01", "gpu02", "gpu03", "gpu04", "gpu07", "cpu1", "cpu2"}));
  EXPECT_EQ(expand("node1"), (std::vector<std::string>{"node1"}));
  EXPECT_EQ(expand("a,b,c"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(expand("r[1-2]n[08-09]"), (std::vector<std::string>{"r1n08", "r1n09", "r2n08", "r2n09"}));
  EXPECT_EQ(expand("x[098-101]").back(), "x101");
  EXPECT_EQ(expand("x[098-101]").front(), "x098");
}

TEST(ClusterHostlist, RejectsMalformedWithoutCrashing) {
  std::vector<std::string> out;
  std::string err;
  for (const char* bad : {"gpu[1-", "gpu]1[", "gpu[a-b]", "gpu[5-1]", "gpu[1-99999999]", "g[1,,2]", "[["}) {
    err.clear();
    EXPECT_FALSE(expand_hostlist(bad, &out, &err)) << bad;
    EXPECT_FALSE(err.empty()) << bad;
  }
}

TEST(ClusterLauncher, NoneWhenNothingSet) {
  auto li = detect_launcher({{"HOME", "/root"}, {"SLURM_JOB_ID", "5"}});  // salloc shell, not srun
  EXPECT_FALSE(li.detected());
  EXPECT_TRUE(li.notes().empty());
}

TEST(ClusterLauncher, Slurm) {
  auto li = detect_launcher({{"SLURM_PROCID", "5"},
                             {"SLURM_STEP_ID", "0"},
                             {"SLURM_NTASKS", "8"},
                             {"SLURM_LOCALID", "1"},
                             {"SLURM_NTASKS_PER_NODE", "4(x2)"},
                             {"SLURM_NODEID", "1"},
                             {"SLURM_NNODES", "2"},
                             {"SLURM_NODELIST", "gpu[07-08]"},
                             {"SLURM_JOB_ID", "123"}});
  EXPECT_EQ(li.launcher, "slurm");
  EXPECT_EQ(li.rank.value, 5);
  EXPECT_EQ(li.rank.source, "SLURM_PROCID");
  EXPECT_EQ(li.world_size.value, 8);
  EXPECT_EQ(li.local_rank.value, 1);
  EXPECT_EQ(li.local_world_size.value, 4);
  EXPECT_EQ(li.node_rank.value, 1);
  EXPECT_EQ(li.nnodes.value, 2);
  EXPECT_EQ(li.master_addr, "gpu07");
  EXPECT_EQ(li.master_addr_source, "first host of SLURM_NODELIST");
  EXPECT_EQ(li.job_id, "123.0");
  ASSERT_FALSE(li.notes().empty());
  EXPECT_NE(li.notes()[0].find("rank=5 from SLURM_PROCID"), std::string::npos) << li.notes()[0];
}

TEST(ClusterLauncher, OpenMpiWinsOverOuterSlurmAndMasterAddrOverrides) {
  auto li = detect_launcher({{"SLURM_PROCID", "0"},
                             {"SLURM_STEP_ID", "0"},
                             {"SLURM_NTASKS", "1"},
                             {"SLURM_NODELIST", "n[1-2]"},
                             {"OMPI_COMM_WORLD_RANK", "3"},
                             {"OMPI_COMM_WORLD_SIZE", "4"},
                             {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                             {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                             {"MASTER_ADDR", "head"},
                             {"MASTER_PORT", "29400"}});
  EXPECT_EQ(li.launcher, "openmpi");
  EXPECT_EQ(li.rank.value, 3);
  EXPECT_EQ(li.rank.source, "OMPI_COMM_WORLD_RANK");
  EXPECT_EQ(li.world_size.value, 4);
  EXPECT_EQ(li.local_world_size.value, 2);
  EXPECT_EQ(li.master_addr, "head");
  EXPECT_EQ(li.master_port, 29400);
  EXPECT_NE(li.notes()[0].find("rank=3 from OMPI_COMM_WORLD_RANK"), std::string::npos);
}

TEST(ClusterLauncher, PmiAndTorchrun) {
  auto pmi = detect_launcher({{"PMI_RANK", "2"}, {"PMI_SIZE", "6"}, {"MPI_LOCALRANKID", "0"}});
  EXPECT_EQ(pmi.launcher, "pmi");
  EXPECT_EQ(pmi.rank.value, 2);
  EXPECT_EQ(pmi.world_size.source, "PMI_SIZE");
  EXPECT_EQ(pmi.local_rank.source, "MPI_LOCALRANKID");

  auto pmix = detect_launcher({{"PMIX_RANK", "1"}, {"SLURM_NTASKS", "2"}});
  EXPECT_EQ(pmix.rank.source, "PMIX_RANK");
  EXPECT_EQ(pmix.world_size.source, "SLURM_NTASKS");

  auto tr = detect_launcher({{"RANK", "9"},
                             {"WORLD_SIZE", "16"},
                             {"LOCAL_RANK", "1"},
                             {"LOCAL_WORLD_SIZE", "8"},
                             {"GROUP_RANK", "1"},
                             {"MASTER_ADDR", "10.0.0.1"},
                             {"MASTER_PORT", "bogus"},
                             {"SLURM_PROCID", "1"}});
  EXPECT_EQ(tr.launcher, "torchrun");
  EXPECT_EQ(tr.node_rank.value, 1);
  EXPECT_EQ(tr.node_rank.source, "GROUP_RANK");
  EXPECT_EQ(tr.master_port, -1);
  EXPECT_FALSE(tr.errors.empty());  // MASTER_PORT=bogus is reported, not ignored
}

TEST(ClusterLauncher, MissingSizeIsAnError) {
  auto li = detect_launcher({{"PMIX_RANK", "0"}});
  EXPECT_EQ(li.launcher, "pmi");
  EXPECT_FALSE(li.world_size.known());
  EXPECT_FALSE(li.errors.empty());
}

}  // namespace dd::cluster
