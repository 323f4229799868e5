// TcpStoreServer request handling: the handshake (HMAC challenge-response), the key-value operations, and
// parked waits that are answered when their keys arrive or their deadline passes (no polling).
#include <fmt/format.h>

#include "rendezvous/auth.h"
#include "rendezvous/memory_store.h"
#include "rendezvous/server_state.h"

namespace dd::rendezvous {

using wire::Message;
using wire::Op;

namespace {
Message error_msg(std::string text) {
  Message m;
  m.op = Op::kError;
  m.value = std::move(text);
  return m;
}
}  // namespace

void TcpStoreServer::Impl::handshake(Conn& c, Message& m) {
  if (c.state == Conn::kHello) {
    if (m.op != Op::kHello) {
      drop(c.id, fmt::format("sent {} before hello", wire::op_name(m.op)));
      return;
    }
    if (m.magic != wire::kMagic) {
      drop(c.id, fmt::format("bad magic 0x{:08x} (not a distdoctor store client)", m.magic));
      return;
    }
    if (m.version != wire::kVersion) {
      send(c, error_msg(fmt::format("protocol version {} not supported (this master speaks {}); run the same "
                                    "distdoctor version on every node",
                                    m.version, wire::kVersion)));
      flush(c);
      drop(c.id, fmt::format("protocol version {} (server speaks {})", m.version, wire::kVersion));
      return;
    }
    if (m.nonce.size() < 16) {
      drop(c.id, fmt::format("client nonce of {} bytes is too short", m.nonce.size()));
      return;
    }
    c.client_nonce = m.nonce;
    c.server_nonce = random_bytes(32);
    Message ch;
    ch.op = Op::kChallenge;
    ch.nonce = c.server_nonce;
    ch.proof = server_proof(opt.token, c.client_nonce, c.server_nonce);
    send(c, ch);
    c.state = Conn::kAuth;
    return;
  }
  if (m.op != Op::kAuth) {
    drop(c.id, fmt::format("sent {} before authenticating", wire::op_name(m.op)));
    return;
  }
  Message res;
  res.op = Op::kAuthResult;
  if (!proofs_equal(m.proof, client_proof(opt.token, c.client_nonce, c.server_nonce))) {
    res.number = 0;
    res.value = kWrongTokenMessage;
    send(c, res);
    flush(c);
    log(fmt::format("{}: client {}", kWrongTokenMessage, c.peer));
    {
      std::lock_guard lock(mu);
      ++st.refused_token;
    }
    close_conn(c.id);
    return;
  }
  res.number = 1;
  send(c, res);
  c.state = Conn::kReady;
  handshakes.erase({c.handshake_deadline, c.id});
  std::lock_guard lock(mu);
  ++st.authenticated;
}

bool TcpStoreServer::Impl::handle(Conn& c, Message& m) {
  uint64_t id = c.id;
  if (c.state != Conn::kReady) {
    handshake(c, m);
    return conns.count(id) > 0;
  }
  Message r;
  switch (m.op) {
    case Op::kSet: {
      {
        std::lock_guard lock(mu);
        if (!kv.count(m.key) && kv.size() >= opt.max_total_keys) {
          send(c, error_msg(fmt::format("store full: {} keys (the cap)", kv.size())));
          return true;
        }
        kv[m.key] = std::move(m.value);
      }
      r.op = Op::kOk;
      send(c, r);
      key_arrived(m.key);
      return true;
    }
    case Op::kAdd: {
      int64_t now = 0;
      {
        std::lock_guard lock(mu);
        auto it = kv.find(m.key);
        if (it == kv.end() && kv.size() >= opt.max_total_keys) {
          send(c, error_msg(fmt::format("store full: {} keys (the cap)", kv.size())));
          return true;
        }
        if (it != kv.end()) {
          auto old = parse_counter(m.key, it->second);
          if (!old) {
            send(c, error_msg(old.error().what));
            return true;
          }
          now = *old;
        }
        now += m.number;
        kv[m.key] = std::to_string(now);
      }
      r.op = Op::kInteger;
      r.number = now;
      send(c, r);
      key_arrived(m.key);
      return true;
    }
    case Op::kGet:
    case Op::kWait: {
      Waiter w;
      w.op = m.op;
      w.keys = m.op == Op::kGet ? std::vector<std::string>{m.key} : std::move(m.keys);
      {
        std::lock_guard lock(mu);
        for (const auto& k : w.keys)
          if (!kv.count(k)) w.missing.insert(k);
        if (w.missing.empty()) {
          if (m.op == Op::kGet) {
            r.op = Op::kValue;
            r.value = kv[w.keys[0]];
          } else {
            r.op = Op::kOk;
          }
        }
      }
      if (w.missing.empty()) {
        send(c, r);
        return true;
      }
      int64_t ms = std::clamp<int64_t>(m.number, 0, 7 * 24 * 3600 * 1000LL);
      w.id = next_id++;
      w.conn = id;
      w.start = Clock::now();
      w.deadline = w.start + std::chrono::milliseconds(ms);
      for (const auto& k : w.missing) watchers[k].push_back(w.id);
      wait_deadlines.insert({w.deadline, w.id});
      c.parked = w.id;
      waiters.emplace(w.id, std::move(w));
      {
        std::lock_guard lock(mu);
        st.parked_waits = waiters.size();
      }
      if (ms == 0) finish_waiter(c.parked, End::kTimedOut);
      return true;
    }
    case Op::kCheck: {
      r.op = Op::kBools;
      std::lock_guard lock(mu);
      for (const auto& k : m.keys) r.bools.push_back(kv.count(k) > 0);
      break;
    }
    case Op::kRemove: {
      std::lock_guard lock(mu);
      kv.erase(m.key);
      r.op = Op::kOk;
      break;
    }
    case Op::kList: {
      std::lock_guard lock(mu);
      size_t bytes = 0;
      for (auto it = kv.lower_bound(m.key); it != kv.end() && it->first.starts_with(m.key); ++it) {
        bytes += it->first.size() + 4;
        r.keys.push_back(it->first);
      }
      if (r.keys.size() > opt.limits.max_keys || bytes + 64 > opt.limits.max_frame) {
        r = error_msg(
            fmt::format("{} keys under prefix '{}' is more than one answer may carry; use a longer prefix",
                        r.keys.size(), m.key));
      } else {
        r.op = Op::kKeys;
      }
      break;
    }
    default:
      drop(id, fmt::format("unexpected {} frame from a client", wire::op_name(m.op)));
      return false;
  }
  send(c, r);
  return true;
}

void TcpStoreServer::Impl::key_arrived(const std::string& key) {
  auto it = watchers.find(key);
  if (it == watchers.end()) return;
  std::vector<uint64_t> ids = std::move(it->second);
  watchers.erase(it);
  for (uint64_t wid : ids) {
    auto w = waiters.find(wid);
    if (w == waiters.end()) continue;
    w->second.missing.erase(key);
    if (w->second.missing.empty()) finish_waiter(wid, End::kArrived);
  }
}

void TcpStoreServer::Impl::finish_waiter(uint64_t wid, End how) {
  auto it = waiters.find(wid);
  if (it == waiters.end()) return;
  Waiter w = std::move(it->second);
  waiters.erase(it);
  wait_deadlines.erase({w.deadline, wid});
  for (const auto& k : w.missing) {
    auto wl = watchers.find(k);
    if (wl == watchers.end()) continue;
    std::erase(wl->second, wid);
    if (wl->second.empty()) watchers.erase(wl);
  }
  {
    std::lock_guard lock(mu);
    st.parked_waits = waiters.size();
  }
  auto ci = conns.find(w.conn);
  if (ci == conns.end() || how == End::kCancelled) return;
  Conn& c = *ci->second;
  c.parked = 0;
  Message r;
  if (how == End::kTimedOut) {
    r.op = Op::kTimeout;
    for (const auto& k : w.keys)
      if (w.missing.count(k)) r.keys.push_back(k);
  } else if (w.op == Op::kGet) {
    std::lock_guard lock(mu);
    auto kvit = kv.find(w.keys[0]);
    r.op =
        kvit != kv.end() ? Op::kValue : Op::kTimeout;  // removed again before we answered: treat as missing
    if (kvit != kv.end())
      r.value = kvit->second;
    else
      r.keys = w.keys;
  } else {
    r.op = Op::kOk;
  }
  send(c, r);
  resume.push_back(c.id);
}

}  // namespace dd::rendezvous
