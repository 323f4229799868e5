// DirStore: a Store kept in a directory that every local process can see (one file per key, written by
// rename, counters under flock). Used by the worker processes of one node when no TCP store is given; it
// keeps the Store contract like the others (store_conformance_test.cc runs it). Its files go through a
// probe::Fs: the real filesystem unless a test hands it a MemFs.
#pragma once
#include <optional>
#include <string>

#include "probe/fs.h"
#include "rendezvous/store.h"

namespace dd::rendezvous {

class DirStore : public Store {
 public:
  explicit DirStore(std::string dir, probe::Fs& fs = probe::local_fs()) : dir_(std::move(dir)), fs_(fs) {}
  Status set(const std::string& key, const std::string& value, Deadline deadline) override;
  Result<std::string> get(const std::string& key, Deadline deadline) override;
  Result<int64_t> add(const std::string& key, int64_t delta, Deadline deadline) override;
  Status wait(const std::vector<std::string>& keys, Deadline deadline) override;
  Result<std::vector<bool>> check(const std::vector<std::string>& keys, Deadline deadline) override;
  Status remove(const std::string& key, Deadline deadline) override;
  Result<std::vector<std::string>> list(const std::string& prefix, Deadline deadline) override;
  const std::string& dir() const { return dir_; }

 private:
  std::string path_of(const std::string& key) const;
  static std::optional<std::string> key_of(const std::string& file_name);
  bool read_key(const std::string& key, std::string* out) const;
  std::string dir_;
  probe::Fs& fs_;
};

}  // namespace dd::rendezvous
