// DirStore: a Store kept in a directory that every local process can see (one file per key, written by
// rename, counters under flock). Used by the worker processes of one node when no TCP store is given.
#pragma once
#include <string>

#include "rendezvous/store.h"

namespace dd::comm {

class DirStore : public rendezvous::Store {
 public:
  explicit DirStore(std::string dir) : dir_(std::move(dir)) {}
  Status set(const std::string& key, const std::string& value, rendezvous::Deadline deadline) override;
  Result<std::string> get(const std::string& key, rendezvous::Deadline deadline) override;
  Result<int64_t> add(const std::string& key, int64_t delta, rendezvous::Deadline deadline) override;
  Status wait(const std::vector<std::string>& keys, rendezvous::Deadline deadline) override;
  Result<std::vector<bool>> check(const std::vector<std::string>& keys,
                                  rendezvous::Deadline deadline) override;
  Status remove(const std::string& key, rendezvous::Deadline deadline) override;
  const std::string& dir() const { return dir_; }

 private:
  std::string path_of(const std::string& key) const;
  std::string dir_;
};

}  // namespace dd::comm
