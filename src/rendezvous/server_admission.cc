// Admission caps of the store server (see server_admission.h). One mutex; every call is a few map operations.
#include "rendezvous/server_admission.h"

#include <fmt/format.h>

namespace dd::rendezvous {

Admission::Verdict Admission::admit(const std::string& ip, size_t shard, uint64_t conn) {
  Verdict v;
  std::lock_guard lock(mu_);
  if (open_ >= max_connections_) {
    v.refusal = fmt::format("{} connections open (the cap)", open_);
    return v;
  }
  if (auto it = by_ip_.find(ip); it != by_ip_.end() && it->second >= max_per_peer_) {
    v.refusal =
        fmt::format("{} connections from {} not authenticated yet (the cap per address)", it->second, ip);
    return v;
  }
  if (pending_.size() >= max_pending_ && !oldest_.empty()) {
    uint64_t victim = oldest_.begin()->second;
    auto it = pending_.find(victim);
    v.evict = Evict{it->second.shard, victim, pending_.size()};
    forget(victim, it->second);
  }
  ++open_;
  uint64_t seq = next_seq_++;
  pending_.emplace(conn, Pending{seq, shard, ip});
  oldest_.insert({seq, conn});
  ++by_ip_[ip];
  return v;
}

void Admission::forget(uint64_t conn, const Pending& p) {
  oldest_.erase({p.seq, conn});
  if (auto it = by_ip_.find(p.ip); it != by_ip_.end() && --it->second == 0) by_ip_.erase(it);
  pending_.erase(conn);  // p refers into pending_: erased last
}

void Admission::left_handshake(uint64_t conn) {
  std::lock_guard lock(mu_);
  if (auto it = pending_.find(conn); it != pending_.end()) forget(conn, it->second);
}

void Admission::closed() {
  std::lock_guard lock(mu_);
  if (open_ > 0) --open_;
}

size_t Admission::open() const {
  std::lock_guard lock(mu_);
  return open_;
}

}  // namespace dd::rendezvous
