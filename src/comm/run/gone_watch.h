// GoneWatch: while a run that meets through a shared store (a cross-node phase) is supervised, a thread with
// its own store connection polls the run's "gone" key, which the cluster leader sets when another node's
// ranks stopped answering (cross_node_release_ranks). The supervisor then stops its ranks at once instead of
// letting them wait out their deadlines for peers that are gone. A store that stops answering for 10 s (the
// master's node lost) counts as gone too: nobody is left to release or collect this node's ranks.
#pragma once
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "rendezvous/store.h"

namespace dd::comm {

class GoneWatch {
 public:
  // The key under the run's prefix that names the ranks that are gone ("ranks 4-5").
  static std::string key(const std::string& prefix) { return prefix + "gone"; }
  // Connects to `url` (at most 2 s) and polls key(prefix) every 0.3 s; a store that cannot be reached
  // leaves the watch idle (the run's own deadlines still bound it).
  GoneWatch(const std::string& url, const std::string& token, const std::string& prefix);
  ~GoneWatch();
  GoneWatch(const GoneWatch&) = delete;
  GoneWatch& operator=(const GoneWatch&) = delete;

  bool gone() const { return gone_.load(); }
  std::string what() const;  // the key's value once gone() ("ranks 4-5 on xnode2(2)")

 private:
  void poll(std::string url, std::string token, std::string key);
  std::atomic<bool> gone_{false};
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::string what_;
  std::thread thread_;
};

}  // namespace dd::comm
