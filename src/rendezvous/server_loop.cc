// One shard's epoll loop (server_state.h): accept, read, parse, write back, drop misbehaving connections,
// expire handshakes and parked waits, take what other shards posted. Nothing here blocks.
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstring>

#include "rendezvous/server_state.h"
#include "rendezvous/socket_io.h"

namespace dd::rendezvous {

void Shard::run() {
  ::pthread_setname_np(::pthread_self(), "dd-store");
  if (srv.opt.thread_nice != 0)
    ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), srv.opt.thread_nice);
  std::vector<epoll_event> events(1024);
  while (true) {
    auto now = Clock::now();
    Deadline next = now + std::chrono::seconds(1);
    if (!handshakes.empty()) next = std::min(next, handshakes.begin()->first);
    if (!wait_deadlines.empty()) next = std::min(next, wait_deadlines.begin()->first);
    int timeout = next <= now ? 0 : remaining_ms(next) + 1;
    int n = ::epoll_wait(epoll_fd, events.data(), static_cast<int>(events.size()), timeout);
    if (n < 0 && errno != EINTR) {
      srv.log(fmt::format("epoll_wait failed: {}; server stops", std::strerror(errno)));
      return;
    }
    for (int i = 0; i < n; ++i) {
      uint64_t id = events[i].data.u64;
      if (id == kWakeId) {
        uint64_t count = 0;
        [[maybe_unused]] auto r = ::read(wake_fd, &count, sizeof count);
        if (srv.stopping.load()) return;  // stop()
        drain_inbox();
        continue;
      }
      if (id & kListenBit) {
        accept_all(static_cast<int>(id & ~kListenBit));
        continue;
      }
      auto it = conns.find(id);
      if (it == conns.end()) continue;  // closed earlier in this batch
      Conn& c = *it->second;
      if (events[i].events & EPOLLOUT) {
        flush(c);
        if (!conns.count(id)) continue;
      }
      if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) on_readable(c);
    }
    now = Clock::now();
    while (!wait_deadlines.empty() && wait_deadlines.begin()->first <= now)
      finish_waiter(wait_deadlines.begin()->second, End::kTimedOut);
    while (!handshakes.empty() && handshakes.begin()->first <= now) {
      uint64_t id = handshakes.begin()->second;
      drop(id, fmt::format("no authentication within {} ms (stalled or not a distdoctor client)",
                           srv.opt.handshake_timeout.count()));
    }
    while (!resume.empty()) {
      uint64_t id = resume.back();
      resume.pop_back();
      if (auto it = conns.find(id); it != conns.end()) process(*it->second);
    }
  }
}

void Shard::on_readable(Conn& c) {
  char buf[65536];
  uint64_t id = c.id;
  while (true) {
    ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
    if (n > 0) {
      c.reader.feed(buf, static_cast<size_t>(n));
      // A read that filled the buffer may be one of many (a pipeline of large values): the frames it
      // completed are carried out now, so only a frame that never completes (or a flood behind a parked
      // wait) reaches the cap below.
      if (c.state != Conn::kReady || static_cast<size_t>(n) == sizeof buf) {
        process(c);
        if (!conns.count(id)) return;
      }
      if (c.reader.buffered() > srv.opt.limits.max_frame + wire::kHeaderBytes + (1u << 16)) {
        drop(id, fmt::format("{} bytes buffered without a complete answer (cap)", c.reader.buffered()));
        return;
      }
      if (!account(c)) {
        drop(id,
             fmt::format("{} bytes buffered while all connections' buffers are past the server's cap of {} "
                         "MiB",
                         c.buffered, srv.opt.max_buffered_bytes >> 20));
        return;
      }
      // Before authentication only the small handshake frames are legitimate: a stranger may not make us
      // buffer megabytes. (An authenticating client may send its first requests right behind its proof.)
      if (c.state != Conn::kReady && c.reader.buffered() > kMaxHandshakeBytes) {
        drop(id, fmt::format("{} bytes sent before authenticating (handshake frames are small)",
                             c.reader.buffered()));
        return;
      }
      if (static_cast<size_t>(n) < sizeof buf) break;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (c.state == Conn::kReady) {
      // A client hanging up after its work is normal; what it sent before hanging up (a set it did not wait
      // for) is carried out first.
      if (n == 0) {
        process(c);
        if (!conns.count(id)) return;
      }
      close_conn(id);
    } else {
      drop(id, n == 0 ? "closed during the handshake" : std::string("read error: ") + std::strerror(errno));
    }
    return;
  }
  process(c);
}

void Shard::process(Conn& c) {
  uint64_t id = c.id;
  while (!c.parked) {
    wire::Parsed p = c.reader.next();
    if (p.state == wire::Parsed::kNeedMore) break;
    if (p.state == wire::Parsed::kBad) {
      drop(id, p.reason);
      return;
    }
    if (!handle(c, p.message)) return;
    // A pipeline of large answers: sent and counted as it grows.
    if (c.out.size() - c.out_pos > kSmallBuffer) {
      flush(c);
      if (!conns.count(id)) return;
    }
  }
  flush(c);
}

void Shard::flush(Conn& c) {
  while (c.out_pos < c.out.size()) {
    ssize_t n = ::send(c.fd, c.out.data() + c.out_pos, c.out.size() - c.out_pos, MSG_NOSIGNAL);
    if (n > 0) {
      c.out_pos += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    close_conn(c.id);  // peer gone; its waits are cancelled with it
    return;
  }
  if (c.out_pos == c.out.size()) {
    if (c.out.capacity() > kSmallBuffer)
      std::string().swap(c.out);  // a large answer's room goes back, not kept per connection
    else
      c.out.clear();
    c.out_pos = 0;
  } else if (c.out.size() - c.out_pos > srv.opt.max_out_bytes) {
    drop(c.id, fmt::format("{} answer bytes not read by the client (cap)", c.out.size() - c.out_pos));
    return;
  }
  if (!account(c)) {
    drop(c.id,
         fmt::format("{} answer bytes not read while all connections' buffers are past the server's cap of "
                     "{} MiB",
                     c.out.size() - c.out_pos, srv.opt.max_buffered_bytes >> 20));
    return;
  }
  update_events(c);
}

bool Shard::account(Conn& c) {
  const uint64_t now = c.reader.buffered() + (c.out.size() - c.out_pos);
  const uint64_t total = now >= c.buffered ? srv.buffered.fetch_add(now - c.buffered) + (now - c.buffered)
                                           : srv.buffered.fetch_sub(c.buffered - now) - (c.buffered - now);
  c.buffered = now;
  uint64_t peak = srv.buffered_peak.load(std::memory_order_relaxed);
  while (total > peak && !srv.buffered_peak.compare_exchange_weak(peak, total, std::memory_order_relaxed)) {
  }
  return total <= srv.opt.max_buffered_bytes || now <= kSmallBuffer;
}

void Shard::update_events(Conn& c) {
  bool want = c.out_pos < c.out.size();
  if (want == c.want_write) return;
  c.want_write = want;
  epoll_event ev{};
  ev.events = static_cast<uint32_t>(EPOLLIN) | (want ? static_cast<uint32_t>(EPOLLOUT) : 0u);
  ev.data.u64 = c.id;
  ::epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c.fd, &ev);
}

void Shard::drop(uint64_t id, const std::string& reason) {
  auto it = conns.find(id);
  if (it == conns.end()) return;
  srv.log_event(fmt::format("dropped connection from {}: {}", it->second->peer, reason));
  srv.count(&ServerStats::dropped_bad_input);
  close_conn(id);
}

void Shard::close_conn(uint64_t id) {
  auto it = conns.find(id);
  if (it == conns.end()) return;
  Conn& c = *it->second;
  if (c.parked) finish_waiter(c.parked, End::kCancelled);  // cancel: nobody to answer
  if (c.state != Conn::kReady) end_handshake(c);
  ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c.fd, nullptr);
  ::close(c.fd);
  srv.admission->closed();
  srv.buffered.fetch_sub(c.buffered);
  if (!c.live_keys.empty()) {
    std::lock_guard lock(srv.mu);
    for (const auto& k : c.live_keys) srv.erase_key(k);
  }
  conns.erase(it);
}

}  // namespace dd::rendezvous
