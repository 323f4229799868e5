// open_store: one entry point from a --master value to a Store — embedded TCP (server here on the master,
// client elsewhere), etcd, or in-memory — so the cluster layer does not care which one it got.
#pragma once
#include <memory>

#include "rendezvous/store.h"
#include "rendezvous/tcp_store_server.h"

namespace dd::rendezvous {

enum class StoreRole { kClient, kMaster };

struct OpenOptions {
  bool listen_all = false;  // master: listen on every address, not only the one the url names
  ProgressSink server_log;  // master: where the server's log lines go (ServerOptions::log; empty: dropped)
  size_t expected_clients = 0;  // master: how many will connect (0: unknown; sizes the server up front)
  // client: wait for the master's verdict on the token here (a wrong token fails open_store), not with the
  // first request's answer; for a caller whose first request is made by someone else (Gloo, NCCL bootstrap)
  bool verdict_at_open = false;
};

struct OpenedStore {
  std::shared_ptr<Store> store;
  std::shared_ptr<TcpStoreServer> server;  // set on the master of an embedded store: who has arrived, stats
  std::string kind;                        // "tcp", "etcd", "memory"
  std::string description;  // for the report, e.g. "embedded TCP store, server on 198.18.0.1:29500"
  std::string listen_note;  // master: why the store listens on every address when not asked to ("" else)
  uint16_t port = 0;        // embedded store: the port actually bound (PORT 0 picks one)
  std::string url;          // where a process on this machine reaches the store (the master's bound address)
};

// url: "HOST:PORT" or "tcp://HOST:PORT" (embedded TCP store), "etcd://HOST:PORT[/prefix]", "memory://".
// Master of a TCP store: starts the server on HOST's address (see listen_address.h) and connects to it (over
// loopback when it listens on every address; lo must be up). PORT 0 lets the kernel pick;
// OpenedStore::port says which. Everyone else: connects (retrying with backoff until deadline); its proof of
// the token goes with its first request, so a wrong token fails that request with ErrorKind::auth (unless
// verdict_at_open). etcd: role does not matter; the token is not used (etcd has its own access
// control).
Result<OpenedStore> open_store(const std::string& url, const std::string& token, StoreRole role,
                               Deadline deadline, const OpenOptions& options = {});

}  // namespace dd::rendezvous
