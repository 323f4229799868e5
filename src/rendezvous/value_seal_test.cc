// Tests of sealed store values: a value round-trips under its token and key; another token, another key, a
// changed byte or a missing seal is refused.
#include "rendezvous/value_seal.h"

#include <gtest/gtest.h>

namespace dd::rendezvous {
namespace {

TEST(ValueSeal, RoundTripsUnderItsTokenAndKey) {
  const std::string sealed = seal_value("tok", "p/launch/job", "{\"a\":1}");
  EXPECT_EQ(sealed.find("tok"), std::string::npos);
  auto v = unseal_value("tok", "p/launch/job", sealed);
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_EQ(*v, "{\"a\":1}");
  EXPECT_EQ(*unseal_value("tok", "k", seal_value("tok", "k", "")), "");
}

TEST(ValueSeal, RefusesWhatTheTokenDidNotSeal) {
  const std::string sealed = seal_value("tok", "p/launch/job", "settings");
  auto other_token = unseal_value("tok2", "p/launch/job", sealed);
  ASSERT_FALSE(other_token.ok());
  EXPECT_EQ(other_token.error().kind, ErrorKind::protocol);
  EXPECT_NE(other_token.error().message().find("p/launch/job"), std::string::npos);
  EXPECT_FALSE(unseal_value("tok", "p/launch/other", sealed).ok()) << "moved to another key";
  std::string changed = sealed;
  changed.back() = 'X';
  EXPECT_FALSE(unseal_value("tok", "p/launch/job", changed).ok());
  EXPECT_FALSE(unseal_value("tok", "p/launch/job", "{\"command\":[\"touch\",\"x\"]}").ok());
  EXPECT_FALSE(unseal_value("tok", "p/launch/job", "").ok());
}

}  // namespace
}  // namespace dd::rendezvous
