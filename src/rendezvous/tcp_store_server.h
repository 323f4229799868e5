// TcpStoreServer: the embedded rendezvous store the master runs in-process (a few epoll threads sharing the
// port, non-blocking, thousands of clients). Clients authenticate with the job token before any key is
// touched; waits are parked server-side and answered when the keys arrive or their deadline passes.
#pragma once
#include <functional>
#include <memory>
#include <optional>

#include "common/progress_sink.h"
#include "rendezvous/store.h"
#include "rendezvous/wire.h"

namespace dd::rendezvous {

struct ServerOptions {
  std::string bind_host = "0.0.0.0";  // an IP literal; "::" for IPv6
  uint16_t port = 0;                  // 0: the kernel picks (see port())
  std::string token;                  // job token (secret; never logged)
  wire::Limits limits;
  size_t max_total_keys = 1u << 20;
  // Bytes of keys and values held: in all, and added by one client connection (what its sets and adds grew
  // the store by, less what it removed or shrank). A set or add past either is refused with an error answer
  // the client reports; the connection stays. A token holder grew the master to 4.1 GB in 20 s without them;
  // a real node stores a few KiB to a few MiB.
  uint64_t max_total_bytes = 1ull << 30;
  uint64_t max_bytes_per_client = 256ull << 20;
  size_t max_connections = 60000;
  // Connections not yet authenticated: per peer address and in all. Past either cap the oldest such
  // connection (of that address, or of all) is dropped for a newcomer, so idle strangers cannot keep real
  // nodes out, not even from the node's own address.
  size_t max_pending_per_peer = 256;
  size_t max_pending = 4096;
  // An address that sends more than wrong_tokens_per_pause wrong tokens within wrong_token_pause is locked
  // out for wrong_token_pause: its connections are refused with the lock-out named (guessing is slowed to a
  // few tries per pause; log lines too); a right token still gets in when the token resists guessing
  // (lockout.h).
  size_t wrong_tokens_per_pause = 8;
  std::chrono::milliseconds wrong_token_pause{10000};
  size_t max_out_bytes = 64u << 20;  // per connection, answers not yet read by a slow client
  // What all connections together may hold in their buffers: answers not yet read and requests not yet
  // complete. Past it, a connection holding more than kSmallBuffer is dropped (the one that just grew);
  // without it a thousand token holders, each asking for a 4 MiB value without reading, held 64 GiB.
  uint64_t max_buffered_bytes = 1ull << 30;
  std::chrono::milliseconds handshake_timeout{10000};  // hello..auth must finish in this time (slowloris)
  // How many clients will connect (0: unknown). When net.core.somaxconn is smaller, the server logs a
  // warning: a burst of connects past the listen queue sees retries (a SYN dropped costs a client about a
  // second).
  size_t expected_clients = 0;
  size_t somaxconn = 0;  // net.core.somaxconn as the caller read it (0: unknown, no warning)
  // Nice value for the server thread (Linux sets it per thread). Below 0 needs CAP_SYS_NICE; when not allowed
  // the thread keeps the process's value. Keeps the master's own busy work from delaying every node's
  // answers.
  int thread_nice = 0;
  // Loop threads, each with its own listener(s) sharing the port (SO_REUSEPORT) and its own connections;
  // 0: as many as the CPUs this process may run on, at most 4.
  size_t threads = 0;
  // Where log lines go (dropped connections, refused tokens): a sink the caller gives (cli/ prints
  // "distdoctor store: LINE"); empty: they are only kept for recent_log().
  ProgressSink log;
};

struct ServerStats {
  uint64_t accepted = 0, authenticated = 0, refused_token = 0, dropped_bad_input = 0, open_connections = 0;
  uint64_t refused_cap = 0;  // refused or dropped by max_connections / max_pending(_per_peer) / a pause
  uint64_t parked_waits = 0;
  uint64_t buffered_bytes = 0, buffered_peak = 0;  // all connections' buffers, now and at most
};

class TcpStoreServer {
 public:
  // Binds, listens and starts the loop threads; raises RLIMIT_NOFILE to the hard limit first.
  static Result<std::unique_ptr<TcpStoreServer>> start(ServerOptions options);
  ~TcpStoreServer();
  TcpStoreServer(const TcpStoreServer&) = delete;
  TcpStoreServer& operator=(const TcpStoreServer&) = delete;

  // Closes every connection (clients waiting see an error at once) and joins the threads. Idempotent.
  void stop();
  uint16_t port() const;

  // The master's view of the store, safe from any thread: which keys exist, and their values.
  std::vector<std::string> keys(const std::string& prefix) const;
  std::vector<bool> check(const std::vector<std::string>& keys) const;
  std::optional<std::string> peek(const std::string& key) const;
  ServerStats stats() const;
  // The last log lines (at most 256), for tests and for the master's report.
  std::vector<std::string> recent_log() const;

  struct Impl;

 private:
  explicit TcpStoreServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dd::rendezvous
