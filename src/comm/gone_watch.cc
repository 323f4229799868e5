// GoneWatch (gone_watch.h): one polling thread per supervised run that meets through a shared store.
#include "comm/gone_watch.h"

#include "rendezvous/open_store.h"

namespace dd::comm {

using rendezvous::Clock;
using namespace std::chrono_literals;

GoneWatch::GoneWatch(const std::string& url, const std::string& token, const std::string& prefix)
    : thread_([this, url, token, k = key(prefix)] { poll(url, token, k); }) {}

GoneWatch::~GoneWatch() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

std::string GoneWatch::what() const {
  std::lock_guard<std::mutex> l(mu_);
  return what_;
}

void GoneWatch::poll(std::string url, std::string token, std::string key) {
  auto opened = rendezvous::open_store(url, token, rendezvous::StoreRole::kClient, Clock::now() + 2s);
  if (!opened) return;
  for (;;) {
    {
      std::unique_lock<std::mutex> l(mu_);
      if (cv_.wait_for(l, 300ms, [this] { return stop_; })) return;
    }
    auto have = opened->store->check({key}, Clock::now() + 1s);
    if (!have || have->empty() || !(*have)[0]) continue;
    auto v = opened->store->get(key, Clock::now() + 1s);
    std::lock_guard<std::mutex> l(mu_);
    what_ = v ? *v : "ranks of another node";
    gone_ = true;
    return;
  }
}

}  // namespace dd::comm
