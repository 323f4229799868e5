// The store server's admission caps, shared by its loop threads: connections open in all; connections not yet
// authenticated, per peer address and in all, where the oldest stranger (of that address, or of all) makes
// room for a newcomer, so strangers cannot keep a real node out, not even from its own address; and a pause
// for an address that sent too many wrong tokens (guessing): its newcomers still get to the handshake, where
// the master refuses them with the pause named (lockout.h says when a right token gets through).
#pragma once
#include <chrono>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

namespace dd::rendezvous {

class Admission {
 public:
  using Clock = std::chrono::steady_clock;
  // An address that sends more than `wrong_tokens` wrong tokens within `pause` is refused for `pause`.
  struct Guessing {
    size_t wrong_tokens = 8;
    std::chrono::milliseconds pause{10000};
  };
  Admission(size_t max_connections, size_t max_pending, size_t max_pending_per_peer, Guessing guessing)
      : max_connections_(max_connections),
        max_pending_(max_pending),
        max_per_peer_(max_pending_per_peer),
        guessing_(guessing) {}

  struct Evict {
    size_t shard = 0;  // the loop thread that holds it
    uint64_t conn = 0;
    size_t pending = 0;         // how many were authenticating when it was picked
    bool same_address = false;  // picked because its address reached max_pending_per_peer
  };
  struct Verdict {
    std::string refusal;         // non-empty: refuse the newcomer (nothing was counted)
    std::optional<Evict> evict;  // the oldest stranger to drop for it (no longer counted as pending)
  };

  // A newcomer from ip: refused, or counted as open and pending authentication (conn ids are unique).
  Verdict admit(const std::string& ip, size_t shard, uint64_t conn);
  // A connection from ip sent a wrong token. Returns a line to log when this starts a pause, else "".
  std::string wrong_token(const std::string& ip, Clock::time_point now = Clock::now());
  // The refusal for ip while it is paused (lockout_message: the address and the seconds left), else "".
  std::string lockout(const std::string& ip, Clock::time_point now = Clock::now()) const;
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
  struct Guesses {
    Clock::time_point since;         // the window's start
    size_t wrong = 0;                // wrong tokens in the window
    Clock::time_point paused_until;  // refused until then
  };
  void forget(uint64_t conn, const Pending& p);                                            // caller holds mu_
  std::optional<Evict> evict_oldest(const std::set<std::pair<uint64_t, uint64_t>>& from);  // caller holds mu_

  const size_t max_connections_, max_pending_, max_per_peer_;
  const Guessing guessing_;
  mutable std::mutex mu_;
  size_t open_ = 0;
  uint64_t next_seq_ = 0;
  std::set<std::pair<uint64_t, uint64_t>> oldest_;  // (seq, conn): the oldest pending first
  std::unordered_map<uint64_t, Pending> pending_;
  std::unordered_map<std::string, std::set<std::pair<uint64_t, uint64_t>>> by_ip_;  // pending, oldest first
  std::unordered_map<std::string, Guesses> guesses_;  // addresses that sent a wrong token lately (bounded)
};

}  // namespace dd::rendezvous
