// TcpStoreClient: a Store backed by the embedded TCP store server. Connects with retries (backoff + jitter)
// until the deadline, authenticates both ways with the job token, then speaks one request at a time (calls
// from several threads are serialised; open one client per thread for parallel waits).
#pragma once
#include <mutex>
#include <optional>

#include "rendezvous/socket_io.h"
#include "rendezvous/store.h"
#include "rendezvous/wire.h"

namespace dd::rendezvous {

struct ClientOptions {
  ConnectOptions connect;
  wire::Limits limits;
  // How long to wait for the master's challenge (sent at accept) before sending hello on its own, as an
  // older master that answers hello with its challenge needs.
  std::chrono::milliseconds challenge_wait{2000};
};

class TcpStoreClient : public Store {
 public:
  // Connects and authenticates before deadline. Wrong token -> ErrorKind::auth with kWrongTokenMessage (not
  // retried).
  static Result<std::unique_ptr<TcpStoreClient>> connect(const HostPort& server, const std::string& token,
                                                         Deadline deadline, ClientOptions options = {});
  ~TcpStoreClient() override;

  Status set(const std::string& key, const std::string& value, Deadline deadline) override;
  Result<std::string> get(const std::string& key, Deadline deadline) override;
  Result<int64_t> add(const std::string& key, int64_t delta, Deadline deadline) override;
  Status wait(const std::vector<std::string>& keys, Deadline deadline) override;
  Result<std::vector<bool>> check(const std::vector<std::string>& keys, Deadline deadline) override;
  Status remove(const std::string& key, Deadline deadline) override;
  Result<std::vector<std::string>> list(const std::string& prefix, Deadline deadline) override;

  const std::string& peer() const { return peer_; }

 private:
  TcpStoreClient(int fd, std::string peer, ClientOptions options);
  Status handshake(const std::string& token, Deadline deadline);
  // Sends one request and reads its answer; an error frame or a broken connection becomes an Error.
  Result<wire::Message> call(const wire::Message& req, Deadline io_deadline);
  Result<wire::Message> read_frame(Deadline deadline);
  Result<wire::Message> blocking_call(wire::Message req, Deadline deadline);

  std::mutex mu_;
  int fd_ = -1;
  std::string peer_;
  ClientOptions opt_;
  wire::FrameReader reader_;
  std::optional<Error> broken_;  // set once the connection failed: later calls fail fast with this reason
};

}  // namespace dd::rendezvous
