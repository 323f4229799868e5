// Tests of JobSpec resolution: by hand (master alone, master given, errors) and under launchers.
#include "cluster/job_spec.h"

#include <gtest/gtest.h>

namespace dd::cluster {

static JobSpec ok(const ClusterArgs& a, const EnvMap& env = {}) {
  auto r = resolve_job(a, detect_launcher(env), env);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message());
  return r.ok() ? *r : JobSpec{};
}

static std::string err(const ClusterArgs& a, const EnvMap& env = {}) {
  auto r = resolve_job(a, detect_launcher(env), env);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.error().message();
}

TEST(ClusterJobSpec, ByHand) {
  ClusterArgs a;
  EXPECT_FALSE(cluster_requested(a, detect_launcher({})));
  a.nnodes = 4;
  EXPECT_TRUE(cluster_requested(a, detect_launcher({})));
  auto first = ok(a);
  EXPECT_TRUE(first.serve);
  EXPECT_TRUE(first.print_command);
  EXPECT_TRUE(first.make_token);
  EXPECT_EQ(first.store_url, "0.0.0.0:0");
  EXPECT_EQ(first.world, 4);

  a.master = "10.1.2.3:29500";
  EXPECT_NE(err(a).find("--node-rank"), std::string::npos);
  a.node_rank = 0;
  auto master = ok(a);
  EXPECT_TRUE(master.serve);
  EXPECT_FALSE(master.print_command);
  EXPECT_TRUE(master.make_token);  // torchrun's way (--node-rank 0 --master): it makes the token all the same
  EXPECT_EQ(master.store_url, "10.1.2.3:29500");  // the store binds that address (open_store)
  a.node_rank = 3;
  auto worker = ok(a);
  EXPECT_FALSE(worker.serve);
  EXPECT_FALSE(worker.make_token);  // it needs node rank 0's
  EXPECT_EQ(worker.store_url, "10.1.2.3:29500");
  EXPECT_EQ(worker.rank, 3);
  a.node_rank = 4;
  EXPECT_NE(err(a).find("outside 0..3"), std::string::npos);
  a.node_rank = 0;
  a.master = "etcd://10.0.0.1:2379";
  EXPECT_FALSE(ok(a).serve);       // etcd: nobody serves
  EXPECT_FALSE(ok(a).make_token);  // nor makes the token: every node needs the one given

  ClusterArgs b;
  b.nnodes = 2;
  b.node_rank = 1;
  EXPECT_NE(err(b).find("--master"), std::string::npos);
}

TEST(ClusterJobSpec, OpenMpiOneHostMeetsOnLoopbackAtTheSamePort) {
  EnvMap r0{{"OMPI_COMM_WORLD_RANK", "0"},
            {"OMPI_COMM_WORLD_SIZE", "4"},
            {"OMPI_COMM_WORLD_LOCAL_RANK", "0"},
            {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"},
            {"OMPI_MCA_ess_base_jobid", "777"}};
  EnvMap r3 = r0;
  r3["OMPI_COMM_WORLD_RANK"] = r3["OMPI_COMM_WORLD_LOCAL_RANK"] = "3";
  ClusterArgs a;
  EXPECT_TRUE(cluster_requested(a, detect_launcher(r0)));
  auto s0 = ok(a, r0), s3 = ok(a, r3);
  EXPECT_FALSE(s0.by_hand);
  EXPECT_TRUE(s0.serve);
  EXPECT_FALSE(s3.serve);
  EXPECT_EQ(s3.local_rank, 3);
  auto port = s3.store_url.substr(s3.store_url.rfind(':'));
  EXPECT_EQ(s3.store_url, "127.0.0.1" + port);
  EXPECT_EQ(s0.store_url, s3.store_url);
  // Several hosts and no MASTER_ADDR: no meeting point, said clearly.
  r3["OMPI_COMM_WORLD_LOCAL_SIZE"] = "2";
  EXPECT_NE(err(a, r3).find("MASTER_ADDR"), std::string::npos);
  r3["MASTER_ADDR"] = "head";
  EXPECT_EQ(ok(a, r3).store_url.rfind("head:", 0), 0u);
}

TEST(ClusterJobSpec, TorchrunAgentStoreAndSlurmHosts) {
  EnvMap t{{"RANK", "1"},         {"WORLD_SIZE", "2"},      {"LOCAL_RANK", "1"},
           {"MASTER_ADDR", "n0"}, {"MASTER_PORT", "29500"}, {"TORCHELASTIC_USE_AGENT_STORE", "True"}};
  EXPECT_EQ(ok({}, t).store_url, "n0:29501");
  EnvMap s{{"SLURM_PROCID", "2"}, {"SLURM_STEP_ID", "0"},           {"SLURM_NTASKS", "4"},
           {"SLURM_NODEID", "1"}, {"SLURM_NODELIST", "gpu[07-08]"}, {"SLURM_JOB_ID", "9"}};
  auto spec = ok({}, s);
  EXPECT_EQ(spec.node_rank, 1);
  EXPECT_EQ(spec.expected_hosts, (std::vector<std::string>{"gpu07", "gpu08"}));
  EXPECT_EQ(spec.store_url.rfind("gpu07:", 0), 0u);
  EXPECT_EQ(spec.store_url, ok({}, s).store_url);  // deterministic
  EnvMap one{{"SLURM_PROCID", "0"}, {"SLURM_STEP_ID", "0"}, {"SLURM_NTASKS", "1"}};
  EXPECT_FALSE(cluster_requested({}, detect_launcher(one)));  // a single task is a single-node check
}

}  // namespace dd::cluster
