// store_finding(): the finding a failed store open becomes, by the error's kind.
#include "cluster/session.h"

#include <gtest/gtest.h>

namespace dd::cluster {
namespace {

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

}  // namespace
}  // namespace dd::cluster
