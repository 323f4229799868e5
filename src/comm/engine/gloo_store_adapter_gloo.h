// Gloo's rendezvous Store on top of distdoctor's (rendezvous::Store), for the Gloo engine: every call keeps a
// deadline, and a missed one becomes a gloo::IoException, which the engine catches. Only Gloo builds use it.
#pragma once
#include <gloo/common/error.h>
#include <gloo/rendezvous/store.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "rendezvous/store.h"

namespace dd::comm {

class GlooStoreAdapter : public gloo::rendezvous::Store {
 public:
  GlooStoreAdapter(rendezvous::Store* s, std::string prefix, std::chrono::milliseconds timeout)
      : s_(s), prefix_(std::move(prefix)), timeout_(timeout) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    auto st =
        s_->set(prefix_ + key, std::string(data.begin(), data.end()), rendezvous::Clock::now() + timeout_);
    if (!st) throw gloo::IoException(st.error().message());
  }
  std::vector<char> get(const std::string& key) override {
    auto v = s_->get(prefix_ + key, rendezvous::Clock::now() + timeout_);
    if (!v) throw gloo::IoException(v.error().message());
    return std::vector<char>(v->begin(), v->end());
  }
  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    std::vector<std::string> full;
    for (const auto& k : keys) full.push_back(prefix_ + k);
    auto st = s_->wait(full, rendezvous::Clock::now() + std::min(timeout, timeout_));
    if (!st) throw gloo::IoException(st.error().message());
  }

 private:
  rendezvous::Store* s_;
  std::string prefix_;
  std::chrono::milliseconds timeout_;
};

}  // namespace dd::comm
