// EtcdStore: put/range/txn/deleterange on etcd's /v3 JSON gateway; add is a compare-and-swap loop.
#include "rendezvous/etcd_store.h"

#include <fmt/format.h>

#include <random>
#include <thread>

#include "common/json_limits.h"
#include "common/safe_text.h"
#include "rendezvous/http.h"
#include "rendezvous/memory_store.h"
#include "rendezvous/value_seal.h"

namespace dd::rendezvous {

using nlohmann::json;

std::string etcd_prefix_end(const std::string& prefix) {
  std::string end = prefix;
  while (!end.empty()) {
    if (static_cast<uint8_t>(end.back()) < 0xff) {
      end.back() = static_cast<char>(static_cast<uint8_t>(end.back()) + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // every key
}

Result<std::unique_ptr<EtcdStore>> EtcdStore::open(const std::string& url, const std::string& token,
                                                   Deadline deadline) {
  if (token.empty()) return Error::invalid("etcd store: no job token to seal its values with");
  std::string rest = url.substr(url.find("://") + 3);
  std::string prefix;
  if (auto slash = rest.find('/'); slash != std::string::npos) {
    prefix = rest.substr(slash + 1);
    rest.resize(slash);
    while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
    if (!prefix.empty()) prefix += '/';
  }
  auto hp = parse_host_port(rest);
  if (!hp) return Error::invalid(fmt::format("etcd address '{}': {}", url, hp.error().what));
  auto store = std::make_unique<EtcdStore>(*hp, prefix, token);
  auto backoff = std::chrono::milliseconds(20);
  while (true) {
    auto probe = store->range_one(prefix + "distdoctor-probe",
                                  std::min(deadline, Clock::now() + std::chrono::seconds(3)));
    if (probe) return store;
    if (Clock::now() + backoff >= deadline)
      return Error::make(
          probe.error().kind,
          fmt::format("etcd at {} not reachable before the deadline: {}", hp->str(), probe.error().message()),
          hp->str(), probe.error().err);
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
  }
}

std::string EtcdStore::describe() const {
  return prefix_.empty() ? server_.str() : fmt::format("{} (prefix {})", server_.str(), prefix_);
}

Result<json> EtcdStore::rpc(const std::string& path, const json& body, Deadline deadline) {
  auto r = http_post(server_, path, json_text(body), deadline);
  if (!r) return r.error();
  json j = dd::parse_json_or_discarded(r->body);
  if (r->status != 200 || j.is_discarded()) {
    std::string msg = !j.is_discarded() && j.is_object() && j.contains("error") ? json_text(j["error"])
                                                                                : r->body.substr(0, 200);
    // Not JSON at all: not an etcd gateway. JSON with an error: etcd itself refused the request.
    return Error::make(
        j.is_discarded() ? ErrorKind::protocol : ErrorKind::other,
        fmt::format("etcd at {}: {} answered HTTP {}: {}", server_.str(), path, r->status, msg),
        server_.str());
  }
  return j;
}

Result<EtcdStore::Kv> EtcdStore::range_one(const std::string& full_key, Deadline deadline) {
  auto j = rpc("/v3/kv/range", {{"key", base64_encode(full_key)}}, deadline);
  if (!j) return j.error();
  Kv kv;
  if (j->contains("kvs") && !(*j)["kvs"].empty()) {
    const auto& e = (*j)["kvs"][0];
    auto v = base64_decode(e.value("value", ""));
    if (!v) return v.error();
    kv.found = true;
    kv.value = *v;
    kv.mod_revision = e.value("mod_revision", "0");
  }
  return kv;
}

Status EtcdStore::set(const std::string& key, const std::string& value, Deadline deadline) {
  auto j = rpc("/v3/kv/put",
               {{"key", base64_encode(prefix_ + key)},
                {"value", base64_encode(seal_value(token_, prefix_ + key, value))}},
               deadline);
  if (!j) return j.error();
  return ok_status();
}

namespace {
// Poll backoff for waits: starts at 5 ms, doubles to 200 ms, with jitter so many waiters do not poll in step.
void poll_sleep(std::chrono::milliseconds& backoff, Deadline deadline) {
  thread_local std::mt19937 rng(std::random_device{}());
  auto ms = std::chrono::milliseconds(
      std::uniform_int_distribution<int64_t>(backoff.count() / 2, backoff.count())(rng));
  auto until = std::min(deadline, Clock::now() + ms);
  std::this_thread::sleep_until(until);
  backoff = std::min(backoff * 2, std::chrono::milliseconds(200));
}
}  // namespace

Result<std::string> EtcdStore::get(const std::string& key, Deadline deadline) {
  auto start = Clock::now();
  auto backoff = std::chrono::milliseconds(5);
  while (true) {
    auto kv = range_one(prefix_ + key, std::max(deadline, Clock::now() + std::chrono::seconds(2)));
    if (!kv) return kv.error();
    if (kv->found) return unseal_value(token_, prefix_ + key, kv->value);
    if (Clock::now() >= deadline)
      return missing_keys_error({key},
                                std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start));
    poll_sleep(backoff, deadline);
  }
}

Result<int64_t> EtcdStore::add(const std::string& key, int64_t delta, Deadline deadline) {
  std::string full = prefix_ + key;
  while (Clock::now() < deadline) {
    auto kv = range_one(full, deadline);
    if (!kv) return kv.error();
    int64_t now = delta;
    json cmp;
    if (kv->found) {
      auto plain = unseal_value(token_, full, kv->value);
      if (!plain) return plain.error();
      auto old = parse_counter(key, *plain);
      if (!old) return old.error();
      auto sum = add_counter(key, *old, delta);
      if (!sum) return sum.error();
      now = *sum;
      cmp = {{"key", base64_encode(full)},
             {"result", "EQUAL"},
             {"target", "MOD"},
             {"mod_revision", kv->mod_revision}};
    } else {
      cmp = {
          {"key", base64_encode(full)}, {"result", "EQUAL"}, {"target", "CREATE"}, {"create_revision", "0"}};
    }
    json txn = {
        {"compare", json::array({cmp})},
        {"success",
         json::array({{{"request_put",
                        {{"key", base64_encode(full)},
                         {"value", base64_encode(seal_value(token_, full, std::to_string(now)))}}}}})}};
    auto r = rpc("/v3/kv/txn", txn, deadline);
    if (!r) return r.error();
    if (r->value("succeeded", false)) return now;  // lost the race: read again and retry
  }
  return Error::timeout(fmt::format("add on etcd key '{}': too much contention before the deadline", key),
                        server_.str());
}

Status EtcdStore::wait(const std::vector<std::string>& keys, Deadline deadline) {
  auto start = Clock::now();
  std::vector<std::string> missing = keys;
  auto backoff = std::chrono::milliseconds(5);
  while (true) {
    // Each poll gets at least 2 s, so a wait that is about to end still reads the keys before naming them.
    auto found = check(missing, std::max(deadline, Clock::now() + std::chrono::seconds(2)));
    if (!found) return found.error();
    std::vector<std::string> still;
    for (size_t i = 0; i < missing.size(); ++i)
      if (!(*found)[i]) still.push_back(missing[i]);
    missing = std::move(still);
    if (missing.empty()) return ok_status();
    if (Clock::now() >= deadline)
      return missing_keys_error(missing,
                                std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start));
    poll_sleep(backoff, deadline);
  }
}

Result<std::vector<bool>> EtcdStore::check(const std::vector<std::string>& keys, Deadline deadline) {
  std::vector<bool> out;
  for (const auto& k : keys) {
    auto j = rpc("/v3/kv/range", {{"key", base64_encode(prefix_ + k)}, {"count_only", true}}, deadline);
    if (!j) return j.error();
    out.push_back(j->value("count", "0") != "0");
  }
  return out;
}

Status EtcdStore::remove(const std::string& key, Deadline deadline) {
  auto j = rpc("/v3/kv/deleterange", {{"key", base64_encode(prefix_ + key)}}, deadline);
  if (!j) return j.error();
  return ok_status();
}

Result<std::vector<std::string>> EtcdStore::list(const std::string& prefix, Deadline deadline) {
  std::string full = prefix_ + prefix;
  json req = {{"key", base64_encode(full.empty() ? std::string(1, '\0') : full)},
              {"range_end", base64_encode(etcd_prefix_end(full))},
              {"keys_only", true},
              {"sort_order", "ASCEND"},
              {"sort_target", "KEY"}};
  auto j = rpc("/v3/kv/range", req, deadline);
  if (!j) return j.error();
  std::vector<std::string> out;
  for (const auto& e : j->value("kvs", json::array())) {
    auto k = base64_decode(e.value("key", ""));
    if (!k) return k.error();
    out.push_back(k->substr(prefix_.size()));
  }
  return out;
}

}  // namespace dd::rendezvous
