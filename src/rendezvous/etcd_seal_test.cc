// On a real etcd: a user of the same etcd who does not hold the job token can write the job's keys (etcd has
// no per-job access here), but a node never takes such a value as data: get and add fail naming the key.
// Before values were sealed, a value written this way (node rank 0's job settings, a command in them) was
// read as the job's own.
#include <gtest/gtest.h>

#include "rendezvous/etcd_store.h"
#include "rendezvous/test_util.h"

namespace dd::rendezvous {
namespace {

using namespace std::chrono_literals;

TEST(EtcdSeal, ValuesWrittenWithoutTheTokenAreRefused) {
  if (!testing::EtcdProcess::available())
    GTEST_SKIP() << "etcd not installed (" << testing::EtcdProcess::kBinary
                 << "); apt-get install etcd-server";
  auto* etcd = testing::EtcdProcess::shared();
  if (!etcd) GTEST_SKIP() << "etcd did not start on loopback";
  const std::string url = etcd->url("seal-" + std::to_string(::getpid()));
  auto job = EtcdStore::open(url, "the-job-token", deadline_in(5s));
  auto stranger = EtcdStore::open(url, "a-guess", deadline_in(5s));
  ASSERT_TRUE(job.ok() && stranger.ok());
  ASSERT_TRUE((*job)->set("launch/job", "{\"command_digest\":\"aa\"}", deadline_in(5s)).ok());
  EXPECT_EQ(*(*job)->get("launch/job", deadline_in(5s)), "{\"command_digest\":\"aa\"}");
  ASSERT_TRUE((*stranger)->set("launch/job", "{\"command\":[\"touch\",\"pwned\"]}", deadline_in(5s)).ok());
  auto forged = (*job)->get("launch/job", deadline_in(5s));
  ASSERT_FALSE(forged.ok()) << "a value sealed with another token was read as the job's: " << *forged;
  EXPECT_EQ(forged.error().kind, ErrorKind::protocol);
  EXPECT_NE(forged.error().message().find("launch/job"), std::string::npos) << forged.error().message();
  ASSERT_TRUE((*job)->add("launch/claim/0", 1, deadline_in(5s)).ok());
  ASSERT_FALSE((*stranger)->add("launch/claim/0", 1, deadline_in(5s)).ok()) << "counters are sealed too";
  EXPECT_EQ(*(*job)->add("launch/claim/0", 1, deadline_in(5s)), 2);
  EXPECT_FALSE(EtcdStore::open(url, "", deadline_in(1s)).ok()) << "no token, nothing to seal with";
}

}  // namespace
}  // namespace dd::rendezvous
