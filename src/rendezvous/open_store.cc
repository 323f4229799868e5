// open_store: parses the store address and builds the matching Store (starting the embedded server on the
// master).
#include "rendezvous/open_store.h"

#include <fmt/format.h>

#include "rendezvous/etcd_store.h"
#include "rendezvous/listen_address.h"
#include "rendezvous/memory_store.h"
#include "rendezvous/tcp_store_client.h"

namespace dd::rendezvous {

namespace {

using Started = std::pair<std::unique_ptr<TcpStoreServer>, std::string>;  // the server, the address bound

// Starts the server on the first of hosts this machine has; EADDRNOTAVAIL for every one gives that error.
Result<Started> start_on(const std::vector<std::string>& hosts, const HostPort& master,
                         const std::string& token, const OpenOptions& options) {
  std::optional<Error> last;
  for (const auto& host : hosts) {
    ServerOptions so;
    so.bind_host = host;
    so.port = master.port;
    so.token = token;
    so.log = options.server_log;
    so.expected_clients = options.expected_clients;
    auto s = TcpStoreServer::start(std::move(so));
    if (s) return Started{std::move(*s), host};
    if (s.error().err != EADDRNOTAVAIL) return s.error();
    last = s.error();
  }
  return last ? *last : Error::invalid("store server: no address to listen on");
}

// Starts the server where plan_listen says (every address when this machine lacks the named one) and
// connects to it.
Result<OpenedStore> open_master(const HostPort& master, const std::string& token, Deadline deadline,
                                const OpenOptions& options) {
  ListenPlan plan = plan_listen(master, options.listen_all, deadline);
  auto started = start_on(plan.hosts, master, token, options);
  if (!started && started.error().err == EADDRNOTAVAIL && !plan.every_address) {
    plan = every_address(master, not_local_note(master));
    started = start_on(plan.hosts, master, token, options);
  }
  if (!started) return started.error();
  auto& [server, bound] = *started;
  OpenedStore out;
  out.kind = "tcp";
  out.server = std::move(server);
  out.port = out.server->port();
  out.listen_note = plan.note;
  HostPort local{bound == "::" ? "::1" : bound == "0.0.0.0" ? "127.0.0.1" : bound, out.port};
  auto client = TcpStoreClient::connect(local, token, deadline);
  if (!client) return client.error();
  out.store = std::move(*client);
  out.description = fmt::format("embedded TCP store, server on {}", HostPort{bound, out.port}.str());
  out.url = local.str();
  return out;
}

}  // namespace

Result<OpenedStore> open_store(const std::string& url, const std::string& token, StoreRole role,
                               Deadline deadline, const OpenOptions& options) {
  OpenedStore out;
  out.url = url;
  if (url == "memory://" || url == "memory") {
    out.store = std::make_shared<MemoryStore>();
    out.kind = "memory";
    out.description = "in-process memory store";
    return out;
  }
  if (url.starts_with("etcd://")) {
    auto etcd = EtcdStore::open(url, token, deadline);
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
  if (role == StoreRole::kMaster) return open_master(*hp, token, deadline, options);
  // A joining node's proof rides with its first request (a wrong token fails that request: ErrorKind::auth)
  // unless the caller asked for the verdict here.
  auto client = TcpStoreClient::connect(*hp, token, deadline,
                                        ClientOptions{.verdict_with_first_answer = !options.verdict_at_open});
  if (!client) return client.error();
  out.port = hp->port;
  out.store = std::move(*client);
  out.description = fmt::format("embedded TCP store at {}", hp->str());
  out.url = url;
  return out;
}

}  // namespace dd::rendezvous
