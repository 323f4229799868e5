// store_finding(): the finding a failed store open becomes, by the error's kind; a lock-out for wrong tokens
// is named with the address, not blamed on a firewall.
#include "cluster/session.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "rendezvous/open_store.h"
#include "rendezvous/tcp_store_client.h"
#include "rendezvous/tcp_store_server.h"

namespace dd::cluster {
namespace {

using namespace std::chrono_literals;

TEST(StoreFinding, ByKind) {
  const auto unresolvable =
      store_finding(Error::make(ErrorKind::not_found, "resolve no-such.invalid: Name or service not known",
                                "no-such.invalid"),
                    "no-such.invalid:29600", 8, false);
  EXPECT_EQ(unresolvable.id, "cluster.join.unresolvable");
  EXPECT_NE(unresolvable.fix.find("getent hosts"), std::string::npos);
  EXPECT_EQ(store_finding(Error::make(ErrorKind::timeout, "connect 198.18.0.1:1: timed out"), "198.18.0.1:1",
                          8, false)
                .id,
            "cluster.join.unreachable");
  EXPECT_EQ(store_finding(Error::make(ErrorKind::auth, "bad token"), "198.18.0.1:1", 8, false).id,
            "cluster.join.refused");
  EXPECT_EQ(
      store_finding(Error::make(ErrorKind::io, "bind: Address already in use"), "198.18.0.1:1", 8, true).id,
      "cluster.join.serve_failed");
}

// Wrong tokens from a node's own address (an old run, another user of a shared host) lock it out: the node,
// with the right token, is told so by the master and names the address and the pause, not a firewall.
TEST(StoreFinding, LockedOutNodeNamesItsAddressNotAFirewall) {
  rendezvous::ServerOptions so;
  so.bind_host = "127.0.0.1";
  so.token = "short-token";  // typed by a person: guessable, so the pause holds for the right token too
  so.wrong_tokens_per_pause = 2;
  so.wrong_token_pause = 5000ms;
  auto server = rendezvous::TcpStoreServer::start(so);
  ASSERT_TRUE(server.ok()) << server.error().message();
  const std::string url = fmt::format("127.0.0.1:{}", (*server)->port());
  for (int i = 0; i < 3; ++i)
    ASSERT_FALSE(rendezvous::TcpStoreClient::connect({"127.0.0.1", (*server)->port()}, "guess",
                                                     rendezvous::deadline_in(2s))
                     .ok());
  // The joining node as check opens it: the verdict on its token comes with its first request.
  auto opened =
      rendezvous::open_store(url, so.token, rendezvous::StoreRole::kClient, rendezvous::deadline_in(1s));
  Error refusal = opened ? Error{} : opened.error();
  if (opened) {
    auto claim = opened->store->add("dd/claim/1", 1, rendezvous::deadline_in(1s));
    ASSERT_FALSE(claim.ok()) << "admitted while locked out, with a guessable token";
    refusal = claim.error();
  }
  const report::Finding f = store_finding(refusal, url, 1, false);
  EXPECT_EQ(f.id, "cluster.join.locked_out") << f.title;
  EXPECT_NE(f.title.find("too many wrong tokens came from its address 127.0.0.1"), std::string::npos)
      << f.title;
  EXPECT_NE(f.title.find("s more)"), std::string::npos) << f.title;
  EXPECT_EQ(f.fix.find("firewall"), std::string::npos) << f.fix;
}

}  // namespace
}  // namespace dd::cluster
