// Admission caps of the store server (see server_admission.h). One mutex; every call is a few map operations.
#include "rendezvous/server_admission.h"

#include <fmt/format.h>

#include "rendezvous/lockout.h"

namespace dd::rendezvous {

namespace {
constexpr size_t kMaxGuessers = 4096;  // addresses remembered for wrong tokens; expired ones go first
}  // namespace

Admission::Verdict Admission::admit(const std::string& ip, size_t shard, uint64_t conn) {
  Verdict v;
  std::lock_guard lock(mu_);
  if (open_ >= max_connections_) {
    v.refusal = fmt::format("{} connections open (the cap)", open_);
    return v;
  }
  if (auto it = by_ip_.find(ip); it != by_ip_.end() && it->second.size() >= max_per_peer_) {
    v.evict = evict_oldest(it->second);  // that address's oldest stranger makes room
    if (v.evict) v.evict->same_address = true;
  } else if (pending_.size() >= max_pending_) {
    v.evict = evict_oldest(oldest_);
  }
  ++open_;
  uint64_t seq = next_seq_++;
  pending_.emplace(conn, Pending{seq, shard, ip});
  oldest_.insert({seq, conn});
  by_ip_[ip].insert({seq, conn});
  return v;
}

std::optional<Admission::Evict> Admission::evict_oldest(const std::set<std::pair<uint64_t, uint64_t>>& from) {
  if (from.empty()) return std::nullopt;
  uint64_t victim = from.begin()->second;
  auto it = pending_.find(victim);
  if (it == pending_.end()) return std::nullopt;
  Evict e{it->second.shard, victim, pending_.size()};
  forget(victim, it->second);  // may erase `from` (the address's last one): not used after this
  return e;
}

void Admission::forget(uint64_t conn, const Pending& p) {
  oldest_.erase({p.seq, conn});
  if (auto it = by_ip_.find(p.ip); it != by_ip_.end()) {
    it->second.erase({p.seq, conn});
    if (it->second.empty()) by_ip_.erase(it);
  }
  pending_.erase(conn);  // p refers into pending_: erased last
}

std::string Admission::wrong_token(const std::string& ip, Clock::time_point now) {
  std::lock_guard lock(mu_);
  if (guesses_.size() >= kMaxGuessers && !guesses_.count(ip)) {
    std::erase_if(guesses_, [&](const auto& kv) {
      return kv.second.paused_until <= now && now - kv.second.since >= guessing_.pause;
    });
    if (guesses_.size() >= kMaxGuessers) guesses_.erase(guesses_.begin());  // still full: forget any one
  }
  Guesses& g = guesses_[ip];
  if (g.wrong == 0 || now - g.since >= guessing_.pause) {
    g.since = now;
    g.wrong = 0;
  }
  if (++g.wrong <= guessing_.wrong_tokens) return "";
  g.paused_until = now + guessing_.pause;
  auto pause_s = std::chrono::ceil<std::chrono::seconds>(guessing_.pause).count();
  std::string line = fmt::format(
      "{} sent {} wrong tokens within {} s: its connections are refused for {} s (a node there with the "
      "right token joins after that, or at once when the token is long and random)",
      ip, g.wrong, pause_s, pause_s);
  g.since = g.paused_until;  // a new window starts when the pause ends
  g.wrong = 0;
  return line;
}

std::string Admission::lockout(const std::string& ip, Clock::time_point now) const {
  std::lock_guard lock(mu_);
  auto g = guesses_.find(ip);
  if (g == guesses_.end() || now >= g->second.paused_until) return "";
  return lockout_message(ip, std::chrono::ceil<std::chrono::seconds>(g->second.paused_until - now).count());
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
