// Parked get/wait requests of the store server: answered when their keys arrive (by whichever shard stores
// the last one) or their deadline passes (by the shard holding the connection), never by polling. An answer
// for another shard's connection is posted to that shard and its loop woken once per batch.
#include <sys/eventfd.h>
#include <unistd.h>

#include "rendezvous/server_state.h"

namespace dd::rendezvous {

using wire::Message;
using wire::Op;

// get/wait: answered at once when every key is there, else parked until the keys arrive or m.number ms pass.
void Shard::handle_get_or_wait(Conn& c, Message& m) {
  Waiter w;
  w.op = m.op;
  w.keys = m.op == Op::kGet ? std::vector<std::string>{m.key} : std::move(m.keys);
  Message r;
  {
    std::lock_guard lock(srv.mu);
    for (const auto& k : w.keys)
      if (!srv.kv.count(k)) w.missing.insert(k);
    if (w.missing.empty()) {
      r.op = m.op == Op::kGet ? Op::kValue : Op::kOk;
      if (m.op == Op::kGet) r.value = srv.kv[w.keys[0]];
    } else {
      int64_t ms = std::clamp<int64_t>(m.number, 0, 7 * 24 * 3600 * 1000LL);
      w.id = srv.next_id.fetch_add(1);
      w.conn = c.id;
      w.shard = index;
      w.deadline = Clock::now() + std::chrono::milliseconds(ms);
      for (const auto& k : w.missing) srv.watchers[k].push_back(w.id);
      c.parked = w.id;
      wait_deadlines.insert({w.deadline, w.id});
      srv.waiters.emplace(w.id, std::move(w));
      srv.st.parked_waits = srv.waiters.size();
    }
  }
  if (!c.parked) return send(c, r);
  if (m.number <= 0) finish_waiter(c.parked, End::kTimedOut);
}

void TcpStoreServer::Impl::key_arrived(const std::string& key, std::vector<Posted>* done) {
  auto it = watchers.find(key);
  if (it == watchers.end()) return;
  std::vector<uint64_t> ids = std::move(it->second);
  watchers.erase(it);
  for (uint64_t wid : ids) {
    auto w = waiters.find(wid);
    if (w == waiters.end()) continue;
    w->second.missing.erase(key);
    Posted p;
    if (w->second.missing.empty() && take_waiter(wid, End::kArrived, &p)) done->push_back(std::move(p));
  }
}

bool TcpStoreServer::Impl::take_waiter(uint64_t wid, End how, Posted* out) {
  auto it = waiters.find(wid);
  if (it == waiters.end()) return false;
  Waiter w = std::move(it->second);
  waiters.erase(it);
  st.parked_waits = waiters.size();
  for (const auto& k : w.missing) {
    auto wl = watchers.find(k);
    if (wl == watchers.end()) continue;
    std::erase(wl->second, wid);
    if (wl->second.empty()) watchers.erase(wl);
  }
  out->shard = w.shard;
  out->conn = w.conn;
  out->waiter = wid;
  out->deadline = w.deadline;
  Message& r = out->answer;
  if (how == End::kTimedOut) {
    r.op = Op::kTimeout;
    for (const auto& k : w.keys)
      if (w.missing.count(k)) r.keys.push_back(k);
  } else if (how == End::kArrived && w.op == Op::kGet) {
    auto kvit = kv.find(w.keys[0]);
    r.op = kvit != kv.end() ? Op::kValue : Op::kTimeout;  // removed again before we answered: missing
    if (kvit != kv.end())
      r.value = kvit->second;
    else
      r.keys = w.keys;
  } else {
    r.op = Op::kOk;
  }
  return true;
}

std::vector<Posted> TcpStoreServer::Impl::dispatch(std::vector<Posted> items, size_t self) {
  if (items.empty()) return items;
  std::vector<std::vector<Posted>> by_shard(shards.size());
  for (auto& p : items) by_shard[p.shard].push_back(std::move(p));
  for (size_t s = 0; s < shards.size(); ++s)
    if (s != self && !by_shard[s].empty()) shards[s]->post(std::move(by_shard[s]));
  return std::move(by_shard[self]);
}

void Shard::post(std::vector<Posted> items) {
  bool was_empty;
  {
    std::lock_guard lock(inbox_mu);
    was_empty = inbox.empty();
    for (auto& p : items) inbox.push_back(std::move(p));
  }
  if (!was_empty) return;  // its wake is already pending
  uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(wake_fd, &one, sizeof one);
}

void Shard::drain_inbox() {
  std::vector<Posted> items;
  {
    std::lock_guard lock(inbox_mu);
    items.swap(inbox);
  }
  for (auto& p : items) deliver(p);
}

// A posted item for one of this shard's connections (it may have closed meanwhile).
void Shard::deliver(Posted& p) {
  auto it = conns.find(p.conn);
  if (!p.drop_reason.empty()) {
    if (it != conns.end() && it->second->state != Conn::kReady) drop(p.conn, p.drop_reason);
    return;
  }
  wait_deadlines.erase({p.deadline, p.waiter});
  if (it == conns.end() || it->second->parked != p.waiter) return;
  Conn& c = *it->second;
  c.parked = 0;
  send(c, p.answer);
  resume.push_back(c.id);
}

// The deadline of one of this shard's waits passed, or its connection closed (kCancelled: nobody to answer).
void Shard::finish_waiter(uint64_t wid, End how) {
  Posted p;
  bool mine;
  {
    std::lock_guard lock(srv.mu);
    mine = srv.take_waiter(wid, how, &p);
  }
  if (!mine) {  // another shard completed it first: its answer is in the inbox; the expiry is moot
    for (auto it = wait_deadlines.begin(); it != wait_deadlines.end(); ++it)
      if (it->second == wid) {
        wait_deadlines.erase(it);
        break;
      }
    return;
  }
  if (how == End::kCancelled) {
    wait_deadlines.erase({p.deadline, wid});
    if (auto it = conns.find(p.conn); it != conns.end()) it->second->parked = 0;
    return;
  }
  deliver(p);
}

}  // namespace dd::rendezvous
