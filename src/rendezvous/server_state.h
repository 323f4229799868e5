// Internal state of TcpStoreServer shared by its source files. Not an API. The server runs several loop
// threads ("shards"), each with its own epoll, its own SO_REUSEPORT listeners and the connections it
// accepted; what they share (the keys, the parked waits, the caps, the log) lives in Impl under its locks.
// A thread that completes another shard's parked wait, or evicts its connection, posts that to the shard.
#pragma once
#include <atomic>
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
#include "rendezvous/server_admission.h"
#include "rendezvous/tcp_store_server.h"

namespace dd::rendezvous {
namespace server_detail {

constexpr uint64_t kWakeId = 1;              // epoll data of a shard's eventfd
constexpr uint64_t kListenBit = 1ull << 63;  // epoll data of a listener: this bit | its fd
constexpr size_t kMaxHandshakeBytes = 1024;  // hello and auth are under 100 bytes each
// A connection buffering no more than this is never dropped for the server's total (ServerOptions::
// max_buffered_bytes), and an answer buffer's room past it is given back once sent.
constexpr size_t kSmallBuffer = 1u << 20;

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
  uint64_t stored_bytes = 0;           // what this connection grew the store by (ServerOptions::max_bytes_*)
  uint64_t parked = 0;                 // waiter id while a get/wait is parked: later frames wait their turn
  uint64_t buffered = 0;               // what this connection counts in Impl::buffered (Shard::account)
  explicit Conn(wire::Limits l) : reader(l) {}
};

// A parked get/wait (shared: any shard may complete it when a key arrives).
struct Waiter {
  uint64_t id = 0, conn = 0;
  size_t shard = 0;  // the shard that holds conn
  wire::Op op = wire::Op::kWait;
  std::vector<std::string> keys;  // in request order
  std::unordered_set<std::string> missing;
  Deadline deadline;
};

// Handed to the shard that holds conn: the answer to its parked wait, or a reason to drop it.
struct Posted {
  size_t shard = 0;
  uint64_t conn = 0, waiter = 0;
  Deadline deadline;  // the waiter's (to forget its expiry)
  wire::Message answer;
  std::string drop_reason;  // non-empty: drop the connection instead
};

// An error answer: the request is refused, the connection stays open.
inline wire::Message error_message(std::string text) {
  wire::Message m;
  m.op = wire::Op::kError;
  m.value = std::move(text);
  return m;
}

enum class End { kArrived, kTimedOut, kCancelled };

}  // namespace server_detail
using namespace server_detail;

struct Shard;

struct TcpStoreServer::Impl {
  ServerOptions opt;
  uint16_t port = 0;
  bool stopped = false;
  std::atomic<bool> stopping{false};
  std::vector<std::unique_ptr<Shard>> shards;
  std::atomic<uint64_t> next_id{2};  // connection and waiter ids, unique across shards
  // Bytes in all connections' buffers (ServerOptions::max_buffered_bytes), and the most seen.
  std::atomic<uint64_t> buffered{0}, buffered_peak{0};
  std::unique_ptr<Admission> admission;

  mutable std::mutex mu;  // guards everything below
  std::map<std::string, std::string> kv;
  uint64_t kv_bytes = 0;  // keys and values in kv
  ServerStats st;
  std::deque<std::string> log_lines;
  EventLogLimiter event_log;
  std::unordered_map<uint64_t, Waiter> waiters;
  std::unordered_map<std::string, std::vector<uint64_t>> watchers;

  void log(const std::string& line);        // caller must not hold mu
  void log_event(const std::string& line);  // rate-limited: a flood of bad connections cannot flood the log
  void count(uint64_t ServerStats::*field);
  void check_somaxconn(size_t listeners);
  std::optional<wire::Message> full_for(const std::string& key) const;  // caller holds mu
  // Caller holds mu. Stores value under key for connection c, within the byte caps (an error answer when
  // past one; nothing changed then).
  std::optional<wire::Message> store_value(Conn& c, const std::string& key, std::string value);
  void erase_key(const std::string& key);  // caller holds mu
  // Caller holds mu. The waiters this key completes, taken out of the shared maps, each with its answer.
  void key_arrived(const std::string& key, std::vector<Posted>* done);
  // Caller holds mu. Takes waiter wid out (false: another thread finished it first) and fills its answer.
  bool take_waiter(uint64_t wid, End how, Posted* out);
  // Hands each posted item to its shard (one wake per shard); items for `self` are returned to it.
  std::vector<Posted> dispatch(std::vector<Posted> items, size_t self);
};

struct Shard {
  TcpStoreServer::Impl& srv;
  size_t index = 0;
  int epoll_fd = -1, wake_fd = -1, spare_fd = -1;
  std::vector<int> listen_fds;
  std::thread thread;

  // Loop-thread only.
  std::unordered_map<uint64_t, std::unique_ptr<Conn>> conns;
  std::set<std::pair<Deadline, uint64_t>> handshakes;      // oldest first
  std::set<std::pair<Deadline, uint64_t>> wait_deadlines;  // this shard's parked waits
  std::vector<uint64_t> resume;  // connections whose parked wait ended: later frames are processed

  std::mutex inbox_mu;  // guards inbox (written by other shards)
  std::vector<Posted> inbox;

  Shard(TcpStoreServer::Impl& s, size_t i) : srv(s), index(i) {}
  void post(std::vector<Posted> items);  // any thread

  void run();  // server_loop.cc
  void drain_inbox();
  void deliver(Posted& p);
  void on_readable(Conn& c);
  void process(Conn& c);
  void flush(Conn& c);
  // Counts c's buffers in the server's total; false (c to be dropped) when the total is past its cap and c
  // holds more than a small buffer.
  bool account(Conn& c);
  void update_events(Conn& c);
  void drop(uint64_t id, const std::string& reason);
  void close_conn(uint64_t id);
  void accept_all(int listen_fd);  // server_accept.cc
  // A new connection: counted against the caps and sent our challenge; its id, or 0 when refused (closed).
  uint64_t adopt(int fd, std::string peer, std::string ip);
  void end_handshake(Conn& c);
  bool handle(Conn& c, wire::Message& m);  // server_ops.cc; false: connection was closed
  void handle_set(Conn& c, wire::Message& m);
  void handle_add(Conn& c, wire::Message& m);
  void handle_get_or_wait(Conn& c, wire::Message& m);
  wire::Message answer_at_once(Conn& c, const wire::Message& m);  // check, remove, list
  void finish_waiter(uint64_t wid, End how);                      // timed out or cancelled here
  void handshake(Conn& c, wire::Message& m);                      // server_handshake.cc
  void on_hello(Conn& c, wire::Message& m);
  void on_auth(Conn& c, wire::Message& m);
  void send(Conn& c, const wire::Message& m) { c.out += wire::encode(m); }
};

}  // namespace dd::rendezvous
