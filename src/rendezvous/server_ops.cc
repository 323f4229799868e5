// TcpStoreServer request handling after the handshake: the key-value operations, and parked waits that are
// answered when their keys arrive or their deadline passes (no polling).
#include <fmt/format.h>

#include "rendezvous/memory_store.h"
#include "rendezvous/server_state.h"

namespace dd::rendezvous {

using wire::Message;
using wire::Op;

bool TcpStoreServer::Impl::handle(Conn& c, Message& m) {
  uint64_t id = c.id;
  if (c.state != Conn::kReady) {
    handshake(c, m);
    return conns.count(id) > 0;
  }
  switch (m.op) {
    case Op::kSet:
      handle_set(c, m);
      return true;
    case Op::kAdd:
      handle_add(c, m);
      return true;
    case Op::kGet:
    case Op::kWait:
      handle_get_or_wait(c, m);
      return true;
    case Op::kCheck:
    case Op::kRemove:
    case Op::kList:
      send(c, answer_at_once(m));
      return true;
    default:
      drop(id, fmt::format("unexpected {} frame from a client", wire::op_name(m.op)));
      return false;
  }
}

// The key count cap: an error answer when a new key would pass it (caller holds mu).
std::optional<Message> TcpStoreServer::Impl::full_for(const std::string& key) const {
  if (kv.count(key) || kv.size() < opt.max_total_keys) return std::nullopt;
  return error_message(fmt::format("store full: {} keys (the cap)", kv.size()));
}

void TcpStoreServer::Impl::handle_set(Conn& c, Message& m) {
  {
    std::lock_guard lock(mu);
    if (auto full = full_for(m.key)) return send(c, *full);
    kv[m.key] = std::move(m.value);
  }
  if (is_live_key(m.key)) c.live_keys.push_back(m.key);
  Message r;
  r.op = Op::kOk;
  send(c, r);
  key_arrived(m.key);
}

void TcpStoreServer::Impl::handle_add(Conn& c, Message& m) {
  Message r;
  r.op = Op::kInteger;
  {
    std::lock_guard lock(mu);
    if (auto full = full_for(m.key)) return send(c, *full);
    int64_t now = 0;
    if (auto it = kv.find(m.key); it != kv.end()) {
      auto old = parse_counter(m.key, it->second);
      if (!old) return send(c, error_message(old.error().what));
      now = *old;
    }
    auto sum = add_counter(m.key, now, m.number);  // past 2^63 is an error answer, the key unchanged
    if (!sum) return send(c, error_message(sum.error().what));
    r.number = *sum;
    kv[m.key] = std::to_string(r.number);
  }
  send(c, r);
  key_arrived(m.key);
}

// get/wait: answered at once when every key is there, else parked until the keys arrive or m.number ms pass.
void TcpStoreServer::Impl::handle_get_or_wait(Conn& c, Message& m) {
  Waiter w;
  w.op = m.op;
  w.keys = m.op == Op::kGet ? std::vector<std::string>{m.key} : std::move(m.keys);
  Message r;
  {
    std::lock_guard lock(mu);
    for (const auto& k : w.keys)
      if (!kv.count(k)) w.missing.insert(k);
    if (w.missing.empty() && m.op == Op::kGet) {
      r.op = Op::kValue;
      r.value = kv[w.keys[0]];
    } else if (w.missing.empty()) {
      r.op = Op::kOk;
    }
  }
  if (w.missing.empty()) return send(c, r);
  int64_t ms = std::clamp<int64_t>(m.number, 0, 7 * 24 * 3600 * 1000LL);
  w.id = next_id++;
  w.conn = c.id;
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
}

// check, remove, list: read or change the keys and answer in the same step.
Message TcpStoreServer::Impl::answer_at_once(const Message& m) {
  Message r;
  std::lock_guard lock(mu);
  if (m.op == Op::kCheck) {
    r.op = Op::kBools;
    for (const auto& k : m.keys) r.bools.push_back(kv.count(k) > 0);
    return r;
  }
  if (m.op == Op::kRemove) {
    kv.erase(m.key);
    r.op = Op::kOk;
    return r;
  }
  size_t bytes = 0;
  for (auto it = kv.lower_bound(m.key); it != kv.end() && it->first.starts_with(m.key); ++it) {
    bytes += it->first.size() + 4;
    r.keys.push_back(it->first);
  }
  if (r.keys.size() > opt.limits.max_keys || bytes + 64 > opt.limits.max_frame)
    return error_message(
        fmt::format("{} keys under prefix '{}' is more than one answer may carry; use a longer prefix",
                    r.keys.size(), m.key));
  r.op = Op::kKeys;
  return r;
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
