// Helpers for the embedded TCP store tests: a quiet server, a client, a hand-made authenticated connection, a
// hand-made master's listening socket, a server in a child process, and checks on what the server logged or
// closed. Tests only.
#pragma once
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <thread>

#include "rendezvous/auth.h"
#include "rendezvous/tcp_store_client.h"
#include "rendezvous/tcp_store_server.h"
#include "rendezvous/test_util.h"

namespace dd::rendezvous::testing {

using namespace std::chrono_literals;

inline const std::string kToken = "test-token-4b1d";

inline std::unique_ptr<TcpStoreServer> serve(ServerOptions so = {}) {
  so.bind_host = "127.0.0.1";
  if (so.token.empty()) so.token = kToken;
  auto s = TcpStoreServer::start(so);
  EXPECT_TRUE(s.ok()) << s.error().message();
  return std::move(*s);
}

// A joining node's options: its proof rides with the first request
// (ClientOptions::verdict_with_first_answer).
inline ClientOptions deferred_verdict() {
  ClientOptions o;
  o.verdict_with_first_answer = true;
  return o;
}

inline std::unique_ptr<TcpStoreClient> client(uint16_t port, const std::string& token = kToken) {
  auto c = TcpStoreClient::connect({"127.0.0.1", port}, token, deadline_in(5s));
  EXPECT_TRUE(c.ok()) << c.error().message();
  return c.ok() ? std::move(*c) : nullptr;
}

inline bool log_has(const TcpStoreServer& s, const std::string& needle) {
  for (const auto& l : s.recent_log())
    if (l.find(needle) != std::string::npos) return true;
  return false;
}

// log_has within 2 s: a line the server writes after it answered the client (a refusal, then its pause).
inline bool log_soon(const TcpStoreServer& s, const std::string& needle) {
  const auto until = Clock::now() + 2s;
  while (!log_has(s, needle)) {
    if (Clock::now() > until) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

// True when the server closed the raw connection (recv sees EOF or a reset within 5 s).
inline bool closed_by_server(int fd) {
  char buf[256];
  while (true) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
    if (n < 0) return false;  // timeout
  }
}

// Does the handshake by hand, so tests can then send raw bytes as an authenticated client.
inline int raw_authenticated(uint16_t port) {
  int fd = raw_connect(port);
  wire::Message hello;
  hello.op = wire::Op::kHello;
  hello.nonce = std::string(32, 'c');
  std::string f = wire::encode(hello);
  ::send(fd, f.data(), f.size(), 0);
  wire::FrameReader r;
  auto read = [&]() {
    char buf[4096];
    for (wire::Parsed p = r.next();; p = r.next()) {
      if (p.state == wire::Parsed::kFrame) return p.message;
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return wire::Message{};
      r.feed(buf, n);
    }
  };
  wire::Message ch = read();
  wire::Message auth;
  auth.op = wire::Op::kAuth;
  auth.proof = client_proof(kToken, hello.nonce, ch.nonce);
  f = wire::encode(auth);
  ::send(fd, f.data(), f.size(), 0);
  EXPECT_EQ(read().number, 1);
  return fd;
}

// Runs a server in a child process; returns its pid and port.
inline std::pair<pid_t, uint16_t> serve_in_child() {
  int p[2];
  EXPECT_EQ(::pipe(p), 0);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(p[0]);
    ServerOptions so;
    so.bind_host = "127.0.0.1";
    so.token = kToken;
    auto s = TcpStoreServer::start(so);
    uint16_t port = s.ok() ? (*s)->port() : 0;
    [[maybe_unused]] auto n = ::write(p[1], &port, sizeof port);
    ::pause();
    ::_exit(0);
  }
  ::close(p[1]);
  uint16_t port = 0;
  [[maybe_unused]] auto n = ::read(p[0], &port, sizeof port);
  ::close(p[0]);
  return {pid, port};
}

}  // namespace dd::rendezvous::testing
