// TcpStoreClient: a Store backed by the embedded TCP store server. Connects with retries (backoff + jitter)
// until the deadline, authenticates both ways with the job token, then speaks one request at a time (calls
// from several threads are serialised; open one client per thread for parallel waits).
#pragma once
#include <mutex>
#include <optional>
#include <span>

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
  // Send the proof together with the first request and read the master's verdict in front of its first
  // answer: one round trip and one server write fewer per client (what thousands of joining nodes pay).
  // connect() then returns before the verdict; a wrong token fails the first call (ErrorKind::auth), and a
  // master that drops us before its verdict (it never ran the request) is reconnected to before the deadline.
  bool verdict_with_first_answer = false;
};

class TcpStoreClient : public Store {
 public:
  // Connects and authenticates before deadline (with verdict_with_first_answer: at the first call). Wrong
  // token -> ErrorKind::auth with kWrongTokenMessage (not retried).
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
  // Every request in one write, every answer read behind it (one round trip; see Store::pipeline).
  Result<std::vector<int64_t>> pipeline(const std::vector<StoreOp>& ops, Deadline deadline) override;

  const std::string& peer() const { return peer_; }

 private:
  TcpStoreClient(int fd, HostPort server, std::string token, ClientOptions options);
  Status handshake(Deadline deadline);
  Status within_caps(const std::string& key, const std::string& value) const;
  // The master's auth-result frame: accepted, and its proof matches what the token gives.
  Status check_verdict(const wire::Message& res, const std::string& expected_proof) const;
  // A deferred verdict that never came (the master closed first): a new connection and handshake.
  Status reconnect(Deadline deadline);
  // The master locked our address out (lockout.h) for a pause that ends before the deadline: sleeps until it
  // ends and says so (the caller tries again: a node with the right token joins after the pause). False for
  // any other error, or a pause that outlasts the deadline (the caller returns the refusal, which names it).
  static bool wait_out_lockout(const Error& e, Deadline deadline);
  // Sends the requests in one write and reads one answer for each. An error frame (the server refused that
  // one request) comes back as a frame; a broken connection is an Error and breaks the client for good.
  Result<std::vector<wire::Message>> exchange(std::span<const wire::Message> reqs, Deadline io_deadline);
  Error refused(const wire::Message& error_frame) const;
  // One request: exchange, with an error frame turned into an Error.
  Result<wire::Message> call(const wire::Message& req, Deadline io_deadline);
  Result<wire::Message> read_frame(Deadline deadline);
  Result<wire::Message> blocking_call(wire::Message req, Deadline deadline);
  // get and wait: a blocking call whose answer must be `want`; the server's timeout answer becomes
  // missing_keys_error (naming `missing`, or the keys the server says are missing), another op a protocol
  // error.
  Result<wire::Message> blocking_answer(wire::Message req, wire::Op want, const char* what,
                                        std::vector<std::string> missing, Deadline deadline);

  std::mutex mu_;
  int fd_ = -1;
  HostPort server_;
  std::string token_;
  std::string peer_;
  std::string unsent_;                  // hello + proof waiting to go out in front of the first request
  std::optional<std::string> verdict_;  // the master's proof we expect in its deferred verdict
  ClientOptions opt_;
  wire::FrameReader reader_;
  std::optional<Error> broken_;  // set once the connection failed: later calls fail fast with this reason
};

}  // namespace dd::rendezvous
