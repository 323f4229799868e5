// TcpStoreClient's Store operations (set, get, add, wait, check, remove, pipeline, list): each a request
// through the connection of tcp_store_client.cc, under the client's lock and within the server's caps.
#include <fmt/format.h>

#include "rendezvous/memory_store.h"  // missing_keys_error
#include "rendezvous/tcp_store_client.h"

namespace dd::rendezvous {

using wire::Message;
using wire::Op;

// A request the server would refuse for its size is refused here, before anything is sent.
Status TcpStoreClient::within_caps(const std::string& key, const std::string& value) const {
  if (key.size() <= opt_.limits.max_key && value.size() <= opt_.limits.max_value) return ok_status();
  return Error::invalid(
      fmt::format("set '{}': key of {} or value of {} bytes is over the cap ({} / {} bytes)",
                  key.substr(0, 64), key.size(), value.size(), opt_.limits.max_key, opt_.limits.max_value));
}

Status TcpStoreClient::set(const std::string& key, const std::string& value, Deadline deadline) {
  std::lock_guard lock(mu_);
  if (auto s = within_caps(key, value); !s) return s;
  Message m;
  m.op = Op::kSet;
  m.key = key;
  m.value = value;
  auto r = call(m, deadline);
  if (!r) return r.error();
  return ok_status();
}

Result<Message> TcpStoreClient::blocking_answer(Message m, Op want, const char* what,
                                                std::vector<std::string> missing, Deadline deadline) {
  auto start = Clock::now();
  auto r = blocking_call(std::move(m), deadline);
  if (!r) return r.error();
  if (r->op == Op::kTimeout)
    return missing_keys_error(missing.empty() ? r->keys : missing,
                              std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start));
  if (r->op != want)
    return Error::protocol(fmt::format("store at {}: unexpected answer to {}", peer_, what), peer_);
  return r;
}

Result<std::string> TcpStoreClient::get(const std::string& key, Deadline deadline) {
  std::lock_guard lock(mu_);
  Message m;
  m.op = Op::kGet;
  m.key = key;
  auto r = blocking_answer(std::move(m), Op::kValue, "get", {key}, deadline);
  if (!r) return r.error();
  return std::move(r->value);
}

Result<int64_t> TcpStoreClient::add(const std::string& key, int64_t delta, Deadline deadline) {
  std::lock_guard lock(mu_);
  Message m;
  m.op = Op::kAdd;
  m.key = key;
  m.number = delta;
  auto r = call(m, deadline);
  if (!r) return r.error();
  if (r->op != Op::kInteger)
    return Error::protocol(fmt::format("store at {}: unexpected answer to add", peer_), peer_);
  return r->number;
}

Status TcpStoreClient::wait(const std::vector<std::string>& keys, Deadline deadline) {
  std::lock_guard lock(mu_);
  Message m;
  m.op = Op::kWait;
  m.keys = keys;
  auto r = blocking_answer(std::move(m), Op::kOk, "wait", {}, deadline);
  if (!r) return r.error();
  return ok_status();
}

Result<std::vector<bool>> TcpStoreClient::check(const std::vector<std::string>& keys, Deadline deadline) {
  std::lock_guard lock(mu_);
  Message m;
  m.op = Op::kCheck;
  m.keys = keys;
  auto r = call(m, deadline);
  if (!r) return r.error();
  if (r->op != Op::kBools || r->bools.size() != keys.size())
    return Error::protocol(fmt::format("store at {}: unexpected answer to check", peer_), peer_);
  return std::move(r->bools);
}

Status TcpStoreClient::remove(const std::string& key, Deadline deadline) {
  std::lock_guard lock(mu_);
  Message m;
  m.op = Op::kRemove;
  m.key = key;
  auto r = call(m, deadline);
  if (!r) return r.error();
  return ok_status();
}

Result<std::vector<int64_t>> TcpStoreClient::pipeline(const std::vector<StoreOp>& ops, Deadline deadline) {
  std::lock_guard lock(mu_);
  std::vector<Message> reqs(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const StoreOp& op = ops[i];
    if (auto s = within_caps(op.key, op.value); !s) return s.error();
    reqs[i].op = op.kind == StoreOp::Kind::kSet ? Op::kSet : Op::kAdd;
    reqs[i].key = op.key;
    reqs[i].value = op.value;
    reqs[i].number = op.delta;
  }
  auto answers = exchange(reqs, deadline);
  if (!answers) return answers.error();
  std::vector<int64_t> out;
  out.reserve(ops.size());
  std::optional<Error> first;
  for (size_t i = 0; i < ops.size(); ++i) {
    const Message& a = (*answers)[i];
    const bool is_add = ops[i].kind == StoreOp::Kind::kAdd;
    if (a.op == Op::kError && !first)
      first = refused(a);
    else if (a.op != (is_add ? Op::kInteger : Op::kOk) && a.op != Op::kError && !first)
      first = Error::protocol(
          fmt::format("store at {}: unexpected answer to {}", peer_, is_add ? "add" : "set"), peer_);
    out.push_back(is_add && a.op == Op::kInteger ? a.number : 0);
  }
  if (first) return *first;
  return out;
}

Result<std::vector<std::string>> TcpStoreClient::list(const std::string& prefix, Deadline deadline) {
  std::lock_guard lock(mu_);
  Message m;
  m.op = Op::kList;
  m.key = prefix;
  auto r = call(m, deadline);
  if (!r) return r.error();
  if (r->op != Op::kKeys)
    return Error::protocol(fmt::format("store at {}: unexpected answer to list", peer_), peer_);
  return std::move(r->keys);
}

}  // namespace dd::rendezvous
