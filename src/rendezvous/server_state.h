// Internal state of TcpStoreServer shared by its source files (start, loop, handshake, requests). Not an API.
#pragma once
#include <deque>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "rendezvous/event_log_limiter.h"
#include "rendezvous/tcp_store_server.h"

namespace dd::rendezvous {
namespace server_detail {

constexpr uint64_t kListenId = 0, kWakeId = 1;
constexpr size_t kMaxHandshakeBytes = 1024;  // hello and auth are under 100 bytes each

struct Conn {
  uint64_t id = 0;
  int fd = -1;
  std::string peer, peer_ip;
  enum { kHello, kAuth, kReady } state = kHello;
  wire::FrameReader reader;
  std::string out;
  size_t out_pos = 0;
  bool want_write = false;
  std::string client_nonce, server_nonce;
  Deadline handshake_deadline;
  std::vector<std::string> live_keys;  // removed when this connection closes (is_live_key)
  uint64_t parked = 0;                 // waiter id while a get/wait is parked: later frames wait their turn
  explicit Conn(wire::Limits l) : reader(l) {}
};

struct Waiter {
  uint64_t id = 0, conn = 0;
  wire::Op op = wire::Op::kWait;
  std::vector<std::string> keys;  // in request order
  std::unordered_set<std::string> missing;
  Deadline deadline;
  Clock::time_point start;
};

// An error answer: the request is refused, the connection stays open.
inline wire::Message error_message(std::string text) {
  wire::Message m;
  m.op = wire::Op::kError;
  m.value = std::move(text);
  return m;
}

}  // namespace server_detail
using namespace server_detail;

struct TcpStoreServer::Impl {
  ServerOptions opt;
  int listen_fd = -1, epoll_fd = -1, wake_fd = -1, spare_fd = -1;
  uint16_t port = 0;
  std::thread thread;
  bool stopped = false;

  mutable std::mutex mu;  // guards kv, stats and log_lines (read by other threads)
  std::map<std::string, std::string> kv;
  ServerStats st;
  std::deque<std::string> log_lines;

  // Loop-thread only.
  uint64_t next_id = 2;
  std::unordered_map<uint64_t, std::unique_ptr<Conn>> conns;
  std::set<std::pair<Deadline, uint64_t>> handshakes;  // oldest first
  std::unordered_map<std::string, size_t> pending_by_ip;
  EventLogLimiter event_log;
  std::unordered_map<uint64_t, Waiter> waiters;
  std::unordered_map<std::string, std::vector<uint64_t>> watchers;
  std::set<std::pair<Deadline, uint64_t>> wait_deadlines;

  void log(const std::string& line) {
    {
      std::lock_guard lock(mu);
      log_lines.push_back(line);
      if (log_lines.size() > 256) log_lines.pop_front();
    }
    if (opt.log)
      opt.log(line);
    else
      std::cerr << "distdoctor store: " << line << "\n";
  }

  // Connection events (drops, refusals, wrong tokens): rate-limited, so a flood cannot flood the log.
  void log_event(const std::string& line) {
    for (auto& l : event_log.admit(line, Clock::now())) log(l);
  }

  void run();
  void check_somaxconn();
  void accept_all();  // server_accept.cc
  bool admit(const std::string& ip, const std::string& peer);
  void end_handshake(Conn& c);
  void on_readable(Conn& c);
  void process(Conn& c);
  bool handle(Conn& c, wire::Message& m);     // false: connection was closed
  void handshake(Conn& c, wire::Message& m);  // server_handshake.cc
  void on_hello(Conn& c, wire::Message& m);
  void on_auth(Conn& c, wire::Message& m);
  void handle_set(Conn& c, wire::Message& m);
  void handle_add(Conn& c, wire::Message& m);
  void handle_get_or_wait(Conn& c, wire::Message& m);
  wire::Message answer_at_once(const wire::Message& m);                 // check, remove, list
  std::optional<wire::Message> full_for(const std::string& key) const;  // caller holds mu
  void send(Conn& c, const wire::Message& m) { c.out += wire::encode(m); }
  void flush(Conn& c);
  void drop(uint64_t id, const std::string& reason);
  void close_conn(uint64_t id);
  void key_arrived(const std::string& key);
  enum class End { kArrived, kTimedOut, kCancelled };
  void finish_waiter(uint64_t wid, End how);
  std::vector<uint64_t>
      resume;  // connections whose parked wait ended: answer flushed, later frames processed
  void update_events(Conn& c);
};

}  // namespace dd::rendezvous
