// The store master the store benchmarks (store_flood, store_values) measure: an embedded TCP store on
// loopback with the caps a real master runs with, a fresh token, and a silent log.
#pragma once
#include <cstdio>
#include <memory>
#include <string>

#include "rendezvous/auth.h"
#include "rendezvous/tcp_store_server.h"

namespace dd::rendezvous {

// The started master, or nullptr after printing "NAME: why" on stderr. *token gets its token.
inline std::unique_ptr<TcpStoreServer> start_loopback_master(const char* name, std::string* token) {
  ServerOptions so;  // the caps a real master runs with
  so.bind_host = "127.0.0.1";
  so.token = generate_token();
  auto server = TcpStoreServer::start(so);
  if (!server) {
    std::fprintf(stderr, "%s: %s\n", name, server.error().message().c_str());
    return nullptr;
  }
  *token = so.token;
  return std::move(*server);
}

}  // namespace dd::rendezvous
