// open_store: parses the store address and builds the matching Store (starting the embedded server on the
// master).
#include "rendezvous/open_store.h"

#include <fmt/format.h>

#include "rendezvous/etcd_store.h"
#include "rendezvous/memory_store.h"
#include "rendezvous/tcp_store_client.h"

namespace dd::rendezvous {

Result<OpenedStore> open_store(const std::string& url, const std::string& token, StoreRole role,
                               Deadline deadline, const OpenOptions& options) {
  OpenedStore out;
  if (url == "memory://" || url == "memory") {
    out.store = std::make_shared<MemoryStore>();
    out.kind = "memory";
    out.description = "in-process memory store";
    return out;
  }
  if (url.starts_with("etcd://")) {
    auto etcd = EtcdStore::open(url, deadline);
    if (!etcd) return etcd.error();
    out.description = fmt::format("etcd at {}", (*etcd)->describe());
    out.store = std::move(*etcd);
    out.kind = "etcd";
    return out;
  }
  std::string hostport = url.starts_with("tcp://") ? url.substr(6) : url;
  if (hostport.find("://") != std::string::npos)
    return Error::invalid(
        fmt::format("store address '{}': unknown scheme (use HOST:PORT or etcd://HOST:PORT)", url));
  auto hp = parse_host_port(hostport);
  if (!hp) return hp.error();
  out.kind = "tcp";
  if (role == StoreRole::kMaster) {
    ServerOptions so;
    std::string bind =
        hp->host.find(':') != std::string::npos && options.bind_host == "0.0.0.0" ? "::" : options.bind_host;
    so.bind_host = bind;
    so.port = hp->port;
    so.token = token;
    so.log = options.server_log;
    auto server = TcpStoreServer::start(std::move(so));
    if (!server) return server.error();
    out.server = std::move(*server);
    out.port = out.server->port();
    HostPort local{bind == "::" ? "::1" : "127.0.0.1", out.port};
    auto client = TcpStoreClient::connect(local, token, deadline);
    if (!client) return client.error();
    out.store = std::move(*client);
    out.description = fmt::format("embedded TCP store, server on {}", HostPort{bind, out.port}.str());
    return out;
  }
  auto client = TcpStoreClient::connect(*hp, token, deadline);
  if (!client) return client.error();
  out.port = hp->port;
  out.store = std::move(*client);
  out.description = fmt::format("embedded TCP store at {}", hp->str());
  return out;
}

}  // namespace dd::rendezvous
