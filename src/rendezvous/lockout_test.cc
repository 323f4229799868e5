// The lock-out refusal text read back, and which tokens resist guessing (lockout.h).
#include "rendezvous/lockout.h"

#include <gtest/gtest.h>

#include "rendezvous/auth.h"

namespace dd::rendezvous {
namespace {

TEST(Lockout, RefusalIsReadBackFromTheClientsError) {
  const std::string text = lockout_message("198.18.0.2", 9) + " (master 198.18.0.1:29500): Permission denied";
  auto l = find_lockout(text);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->addr, "198.18.0.2");
  EXPECT_EQ(l->seconds, 9);
  EXPECT_EQ(find_lockout(lockout_message("::1", 10))->addr, "::1");
  EXPECT_FALSE(find_lockout("rendezvous refused: wrong job token (the token must match the master's)"));
  EXPECT_FALSE(find_lockout("rendezvous refused: too many wrong tokens from 198.18.0.2; locked out for x s"));
  EXPECT_FALSE(find_lockout(""));
}

TEST(Lockout, LongRandomTokensResistGuessingTypedOnesDoNot) {
  EXPECT_TRUE(token_resists_guessing(generate_token()));
  EXPECT_TRUE(token_resists_guessing("f3a91c07be5d2486a1e0c9d7b3f5e8a2"));   // openssl rand -hex 16
  EXPECT_FALSE(token_resists_guessing("test-token-4b1d"));                   // short
  EXPECT_FALSE(token_resists_guessing("passwordpasswordpasswordpassword"));  // long, 7 characters
  EXPECT_FALSE(token_resists_guessing(""));
}

}  // namespace
}  // namespace dd::rendezvous
