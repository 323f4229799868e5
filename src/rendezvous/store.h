// Store: the key-value rendezvous every multi-node feature meets through (embedded TCP, etcd, in-memory,
// prefix). Every call takes a deadline (a store across the network can stall on any of them); passing it is
// an Error of ErrorKind::timeout, never a hang.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace dd::rendezvous {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;

inline Deadline deadline_in(std::chrono::milliseconds d) { return Clock::now() + d; }

// A key with a path segment "~live" ("dd/~live/3", "launch/dd/~live/3") lives as long as the connection that
// set it, on the embedded TCP store: when a node's process dies its connection closes and its live key is
// gone, so the master notices at once instead of at a deadline. Other stores keep it like any key.
inline bool is_live_key(std::string_view key) {
  return key.starts_with("~live/") || key.find("/~live/") != std::string_view::npos;
}

// One request of Store::pipeline: a set, or an add to a counter.
struct StoreOp {
  enum class Kind { kSet, kAdd };
  Kind kind = Kind::kSet;
  std::string key;
  std::string value;  // set
  int64_t delta = 0;  // add
  static StoreOp set(std::string key, std::string value) {
    return {Kind::kSet, std::move(key), std::move(value), 0};
  }
  static StoreOp add(std::string key, int64_t delta) { return {Kind::kAdd, std::move(key), {}, delta}; }
};

class Store {
 public:
  virtual ~Store() = default;
  virtual Status set(const std::string& key, const std::string& value, Deadline deadline) = 0;
  // Blocks until the key exists or the deadline passes.
  virtual Result<std::string> get(const std::string& key, Deadline deadline) = 0;
  // Atomically adds delta to an integer counter (missing = 0) and returns the new value.
  virtual Result<int64_t> add(const std::string& key, int64_t delta, Deadline deadline) = 0;
  // Blocks until all keys exist or the deadline passes; on timeout the Error names the missing keys.
  virtual Status wait(const std::vector<std::string>& keys, Deadline deadline) = 0;
  // Which of these keys exist now (does not wait for them): used to name who is missing.
  virtual Result<std::vector<bool>> check(const std::vector<std::string>& keys, Deadline deadline) = 0;
  virtual Status remove(const std::string& key, Deadline deadline) = 0;
  // Runs the ops in order and answers one number per op (add: the counter's new value; set: 0). Every op is
  // tried; when one failed, the first failure is the result. The embedded TCP store sends them in one write
  // and reads the answers behind it: one round trip, one server wake-up and one answer write for the lot
  // (what thousands of joining nodes pay at once). The default runs them one call at a time (store.cc).
  virtual Result<std::vector<int64_t>> pipeline(const std::vector<StoreOp>& ops, Deadline deadline);
  // Every key that starts with prefix, sorted (does not wait for keys): lets the master list who has arrived.
  // Added after the first interface; the default says the store cannot list.
  virtual Result<std::vector<std::string>> list(const std::string& prefix, Deadline deadline) {
    return Error::make(ErrorKind::unavailable, "this store cannot list keys");
  }
};

}  // namespace dd::rendezvous
