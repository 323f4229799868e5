// Tests of the open side of the shared rendezvous (meeting.h): the token, the per-command etcd prefix, the
// embedded TCP store opened as master and as client, and the finding for a master nobody can reach.
#include "cluster/meeting.h"

#include <gtest/gtest.h>

#include "rendezvous/meeting_join.h"
#include "rendezvous/meeting_wait.h"
#include "rendezvous/test_util.h"

namespace dd::cluster {
namespace {

using namespace std::chrono_literals;
using rendezvous::deadline_in;

const std::string kMeetingToken = "meeting-test-token-0123456789abcdef";

TEST(MeetingOpen, EtcdGetsAPrefixPerCommandAndJob) {
  const std::string check = etcd_job_url("etcd://127.0.0.1:2379", "distdoctor", kMeetingToken, "job1");
  const std::string launch =
      etcd_job_url("etcd://127.0.0.1:2379", "distdoctor-launch", kMeetingToken, "job1");
  EXPECT_EQ(check.rfind("etcd://127.0.0.1:2379/distdoctor-", 0), 0u) << check;
  EXPECT_EQ(check.size(), std::string("etcd://127.0.0.1:2379/distdoctor-").size() + 16) << check;
  EXPECT_EQ(launch, "etcd://127.0.0.1:2379/distdoctor-launch-" + check.substr(check.size() - 16));
  EXPECT_NE(etcd_job_url("etcd://127.0.0.1:2379", "distdoctor", kMeetingToken, "job2"), check);
  EXPECT_EQ(etcd_job_url("etcd://h:2379/mine", "distdoctor", kMeetingToken, "job1"), "etcd://h:2379/mine");
  EXPECT_EQ(etcd_job_url("198.18.0.1:29500", "distdoctor", kMeetingToken, "job1"), "198.18.0.1:29500");
}

TEST(MeetingOpen, MasterAndNodeMeetThroughTheEmbeddedStore) {
  ClusterArgs args;
  args.nnodes = 2;
  args.token = kMeetingToken;
  probe::NodeFacts facts;
  JobSpec master_spec;
  master_spec.world = 2;
  master_spec.serve = true;
  master_spec.store_url = "127.0.0.1:0";
  auto master = open_meeting({args, master_spec, facts, "distdoctor", deadline_in(10s)});
  ASSERT_TRUE(master.ok()) << master.error().message();
  ASSERT_FALSE(master->failure) << master->failure->title;
  ASSERT_TRUE(master->opened.server);
  ASSERT_EQ(master->notes.size(), 2u);
  EXPECT_EQ(master->notes[0], "job token from --token");
  EXPECT_EQ(master->notes[1].rfind("rendezvous: ", 0), 0u) << master->notes[1];
  EXPECT_EQ(master->token.token, kMeetingToken);

  JobSpec node_spec = master_spec;
  node_spec.serve = false;
  node_spec.rank = 1;
  node_spec.store_url = "127.0.0.1:" + std::to_string(master->opened.port);
  auto node = open_meeting({args, node_spec, facts, "distdoctor-launch", deadline_in(10s)});
  ASSERT_TRUE(node.ok()) << node.error().message();
  ASSERT_FALSE(node->failure) << node->failure->title;
  EXPECT_EQ(node->url, node_spec.store_url);
  EXPECT_FALSE(node->opened.server);
  // The steps after the open, over what it opened: both members arrive.
  const rendezvous::MeetingKeys keys("dd/");
  ASSERT_TRUE(rendezvous::publish_member(*master->opened.store, keys, 0, "{}", {}, deadline_in(5s)).ok());
  ASSERT_TRUE(rendezvous::publish_member(*node->opened.store, keys, 1, "{}", {}, deadline_in(5s)).ok());
  auto w = rendezvous::wait_for_all(*master->opened.store, keys,
                                    {.ranks = rendezvous::all_ranks(2), .until = deadline_in(5s)});
  ASSERT_TRUE(w.ok()) << w.error().message();
  EXPECT_TRUE(w->missing.empty());
  master->opened.server->stop();
}

TEST(MeetingOpen, AnUnreachableMasterIsAFindingWithTheTokenNote) {
  ClusterArgs args;
  args.token = kMeetingToken;
  args.timeout_s = 1;
  probe::NodeFacts facts;
  JobSpec spec;
  spec.world = 2;
  spec.rank = 1;
  spec.store_url = "127.0.0.1:" + std::to_string(rendezvous::testing::free_port());
  const auto t0 = rendezvous::Clock::now();
  auto m = open_meeting({args, spec, facts, "distdoctor", deadline_in(800ms)});
  ASSERT_TRUE(m.ok()) << m.error().message();
  ASSERT_TRUE(m->failure);
  EXPECT_EQ(m->failure->id, "cluster.join.unreachable");
  EXPECT_NE(m->failure->title.find(spec.store_url), std::string::npos) << m->failure->title;
  EXPECT_EQ(m->notes, std::vector<std::string>{"job token from --token"});
  EXPECT_FALSE(m->opened.store);
  EXPECT_LT(rendezvous::Clock::now() - t0, 5s);
}

TEST(MeetingOpen, ANodeWithoutATokenCannotMeet) {
  if (std::getenv("DISTDOCTOR_TOKEN")) GTEST_SKIP() << "DISTDOCTOR_TOKEN is set in this environment";
  ClusterArgs args;
  probe::NodeFacts facts;
  JobSpec spec;  // by hand, not the node that prints the command: it needs node rank 0's token
  spec.world = 2;
  spec.rank = 1;
  spec.store_url = "127.0.0.1:1";
  auto m = open_meeting({args, spec, facts, "distdoctor-launch", deadline_in(1s)});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message().find("no job token"), std::string::npos) << m.error().message();
}

}  // namespace
}  // namespace dd::cluster
