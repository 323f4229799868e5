// MemoryStore: in-process key-value store with blocking waits on a condition variable.
#include "rendezvous/memory_store.h"

#include <fmt/format.h>

#include <charconv>

namespace dd::rendezvous {

Error missing_keys_error(const std::vector<std::string>& missing, std::chrono::milliseconds waited) {
  std::string names;
  size_t shown = 0;
  for (const auto& k : missing) {
    if (shown == 16) {
      names += fmt::format(" and {} more", missing.size() - shown);
      break;
    }
    names += (shown ? ", " : "") + k;
    ++shown;
  }
  return Error::timeout(fmt::format("timed out after {:.1f} s waiting for {} key{}: {}",
                                    waited.count() / 1000.0, missing.size(), missing.size() == 1 ? "" : "s",
                                    names));
}

Result<int64_t> parse_counter(const std::string& key, const std::string& value) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || p != value.data() + value.size()) {
    return Error::invalid(fmt::format("add on key '{}': its value is not an integer", key));
  }
  return v;
}

Result<int64_t> add_counter(const std::string& key, int64_t old, int64_t delta) {
  int64_t sum = 0;
  if (__builtin_add_overflow(old, delta, &sum))
    return Error::invalid(
        fmt::format("add on key '{}': {} + {} does not fit a 64-bit counter", key, old, delta));
  return sum;
}

// set, add, check, remove and list only take the mutex (held briefly by everyone): they never wait, so the
// deadline has nothing to bound.
Status MemoryStore::set(const std::string& key, const std::string& value, Deadline) {
  {
    std::lock_guard lock(mu_);
    kv_[key] = value;
  }
  cv_.notify_all();
  return ok_status();
}

Result<std::string> MemoryStore::get(const std::string& key, Deadline deadline) {
  auto start = Clock::now();
  std::unique_lock lock(mu_);
  if (!cv_.wait_until(lock, deadline, [&] { return kv_.count(key) > 0; })) {
    return missing_keys_error({key},
                              std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start));
  }
  return kv_[key];
}

Result<int64_t> MemoryStore::add(const std::string& key, int64_t delta, Deadline) {
  int64_t now = 0;
  {
    std::lock_guard lock(mu_);
    auto it = kv_.find(key);
    if (it != kv_.end()) {
      auto old = parse_counter(key, it->second);
      if (!old) return old.error();
      now = *old;
    }
    auto sum = add_counter(key, now, delta);
    if (!sum) return sum.error();
    now = *sum;
    kv_[key] = std::to_string(now);
  }
  cv_.notify_all();
  return now;
}

Status MemoryStore::wait(const std::vector<std::string>& keys, Deadline deadline) {
  auto start = Clock::now();
  std::unique_lock lock(mu_);
  auto all = [&] {
    for (const auto& k : keys)
      if (!kv_.count(k)) return false;
    return true;
  };
  if (cv_.wait_until(lock, deadline, all)) return ok_status();
  std::vector<std::string> missing;
  for (const auto& k : keys)
    if (!kv_.count(k)) missing.push_back(k);
  return missing_keys_error(missing,
                            std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start));
}

Result<std::vector<bool>> MemoryStore::check(const std::vector<std::string>& keys, Deadline) {
  std::lock_guard lock(mu_);
  std::vector<bool> out;
  for (const auto& k : keys) out.push_back(kv_.count(k) > 0);
  return out;
}

Status MemoryStore::remove(const std::string& key, Deadline) {
  std::lock_guard lock(mu_);
  kv_.erase(key);
  return ok_status();
}

Result<std::vector<std::string>> MemoryStore::list(const std::string& prefix, Deadline) {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (auto it = kv_.lower_bound(prefix); it != kv_.end() && it->first.starts_with(prefix); ++it)
    out.push_back(it->first);
  return out;
}

}  // namespace dd::rendezvous
