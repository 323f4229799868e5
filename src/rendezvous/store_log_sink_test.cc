// The embedded store's log lines go to the sink its caller gives (cli/ prints them as "distdoctor store: "),
// never to stderr by the server itself: rendezvous/ prints nothing (issue 42 part 5).
#include <gtest/gtest.h>

#include <mutex>
#include <vector>

#include "rendezvous/tcp_test_util.h"

namespace dd::rendezvous::testing {
namespace {

// A server on loopback that a client with a wrong token knocked on; true once the refusal was logged.
bool refuse_one_wrong_token(const ServerOptions& so) {
  auto s = TcpStoreServer::start(so);
  if (!s.ok()) return false;
  const bool refused =
      !TcpStoreClient::connect({"127.0.0.1", (*s)->port()}, "not-the-token", deadline_in(5s)).ok();
  return refused && log_soon(**s, kWrongTokenMessage);
}

TEST(StoreLogSink, ServerWithoutASinkPrintsNothing) {
  ServerOptions so;
  so.bind_host = "127.0.0.1";
  so.token = kToken;
  ::testing::internal::CaptureStderr();
  const bool logged = refuse_one_wrong_token(so);
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(logged);
  EXPECT_EQ(printed, "") << "the server wrote to stderr itself";
}

TEST(StoreLogSink, TheSinkGetsEachLineAsLogged) {
  std::mutex mu;
  std::vector<ProgressLine> got;
  ServerOptions so;
  so.bind_host = "127.0.0.1";
  so.token = kToken;
  so.log = [&](const ProgressLine& line) {
    std::lock_guard lock(mu);
    got.push_back(line);
  };
  ::testing::internal::CaptureStderr();
  const bool logged = refuse_one_wrong_token(so);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  ASSERT_TRUE(logged);
  std::lock_guard lock(mu);
  bool refusal = false;
  for (const auto& l : got) {
    EXPECT_EQ(l.kind, ProgressKind::progress) << l.text;  // printed as before: "distdoctor store: LINE"
    EXPECT_EQ(l.text.find(kToken), std::string::npos) << "token leaked: " << l.text;
    refusal = refusal || l.text.find(kWrongTokenMessage) != std::string::npos;
  }
  EXPECT_TRUE(refusal) << got.size() << " lines, none names the wrong token";
}

}  // namespace
}  // namespace dd::rendezvous::testing
