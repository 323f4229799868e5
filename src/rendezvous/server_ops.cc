// TcpStoreServer request handling after the handshake: the key-value operations, within the key count and
// byte caps (ServerOptions). A set or add that completes parked waits hands their answers to the shards
// holding them (server_waits.cc).
#include <fmt/format.h>

#include <algorithm>

#include "rendezvous/memory_store.h"
#include "rendezvous/server_state.h"

namespace dd::rendezvous {

using wire::Message;
using wire::Op;

bool Shard::handle(Conn& c, Message& m) {
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
      send(c, answer_at_once(c, m));
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

// The byte caps: a key's bytes count with its value's; growing counts against the connection that grew it,
// and shrinking or removing gives back to the one that does it (never below zero).
std::optional<Message> TcpStoreServer::Impl::store_value(Conn& c, const std::string& key, std::string value) {
  auto it = kv.find(key);
  const int64_t before = it == kv.end() ? 0 : static_cast<int64_t>(key.size() + it->second.size());
  const int64_t growth = static_cast<int64_t>(key.size() + value.size()) - before;
  if (growth > 0 && c.stored_bytes + static_cast<uint64_t>(growth) > opt.max_bytes_per_client)
    return error_message(fmt::format(
        "store quota: this client would hold {} bytes of keys and values, over the {} allowed to one "
        "connection",
        c.stored_bytes + static_cast<uint64_t>(growth), opt.max_bytes_per_client));
  if (growth > 0 && kv_bytes + static_cast<uint64_t>(growth) > opt.max_total_bytes)
    return error_message(fmt::format("store full: {} bytes of keys and values (the cap is {})", kv_bytes,
                                     opt.max_total_bytes));
  kv_bytes = static_cast<uint64_t>(static_cast<int64_t>(kv_bytes) + growth);
  c.stored_bytes = static_cast<uint64_t>(std::max<int64_t>(0, static_cast<int64_t>(c.stored_bytes) + growth));
  if (it == kv.end())
    kv.emplace(key, std::move(value));
  else
    it->second = std::move(value);
  return std::nullopt;
}

void TcpStoreServer::Impl::erase_key(const std::string& key) {
  auto it = kv.find(key);
  if (it == kv.end()) return;
  kv_bytes -= key.size() + it->second.size();
  kv.erase(it);
}

void Shard::handle_set(Conn& c, Message& m) {
  std::vector<Posted> done;
  {
    std::lock_guard lock(srv.mu);
    if (auto full = srv.full_for(m.key)) return send(c, *full);
    if (auto over = srv.store_value(c, m.key, std::move(m.value))) return send(c, *over);
    srv.key_arrived(m.key, &done);
  }
  if (is_live_key(m.key)) c.live_keys.push_back(m.key);
  Message r;
  r.op = Op::kOk;
  send(c, r);
  for (auto& p : srv.dispatch(std::move(done), index)) deliver(p);
}

void Shard::handle_add(Conn& c, Message& m) {
  Message r;
  r.op = Op::kInteger;
  std::vector<Posted> done;
  {
    std::lock_guard lock(srv.mu);
    if (auto full = srv.full_for(m.key)) return send(c, *full);
    int64_t now = 0;
    if (auto it = srv.kv.find(m.key); it != srv.kv.end()) {
      auto old = parse_counter(m.key, it->second);
      if (!old) return send(c, error_message(old.error().what));
      now = *old;
    }
    auto sum = add_counter(m.key, now, m.number);  // past 2^63 is an error answer, the key unchanged
    if (!sum) return send(c, error_message(sum.error().what));
    r.number = *sum;
    if (auto over = srv.store_value(c, m.key, std::to_string(r.number))) return send(c, *over);
    srv.key_arrived(m.key, &done);
  }
  send(c, r);
  for (auto& p : srv.dispatch(std::move(done), index)) deliver(p);
}

// check, remove, list: read or change the keys and answer in the same step.
Message Shard::answer_at_once(Conn& c, const Message& m) {
  Message r;
  std::lock_guard lock(srv.mu);
  if (m.op == Op::kCheck) {
    r.op = Op::kBools;
    for (const auto& k : m.keys) r.bools.push_back(srv.kv.count(k) > 0);
    return r;
  }
  if (m.op == Op::kRemove) {
    if (auto it = srv.kv.find(m.key); it != srv.kv.end())
      c.stored_bytes -= std::min<uint64_t>(c.stored_bytes, m.key.size() + it->second.size());
    srv.erase_key(m.key);
    r.op = Op::kOk;
    return r;
  }
  size_t bytes = 0;
  for (auto it = srv.kv.lower_bound(m.key); it != srv.kv.end() && it->first.starts_with(m.key); ++it) {
    bytes += it->first.size() + 4;
    r.keys.push_back(it->first);
  }
  if (r.keys.size() > srv.opt.limits.max_keys || bytes + 64 > srv.opt.limits.max_frame)
    return error_message(
        fmt::format("{} keys under prefix '{}' is more than one answer may carry; use a longer prefix",
                    r.keys.size(), m.key));
  r.op = Op::kKeys;
  return r;
}

}  // namespace dd::rendezvous
