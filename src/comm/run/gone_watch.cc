// GoneWatch (gone_watch.h): one polling thread per supervised run that meets through a shared store.
#include "comm/run/gone_watch.h"

#include "rendezvous/open_store.h"

namespace dd::comm {

using rendezvous::Clock;
using namespace std::chrono_literals;

namespace {
// Long enough that a store slowed by load is not taken for gone; short enough that a node whose master went
// away stops its ranks long before their own deadlines (a follower ran on for 45 s once in the fault matrix).
constexpr auto kStoreLost = 10s;
}  // namespace

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
  auto answered = Clock::now();  // the store's last answer: a store silent for kStoreLost is gone itself
  for (;;) {
    {
      std::unique_lock<std::mutex> l(mu_);
      if (cv_.wait_for(l, 300ms, [this] { return stop_; })) return;
    }
    auto have = opened->store->check({key}, Clock::now() + 1s);
    if (have) answered = Clock::now();
    if (!have && Clock::now() - answered >= kStoreLost) {
      std::lock_guard<std::mutex> l(mu_);
      what_ = "the job's store (node rank 0), silent for " +
              std::to_string(std::chrono::duration_cast<std::chrono::seconds>(kStoreLost).count()) + " s";
      gone_ = true;
      return;
    }
    if (!have || have->empty() || !(*have)[0]) continue;
    auto v = opened->store->get(key, Clock::now() + 1s);
    std::lock_guard<std::mutex> l(mu_);
    what_ = v ? *v : "ranks of another node";
    gone_ = true;
    return;
  }
}

}  // namespace dd::comm
