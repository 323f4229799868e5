// PrefixStore: forwards every call to the inner store with the prefix added to keys.
#include "rendezvous/prefix_store.h"

namespace dd::rendezvous {

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> inner)
    : prefix_(std::move(prefix)), inner_(std::move(inner)) {
  if (!prefix_.empty() && prefix_.back() != '/') prefix_ += '/';
}

std::vector<std::string> PrefixStore::k(const std::vector<std::string>& keys) const {
  std::vector<std::string> out;
  out.reserve(keys.size());
  for (const auto& key : keys) out.push_back(k(key));
  return out;
}

// Error texts name keys as the caller knows them: the prefix is removed from "waiting for ..." lists.
Error PrefixStore::strip(Error e) const {
  if (prefix_.empty()) return e;
  std::string out;
  size_t pos = 0;
  for (size_t hit; (hit = e.what.find(prefix_, pos)) != std::string::npos; pos = hit + prefix_.size())
    out += e.what.substr(pos, hit - pos);
  out += e.what.substr(pos);
  e.what = out;
  return e;
}

Status PrefixStore::set(const std::string& key, const std::string& value, Deadline deadline) {
  return inner_->set(k(key), value, deadline);
}

Result<std::string> PrefixStore::get(const std::string& key, Deadline deadline) {
  auto r = inner_->get(k(key), deadline);
  if (!r) return strip(r.error());
  return r;
}

Result<int64_t> PrefixStore::add(const std::string& key, int64_t delta, Deadline deadline) {
  return inner_->add(k(key), delta, deadline);
}

Status PrefixStore::wait(const std::vector<std::string>& keys, Deadline deadline) {
  auto r = inner_->wait(k(keys), deadline);
  if (!r) return strip(r.error());
  return r;
}

Result<std::vector<bool>> PrefixStore::check(const std::vector<std::string>& keys, Deadline deadline) {
  return inner_->check(k(keys), deadline);
}

Status PrefixStore::remove(const std::string& key, Deadline deadline) {
  return inner_->remove(k(key), deadline);
}

// The inner store's pipeline (one round trip on the TCP store), with the prefix on every key.
Result<std::vector<int64_t>> PrefixStore::pipeline(const std::vector<StoreOp>& ops, Deadline deadline) {
  std::vector<StoreOp> mine = ops;
  for (auto& op : mine) op.key = k(op.key);
  auto r = inner_->pipeline(mine, deadline);
  if (!r) return strip(r.error());
  return r;
}

Result<std::vector<std::string>> PrefixStore::list(const std::string& prefix, Deadline deadline) {
  auto r = inner_->list(k(prefix), deadline);
  if (!r) return r;
  for (auto& key : *r) key.erase(0, prefix_.size());
  return r;
}

}  // namespace dd::rendezvous
