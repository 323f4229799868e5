// The store server's admission caps, shared by its loop threads: connections open in all, and connections not
// yet authenticated (per peer address, and in all, where the oldest stranger makes room for a newcomer).
#pragma once
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

namespace dd::rendezvous {

class Admission {
 public:
  Admission(size_t max_connections, size_t max_pending, size_t max_pending_per_peer)
      : max_connections_(max_connections), max_pending_(max_pending), max_per_peer_(max_pending_per_peer) {}

  struct Evict {
    size_t shard = 0;  // the loop thread that holds it
    uint64_t conn = 0;
    size_t pending = 0;  // how many were authenticating when it was picked
  };
  struct Verdict {
    std::string refusal;         // non-empty: refuse the newcomer (nothing was counted)
    std::optional<Evict> evict;  // the oldest stranger to drop for it (no longer counted as pending)
  };

  // A newcomer from ip: refused, or counted as open and pending authentication (conn ids are unique).
  Verdict admit(const std::string& ip, size_t shard, uint64_t conn);
  // The connection finished or abandoned its handshake: no longer pending. Repeats are harmless.
  void left_handshake(uint64_t conn);
  // An admitted connection closed.
  void closed();
  size_t open() const;

 private:
  struct Pending {
    uint64_t seq = 0;
    size_t shard = 0;
    std::string ip;
  };
  void forget(uint64_t conn, const Pending& p);  // caller holds mu_

  const size_t max_connections_, max_pending_, max_per_peer_;
  mutable std::mutex mu_;
  size_t open_ = 0;
  uint64_t next_seq_ = 0;
  std::set<std::pair<uint64_t, uint64_t>> oldest_;  // (seq, conn): the oldest pending first
  std::unordered_map<uint64_t, Pending> pending_;
  std::unordered_map<std::string, size_t> by_ip_;
};

}  // namespace dd::rendezvous
