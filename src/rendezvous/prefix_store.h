// PrefixStore: namespaces every key of an underlying Store ("job42/" + key), so several jobs or phases share
// one.
#pragma once
#include <memory>

#include "rendezvous/store.h"

namespace dd::rendezvous {

class PrefixStore : public Store {
 public:
  // prefix is used as given; a '/' is appended when it does not end with one.
  PrefixStore(std::string prefix, std::shared_ptr<Store> inner);
  Status set(const std::string& key, const std::string& value, Deadline deadline) override;
  Result<std::string> get(const std::string& key, Deadline deadline) override;
  Result<int64_t> add(const std::string& key, int64_t delta, Deadline deadline) override;
  Status wait(const std::vector<std::string>& keys, Deadline deadline) override;
  Result<std::vector<bool>> check(const std::vector<std::string>& keys, Deadline deadline) override;
  Status remove(const std::string& key, Deadline deadline) override;
  Result<std::vector<int64_t>> pipeline(const std::vector<StoreOp>& ops, Deadline deadline) override;
  // Keys come back without the prefix.
  Result<std::vector<std::string>> list(const std::string& prefix, Deadline deadline) override;
  const std::string& prefix() const { return prefix_; }

 private:
  std::string k(const std::string& key) const { return prefix_ + key; }
  std::vector<std::string> k(const std::vector<std::string>& keys) const;
  Error strip(Error e) const;
  std::string prefix_;
  std::shared_ptr<Store> inner_;
};

}  // namespace dd::rendezvous
