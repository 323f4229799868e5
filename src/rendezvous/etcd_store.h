// EtcdStore: a Store on an existing etcd cluster (v3 API through its JSON gateway over plain HTTP/1.1), for
// clusters that already run etcd or outgrow one master. Waits poll with backoff until the deadline. Every
// user of that etcd can list and write the job's keys, so each value (counters too) is sealed with the job
// token (value_seal.h) and a value whose seal does not verify is an error, never data.
#pragma once
#include <nlohmann/json.hpp>

#include "rendezvous/socket_io.h"
#include "rendezvous/store.h"

namespace dd::rendezvous {

class EtcdStore : public Store {
 public:
  // url: etcd://HOST:PORT[/prefix]; token: the job token the values are sealed with (must not be empty).
  // Retries until etcd answers or the deadline passes.
  static Result<std::unique_ptr<EtcdStore>> open(const std::string& url, const std::string& token,
                                                 Deadline deadline);
  EtcdStore(HostPort server, std::string prefix, std::string token)
      : server_(std::move(server)), prefix_(std::move(prefix)), token_(std::move(token)) {}

  Status set(const std::string& key, const std::string& value, Deadline deadline) override;
  Result<std::string> get(const std::string& key, Deadline deadline) override;
  Result<int64_t> add(const std::string& key, int64_t delta, Deadline deadline) override;
  Status wait(const std::vector<std::string>& keys, Deadline deadline) override;
  Result<std::vector<bool>> check(const std::vector<std::string>& keys, Deadline deadline) override;
  Status remove(const std::string& key, Deadline deadline) override;
  Result<std::vector<std::string>> list(const std::string& prefix, Deadline deadline) override;

  std::string describe() const;

 private:
  struct Kv {
    bool found = false;
    std::string value;
    std::string mod_revision;
  };
  Result<nlohmann::json> rpc(const std::string& path, const nlohmann::json& body, Deadline deadline);
  Result<Kv> range_one(const std::string& full_key, Deadline deadline);

  HostPort server_;
  std::string prefix_;  // "" or "prefix/"
  std::string token_;   // secret: seals every value
};

// The smallest key greater than every key starting with prefix (etcd's range_end for a prefix scan).
std::string etcd_prefix_end(const std::string& prefix);

}  // namespace dd::rendezvous
