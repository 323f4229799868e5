// MemoryStore: an in-process Store (mutex + condition variable) for tests and single-process runs.
#pragma once
#include <condition_variable>
#include <map>
#include <mutex>

#include "rendezvous/store.h"

namespace dd::rendezvous {

class MemoryStore : public Store {
 public:
  Status set(const std::string& key, const std::string& value, Deadline deadline) override;
  Result<std::string> get(const std::string& key, Deadline deadline) override;
  Result<int64_t> add(const std::string& key, int64_t delta, Deadline deadline) override;
  Status wait(const std::vector<std::string>& keys, Deadline deadline) override;
  Result<std::vector<bool>> check(const std::vector<std::string>& keys, Deadline deadline) override;
  Status remove(const std::string& key, Deadline deadline) override;
  Result<std::vector<std::string>> list(const std::string& prefix, Deadline deadline) override;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::string> kv_;
};

// "timed out after 1.5 s waiting for 2 keys: a, b" (at most 16 names, then "and N more").
Error missing_keys_error(const std::vector<std::string>& missing, std::chrono::milliseconds waited);

// Parses a counter value as add() stores it (decimal text); an Error if it is not an integer.
Result<int64_t> parse_counter(const std::string& key, const std::string& value);
// old + delta, the value add() stores; an Error when the sum does not fit a 64-bit counter (every store
// answers that the same way: the key keeps its value).
Result<int64_t> add_counter(const std::string& key, int64_t old, int64_t delta);

}  // namespace dd::rendezvous
