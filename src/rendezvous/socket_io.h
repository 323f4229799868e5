// Socket helpers for the store: resolve, connect with retries/backoff/jitter, send/recv — all bounded by a
// deadline.
#pragma once
#include <sys/socket.h>

#include <string>
#include <vector>

#include "rendezvous/store.h"

namespace dd::rendezvous {

struct HostPort {
  std::string host;
  uint16_t port = 0;
  std::string str() const;
};

// "host:port", "[v6addr]:port". Error on a missing or bad port.
Result<HostPort> parse_host_port(const std::string& s);

// getaddrinfo bounded by the deadline (a slow resolver cannot hang us: the lookup runs on a detached thread).
Result<std::vector<sockaddr_storage>> resolve(const HostPort& hp, Deadline deadline);

// One non-blocking connect attempt, poll()ed until the deadline. Returns a connected non-blocking fd.
Result<int> connect_once(const sockaddr_storage& addr, Deadline deadline);

struct ConnectOptions {
  std::chrono::milliseconds first_backoff{20};
  std::chrono::milliseconds max_backoff{1000};
  std::chrono::milliseconds attempt_timeout{3000};  // one attempt's cap (SYN lost, host silent)
};

// TCP keepalive tuned so a peer behind a dead link (no RST, no FIN) fails the socket after ~11 s of
// silence instead of the kernel's hours; probes are tiny, so a slow link is not mistaken for a dead one.
void enable_keepalive(int fd);

// Connects, retrying refused/unreachable/timed-out attempts with exponential backoff and full jitter until
// the deadline. The final Error says how many attempts were made over how long, and the last errno.
Result<int> connect_with_retries(const HostPort& hp, Deadline deadline, const ConnectOptions& opt = {});

// Writes all bytes or fails at the deadline (fd may be non-blocking).
Status send_all(int fd, std::string_view data, Deadline deadline, const std::string& peer);

// Reads what is available (at least 1 byte) into buf; 0 bytes read (peer closed) is an Error.
Result<size_t> recv_some(int fd, char* buf, size_t cap, Deadline deadline, const std::string& peer,
                         bool poll_first = false);

// "198.18.0.2:29500" for a connected socket's peer.
std::string peer_name(int fd);
std::string addr_name(const sockaddr_storage& a);

// Raises RLIMIT_NOFILE's soft limit to the hard limit; returns the new soft limit.
long raise_nofile_limit();

int remaining_ms(Deadline deadline);

}  // namespace dd::rendezvous
